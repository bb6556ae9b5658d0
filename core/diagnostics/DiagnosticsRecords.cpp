#include "diagnostics/DiagnosticsRecords.h"

#include "data/CsvReader.h"
#include "diagnostics/DiagnosticsColumns.h"
#include "io/Files.h"

#include <array>
#include <cmath>
#include <string>

namespace ml {

namespace {

// The writers print non-finite values as nan / inf / -inf (io/NumberText.h); CsvReader takes
// only finite numbers.
float parseValue(const CsvReader& reader, std::string_view cell, int column, std::string_view name) {
    if (cell == "nan") return NAN;
    if (cell == "inf") return INFINITY;
    if (cell == "-inf") return -INFINITY;
    return reader.parseFloat(cell, column, name);
}

long parseStep(const CsvReader& reader, std::string_view cell, int column) {
    return reader.parseIndex(cell, column, "step", 2'000'000'000);
}

// Checks the header: `required` columns first, in order, then optionally `optional`.
std::size_t checkHeader(CsvReader& reader, const std::vector<std::string_view>& cells,
                        const std::vector<std::string_view>& required, std::string_view optional) {
    const bool full = cells.size() == required.size() + 1 && cells.back() == optional;
    bool matches = cells.size() == required.size() || full;
    for (std::size_t c = 0; matches && c < required.size(); ++c) matches = cells[c] == required[c];
    if (!matches) {
        std::string expected;
        for (std::string_view name : required) expected += std::string(expected.empty() ? "" : ",") + std::string(name);
        if (!optional.empty()) expected += "[," + std::string(optional) + "]";
        reader.fail(0, {}, "expected the header " + expected);
    }
    return cells.size();
}

}  // namespace

DiagnosticsRecord recordOf(long step, const StepDiagnostics& diagnostics) {
    DiagnosticsRecord record;
    record.step = step;
    record.layers.reserve(diagnostics.layerCount());
    for (std::size_t l = 0; l < diagnostics.layerCount(); ++l) record.layers.push_back(diagnostics.layer(l));
    return record;
}

std::vector<DiagnosticsRecord> readDiagnosticsFile(const QString& path) {
    const QByteArray bytes = readFileBytes(path);
    CsvReader reader(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())), path.toStdString());
    std::vector<std::string_view> cells;
    if (!reader.nextRow(cells)) reader.failFile("is empty (expected the header step,layer,neuron,...)");
    static const std::vector<std::string_view> kColumns(kDiagnosticsColumns.begin(),
                                                        kDiagnosticsColumns.begin() + kDiagnosticsColumnsBeforeSnr);
    const std::size_t columns = checkHeader(reader, cells, kColumns, kDiagnosticsColumns.back());
    std::vector<DiagnosticsRecord> records;
    while (reader.nextRow(cells)) {
        if (cells.size() != columns)
            reader.fail(0, {}, "has " + std::to_string(cells.size()) + " cells, expected " + std::to_string(columns));
        const long step = parseStep(reader, cells[0], 1);
        const int layer = reader.parseIndex(cells[1], 2, "layer", 100000);
        const bool layerRow = cells[2].empty();
        const int neuron = layerRow ? -1 : reader.parseIndex(cells[2], 3, "neuron", 100'000'000);
        if (records.empty() || records.back().step != step) {
            if (!records.empty() && step < records.back().step) reader.fail(1, "step", "steps must not decrease");
            records.push_back({step, {}});
        }
        auto& layers = records.back().layers;
        // Rows come in order: a layer's row, then its neurons 0, 1, ...
        if (layerRow) {
            if (layer != static_cast<int>(layers.size()))
                reader.fail(2, "layer", "expected layer " + std::to_string(layers.size()) + " next");
            layers.emplace_back(1);
        } else if (layers.empty() || layer != static_cast<int>(layers.size()) - 1 ||
                   neuron != static_cast<int>(layers.back().size()) - 1) {
            reader.fail(3, "neuron", "expected the rows of a layer, then its neurons in order");
        } else {
            layers.back().emplace_back();
        }
        UnitDiagnostics& unit = layers.back().back();
        std::array<float*, 8> fields = {
            &unit.gradientNorm,      &unit.updateNorm, &unit.updateToWeight, &unit.distanceFromInitial,
            &unit.cosMomentGradient, &unit.meanShare,  &unit.momentCv,       &unit.gradientSnr};
        for (std::size_t c = 3; c < columns; ++c)
            *fields[c - 3] = parseValue(reader, cells[c], static_cast<int>(c + 1),
                                        c < kColumns.size() ? kColumns[c] : std::string_view("gradient_snr"));
    }
    return records;
}

std::vector<CurvaturePoint> readCurvatureFile(const QString& path) {
    const QByteArray bytes = readFileBytes(path);
    CsvReader reader(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())), path.toStdString());
    std::vector<std::string_view> cells;
    if (!reader.nextRow(cells)) reader.failFile("is empty (expected the header step,lambda_max,...)");
    static const std::vector<std::string_view> kColumns = {"step",      "lambda_max",    "iterations",
                                                           "converged", "sgd_threshold", "heavy_ball_threshold"};
    checkHeader(reader, cells, kColumns, {});
    std::vector<CurvaturePoint> points;
    while (reader.nextRow(cells)) {
        if (cells.size() != kColumns.size())
            reader.fail(0, {},
                        "has " + std::to_string(cells.size()) + " cells, expected " + std::to_string(kColumns.size()));
        CurvaturePoint point;
        point.step = parseStep(reader, cells[0], 1);
        point.lambdaMax = parseValue(reader, cells[1], 2, kColumns[1]);
        point.iterations = reader.parseIndex(cells[2], 3, kColumns[2], 1'000'000);
        point.converged = reader.parseIndex(cells[3], 4, kColumns[3], 1) == 1;
        point.sgdThreshold = parseValue(reader, cells[4], 5, kColumns[4]);
        point.heavyBallThreshold = parseValue(reader, cells[5], 6, kColumns[5]);
        points.push_back(point);
    }
    return points;
}

std::vector<double> readSpectrumFile(const QString& path) {
    const QByteArray bytes = readFileBytes(path);
    CsvReader reader(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())), path.toStdString());
    std::vector<std::string_view> cells;
    if (!reader.nextRow(cells)) reader.failFile("is empty (expected the header index,eigenvalue)");
    static const std::vector<std::string_view> kColumns = {"index", "eigenvalue"};
    checkHeader(reader, cells, kColumns, {});
    std::vector<double> eigenvalues;
    while (reader.nextRow(cells)) {
        if (cells.size() != kColumns.size())
            reader.fail(0, {}, "has " + std::to_string(cells.size()) + " cells, expected 2");
        eigenvalues.push_back(parseValue(reader, cells[1], 2, kColumns[1]));
    }
    return eigenvalues;
}

}  // namespace ml
