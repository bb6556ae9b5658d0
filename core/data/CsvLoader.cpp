#include "CsvLoader.h"

#include "CsvReader.h"
#include "DataFiles.h"
#include "InputError.h"
#include "Split.h"

#include <QFileInfo>

#include <algorithm>

namespace ml {

namespace {

enum class Role { Input, Target, Label };

// The parsed file before it becomes a DenseDataset (the class count may depend on a second file).
struct CsvTable {
    std::vector<std::string> header;
    Eigen::Index rows = 0;
    std::vector<float> inputs, targets;  // row-major
    std::vector<int> labels;
    int inputCount = 0, targetCount = 0;
    bool hasLabel = false;
};

// A header cell that looks like data, e.g. "5.1" (to hint that the header row is missing).
bool looksNumeric(std::string_view cell) {
    return cell.find_first_of("0123456789") != std::string_view::npos &&
           cell.find_first_not_of("0123456789.+-eE") == std::string_view::npos;
}

std::vector<Role> parseHeader(CsvReader& reader, CsvTable& table) {
    std::vector<std::string_view> cells;
    if (!reader.nextRow(cells))
        reader.failFile("the file is empty; expected a header row such as \"x1,x2,label\" then data rows");
    std::vector<Role> roles;
    for (std::size_t c = 0; c < cells.size(); ++c) {
        const std::string_view name = cells[c];
        const int column = static_cast<int>(c) + 1;
        if (name == "label") {
            if (table.hasLabel) reader.fail(column, name, "a second label column; expected exactly one");
            table.hasLabel = true;
            roles.push_back(Role::Label);
        } else if (name.starts_with('x')) {
            ++table.inputCount;
            roles.push_back(Role::Input);
        } else if (name.starts_with('y')) {
            ++table.targetCount;
            roles.push_back(Role::Target);
        } else {
            reader.fail(column, {},
                        "unknown column name \"" + std::string(name) +
                            "\"; expected names starting with x (inputs), y (regression targets) or "
                            "\"label\" (class index)" +
                            (looksNumeric(name) ? "; the first line must be the header row -- is it missing?" : ""));
        }
        table.header.emplace_back(name);
    }
    if (table.inputCount == 0) reader.fail(0, {}, "no input columns; expected at least one column named x...");
    if (table.hasLabel && table.targetCount > 0)
        reader.fail(0, {},
                    "both y... and label columns; use y columns for regression or one label column "
                    "for classification, not both");
    if (!table.hasLabel && table.targetCount == 0)
        reader.fail(0, {}, "no target column; expected columns named y... (regression) or a label column");
    return roles;
}

CsvTable parseCsv(const std::string& path) {
    const QByteArray text = readMaybeGzippedFile(QString::fromStdString(path));
    CsvReader reader(std::string_view(text.constData(), static_cast<std::size_t>(text.size())), path);
    CsvTable table;
    const std::vector<Role> roles = parseHeader(reader, table);
    std::vector<std::string_view> cells;
    while (reader.nextRow(cells)) {
        if (cells.size() != roles.size()) {
            const std::size_t at = std::min(cells.size(), roles.size());  // first missing or extra field
            reader.fail(static_cast<int>(at) + 1, at < roles.size() ? table.header[at] : std::string_view{},
                        "expected " + std::to_string(roles.size()) + " fields as in the header, found " +
                            std::to_string(cells.size()));
        }
        for (std::size_t c = 0; c < cells.size(); ++c) {
            const int column = static_cast<int>(c) + 1;
            switch (roles[c]) {
            case Role::Input: table.inputs.push_back(reader.parseFloat(cells[c], column, table.header[c])); break;
            case Role::Target: table.targets.push_back(reader.parseFloat(cells[c], column, table.header[c])); break;
            case Role::Label:
                table.labels.push_back(reader.parseIndex(cells[c], column, table.header[c], kMaxCsvClasses - 1));
                break;
            }
        }
        ++table.rows;
    }
    if (table.rows == 0) reader.failFile("has a header but no data rows");
    return table;
}

int maxLabel(const CsvTable& t) { return t.labels.empty() ? -1 : *std::max_element(t.labels.begin(), t.labels.end()); }

DenseDataset toDataset(const CsvTable& t, const std::string& path, int numClasses) {
    using RowMatrix = DenseDataset::RowMatrix;
    RowMatrix x = Eigen::Map<const RowMatrix>(t.inputs.data(), t.rows, t.inputCount);
    if (!t.hasLabel)
        return DenseDataset::regression(std::move(x),
                                        Eigen::Map<const RowMatrix>(t.targets.data(), t.rows, t.targetCount));
    if (maxLabel(t) >= numClasses)
        throw InputError(path + ": label " + std::to_string(maxLabel(t)) + " is not below the class count " +
                         std::to_string(numClasses));
    return DenseDataset::classification(std::move(x), Eigen::Map<const Eigen::VectorXi>(t.labels.data(), t.rows),
                                        numClasses);
}

}  // namespace

DenseDataset loadCsvFile(const std::string& path, int numClasses) {
    const CsvTable table = parseCsv(path);
    return toDataset(table, path, numClasses > 0 ? numClasses : maxLabel(table) + 1);
}

DataSplit loadCsvDataSplit(const std::string& paths, const std::string& spec) {
    const auto comma = paths.find(',');
    // A path that exists is taken whole, so file names containing commas still work.
    if (comma == std::string::npos || QFileInfo::exists(QString::fromStdString(paths))) {
        const DenseDataset all = loadCsvFile(paths);
        if (all.size() < 2) throw InputError(paths + ": needs at least 2 data rows (a training and a test split)");
        const IndexSplit split = shuffledSplit(all.size(), std::max<Eigen::Index>(1, all.size() / 5), kFixedSplitSeed);
        return {spec, std::make_shared<DenseDataset>(all.subset(split.train)),
                std::make_shared<DenseDataset>(all.subset(split.test))};
    }
    const std::string trainPath = paths.substr(0, comma), testPath = paths.substr(comma + 1);
    const CsvTable train = parseCsv(trainPath), test = parseCsv(testPath);
    if (train.header != test.header)
        throw InputError(testPath + ": the header differs from " + trainPath + "'s; both files need the same columns");
    const int numClasses = std::max(maxLabel(train), maxLabel(test)) + 1;
    return {spec, std::make_shared<DenseDataset>(toDataset(train, trainPath, numClasses)),
            std::make_shared<DenseDataset>(toDataset(test, testPath, numClasses))};
}

}  // namespace ml
