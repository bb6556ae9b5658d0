#pragma once
// Splits comma-separated numeric text into rows and cells, and parses cells strictly (the whole
// cell, trimmed of spaces, must be a finite number). Every error is an ml::InputError naming the
// source, the line and the column. Blank lines are skipped; no quoting (numbers only).
#include <string>
#include <string_view>
#include <vector>

namespace ml {

class CsvReader {
public:
    // `source` names the text in messages (a file path or resource name). `text` must outlive
    // the reader. A UTF-8 byte-order mark at the start is skipped.
    CsvReader(std::string_view text, std::string source);

    // Reads the next non-blank line into `cells` (trimmed views into the text); false at the end.
    bool nextRow(std::vector<std::string_view>& cells);
    // 1-based number of the line last returned by nextRow().
    int lineNumber() const { return line_; }
    const std::string& source() const { return source_; }

    // Cell parsers; `column` is 1-based, `columnName` (may be empty) is added to messages.
    float parseFloat(std::string_view cell, int column, std::string_view columnName = {}) const;
    // A non-negative integer no larger than maxValue.
    int parseIndex(std::string_view cell, int column, std::string_view columnName, int maxValue) const;

    // Throws InputError "<source>, line L, column C (name): <what>"; column 0 omits the column.
    [[noreturn]] void fail(int column, std::string_view columnName, const std::string& what) const;
    // Throws InputError "<source>: <what>".
    [[noreturn]] void failFile(const std::string& what) const;

private:
    std::string_view rest_;
    std::string source_;
    int line_ = 0;
};

}  // namespace ml
