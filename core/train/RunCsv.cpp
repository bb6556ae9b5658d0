#include "train/RunCsv.h"

#include "InputError.h"

#include <QList>

#include <cmath>

namespace ml {

namespace {

QByteArray number(double value, const char* format = "%.9g") {
    if (std::isnan(value)) return {};
    return QString::asprintf(format, value).toLatin1();
}

// The data lines of a CSV whose first line must be `header`; each split into `header`'s columns.
std::vector<QList<QByteArray>> dataLines(const QByteArray& csv, const QByteArray& header, const QString& path) {
    QList<QByteArray> lines = csv.split('\n');
    while (!lines.isEmpty() && lines.back().trimmed().isEmpty()) lines.pop_back();
    if (lines.isEmpty() || lines.front().trimmed() + '\n' != header)
        throw InputError(path.toStdString() + ":1: expected the header " + header.trimmed().toStdString());
    const qsizetype columns = header.count(',') + 1;
    std::vector<QList<QByteArray>> rows;
    rows.reserve(lines.size());
    for (qsizetype i = 1; i < lines.size(); ++i) {
        rows.push_back(lines[i].trimmed().split(','));
        if (rows.back().size() != columns)
            throw InputError(path.toStdString() + ":" + std::to_string(i + 1) + ": has " +
                             std::to_string(rows.back().size()) + " fields; expected " + std::to_string(columns));
    }
    return rows;
}

// Line numbers count the header: data row r is on line r + 2.
double parseCell(const QByteArray& cell, const QString& path, std::size_t row, const char* column, bool optional) {
    const std::string where = path.toStdString() + ":" + std::to_string(row + 2) + ": column " + column;
    if (cell.isEmpty()) {
        if (optional) return NAN;
        throw InputError(where + " is empty");
    }
    bool ok = false;
    const double value = cell.toDouble(&ok);
    if (!ok) throw InputError(where + ": '" + cell.toStdString() + "' is not a number");
    return value;
}

}  // namespace

QByteArray metricsHeader() { return "step,epoch,train_loss,test_loss,test_accuracy,wall_ms\n"; }

QByteArray metricsRow(const StepMetrics& m) {
    return QByteArray::number(static_cast<qlonglong>(m.step)) + ',' + QByteArray::number(m.epoch) + ',' +
           number(m.trainLoss) + ',' + number(m.testLoss) + ',' + number(m.testAccuracy) + ',' +
           number(m.wallMs, "%.3f") + '\n';
}

QByteArray summaryHeader() {
    return "optimizer,final_train_loss,final_test_loss,final_test_accuracy,steps,wall_ms,status\n";
}

QByteArray summaryRow(const RunResult& r) {
    return QByteArray::fromStdString(r.label) + ',' + number(r.finalTrainLoss) + ',' + number(r.finalTestLoss) +
           ',' + number(r.finalTestAccuracy) + ',' + QByteArray::number(static_cast<qlonglong>(r.steps)) + ',' +
           number(r.wallMs, "%.3f") + ',' + QByteArray::fromStdString(r.statusText()) + '\n';
}

std::vector<StepMetrics> parseMetricsCsv(const QByteArray& csv, const QString& path, int run) {
    static const char* const columns[] = {"step", "epoch", "train_loss", "test_loss", "test_accuracy", "wall_ms"};
    const std::vector<QList<QByteArray>> rows = dataLines(csv, metricsHeader(), path);
    std::vector<StepMetrics> metrics;
    metrics.reserve(rows.size());
    for (std::size_t r = 0; r < rows.size(); ++r) {
        double values[6];
        for (int c = 0; c < 6; ++c) values[c] = parseCell(rows[r][c], path, r, columns[c], c >= 2 && c <= 4);
        StepMetrics m;
        m.run = run;
        m.step = static_cast<long>(values[0]);
        m.epoch = static_cast<int>(values[1]);
        m.trainLoss = static_cast<float>(values[2]);
        m.testLoss = static_cast<float>(values[3]);
        m.testAccuracy = static_cast<float>(values[4]);
        m.wallMs = values[5];
        metrics.push_back(m);
    }
    return metrics;
}

std::vector<RunResult> parseSummaryCsv(const QByteArray& csv, const QString& path) {
    const std::vector<QList<QByteArray>> rows = dataLines(csv, summaryHeader(), path);
    std::vector<RunResult> results;
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const QList<QByteArray>& cells = rows[r];
        RunResult result;
        result.label = cells[0].toStdString();
        result.finalTrainLoss = static_cast<float>(parseCell(cells[1], path, r, "final_train_loss", true));
        result.finalTestLoss = static_cast<float>(parseCell(cells[2], path, r, "final_test_loss", true));
        result.finalTestAccuracy = static_cast<float>(parseCell(cells[3], path, r, "final_test_accuracy", true));
        result.steps = static_cast<long>(parseCell(cells[4], path, r, "steps", false));
        result.wallMs = parseCell(cells[5], path, r, "wall_ms", false);
        const std::optional<ParsedStatus> status = parseStatusText(cells[6].toStdString());
        if (!status)
            throw InputError(path.toStdString() + ":" + std::to_string(r + 2) + ": column status: '" +
                             cells[6].toStdString() + "' is not one of " + statusVocabulary());
        result.status = status->status;
        result.divergedAtStep = status->divergedAtStep;
        results.push_back(std::move(result));
    }
    return results;
}

}  // namespace ml
