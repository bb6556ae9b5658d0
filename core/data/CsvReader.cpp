#include "CsvReader.h"

#include "InputError.h"

#include <charconv>
#include <cmath>

namespace ml {

namespace {

std::string_view trim(std::string_view s) {
    const auto first = s.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) return {};
    return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

std::string quoted(std::string_view cell) {
    constexpr std::size_t kMax = 40;  // keep messages short for absurd cells
    std::string text(1, '"');         // built by appending: GCC 12 gives a false -Wrestrict on operator+ chains
    text.append(cell.substr(0, kMax)).append(cell.size() > kMax ? "...\"" : "\"");
    return text;
}

}  // namespace

CsvReader::CsvReader(std::string_view text, std::string source) : rest_(text), source_(std::move(source)) {
    if (rest_.starts_with("\xEF\xBB\xBF")) rest_.remove_prefix(3);
}

bool CsvReader::nextRow(std::vector<std::string_view>& cells) {
    while (!rest_.empty()) {
        const auto end = rest_.find('\n');
        const std::string_view line = rest_.substr(0, end);
        rest_.remove_prefix(end == std::string_view::npos ? rest_.size() : end + 1);
        ++line_;
        if (trim(line).empty()) continue;
        cells.clear();
        for (std::size_t start = 0;;) {
            const auto comma = line.find(',', start);
            cells.push_back(trim(line.substr(start, comma - start)));
            if (comma == std::string_view::npos) break;
            start = comma + 1;
        }
        return true;
    }
    return false;
}

float CsvReader::parseFloat(std::string_view cell, int column, std::string_view columnName) const {
    std::string_view digits = cell;
    if (digits.starts_with('+')) digits.remove_prefix(1);
    float value = 0.0f;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (digits.empty() || ec == std::errc::invalid_argument || end != digits.data() + digits.size())
        fail(column, columnName, "expected a number, found " + quoted(cell));
    if (ec == std::errc::result_out_of_range || !std::isfinite(value))
        fail(column, columnName, "expected a finite float32 number, found " + quoted(cell));
    return value;
}

int CsvReader::parseIndex(std::string_view cell, int column, std::string_view columnName, int maxValue) const {
    int value = -1;
    const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
    if (cell.empty() || ec != std::errc{} || end != cell.data() + cell.size() || value < 0 || value > maxValue)
        fail(column, columnName,
             "expected a class index (an integer from 0 to " + std::to_string(maxValue) + "), found " + quoted(cell));
    return value;
}

void CsvReader::fail(int column, std::string_view columnName, const std::string& what) const {
    std::string where = source_ + ", line " + std::to_string(line_);
    if (column > 0) where += ", column " + std::to_string(column);
    if (!columnName.empty()) where += " (" + std::string(columnName) + ")";
    throw InputError(where + ": " + what);
}

void CsvReader::failFile(const std::string& what) const { throw InputError(source_ + ": " + what); }

}  // namespace ml
