#include "train/RunCsv.h"

#include "InputError.h"
#include "io/NumberText.h"
#include "train/Experiment.h"

#include <QBuffer>
#include <QFileDevice>
#include <QList>

#include <cmath>
#include <limits>

namespace ml {

namespace {

// A float cell: the shortest text that reads back as the same float; empty for NaN (not measured).
void appendCell(QByteArray& out, float value) {
    if (!std::isnan(value)) appendShortest(out, value);
}

// Milliseconds to the microsecond.
void appendMilliseconds(QByteArray& out, double ms) { appendFixed(out, ms, 3); }

QList<QByteArray> splitFields(const QByteArray& record) {
    if (!record.contains('"')) return record.split(',');
    QList<QByteArray> fields(1);
    bool quoted = false;
    for (qsizetype i = 0; i < record.size(); ++i) {
        const char c = record[i];
        if (c == '"' && quoted && i + 1 < record.size() && record[i + 1] == '"') {
            fields.back() += '"';
            ++i;
        } else if (c == '"') {
            quoted = !quoted;
        } else if (c == ',' && !quoted) {
            fields.append(QByteArray());
        } else {
            fields.back() += c;
        }
    }
    return fields;
}

// A whole number from 0 to `max` (step and epoch columns), checked before the conversion.
long parseCount(const QByteArray& cell, const QString& path, qsizetype line, const char* column, long max) {
    const double value = csvNumber(cell, path, line, column, false);
    if (!(value >= 0 && value <= static_cast<double>(max)) || std::floor(value) != value)
        throw InputError(path.toStdString() + ":" + std::to_string(line) + ": column " + column + ": '" +
                         cell.toStdString() + "' is not a whole number from 0 to " + std::to_string(max));
    return static_cast<long>(value);
}

}  // namespace

QByteArray csvField(const std::string& text) {
    QByteArray field = QByteArray::fromStdString(text);
    if (!field.contains(',') && !field.contains('"') && !field.contains('\n') && !field.contains('\r')) return field;
    return '"' + field.replace('"', "\"\"") + '"';
}

std::vector<CsvRecord> csvRecords(const QByteArray& csv, const QByteArray& header, const QString& path) {
    QList<QByteArray> lines = csv.split('\n');
    if (lines.back().isEmpty()) lines.pop_back();
    std::vector<CsvRecord> records;
    QByteArray pending;  // a record whose quoted field continues on the next line
    qsizetype start = 0;
    for (qsizetype i = 0; i < lines.size(); ++i) {
        QByteArray& line = lines[i];
        if (line.endsWith('\r')) line.chop(1);
        if (pending.isNull()) start = i + 1;
        pending = pending.isNull() ? line : pending + '\n' + line;
        if (pending.count('"') % 2 != 0) continue;
        if (!pending.trimmed().isEmpty()) records.push_back({start, splitFields(pending)});
        pending = QByteArray();
    }
    if (!pending.isNull()) records.push_back({start, splitFields(pending)});
    const QList<QByteArray> columns = header.trimmed().split(',');
    if (records.empty() || records.front().fields != columns)
        throw InputError(path.toStdString() + ":1: expected the header " + header.trimmed().toStdString());
    records.erase(records.begin());
    for (const CsvRecord& record : records)
        if (record.fields.size() != columns.size())
            throw InputError(path.toStdString() + ":" + std::to_string(record.line) + ": has " +
                             std::to_string(record.fields.size()) + " fields; expected " + std::to_string(columns.size()));
    return records;
}

double csvNumber(const QByteArray& cell, const QString& path, qsizetype line, const char* column, bool optional) {
    const std::string where = path.toStdString() + ":" + std::to_string(line) + ": column " + column;
    if (cell.isEmpty()) {
        if (optional) return NAN;
        throw InputError(where + " is empty");
    }
    bool ok = false;
    const double value = cell.toDouble(&ok);
    if (!ok) throw InputError(where + ": '" + cell.toStdString() + "' is not a number");
    return value;
}

QByteArray metricsHeader() { return "step,epoch,train_loss,test_loss,test_accuracy,wall_ms\n"; }

void appendMetricsRow(QByteArray& out, const StepMetrics& m) {
    // Built on the stack and appended once: one capacity check per row instead of one per field.
    char row[6 * kNumberTextBytes];
    char* const last = row + sizeof row;
    char* end = writeInteger(row, last, m.step);
    *end++ = ',';
    end = writeInteger(end, last, m.epoch);
    for (const float cell : {m.trainLoss, m.testLoss, m.testAccuracy}) {
        *end++ = ',';
        if (!std::isnan(cell)) end = writeShortest(end, last, cell);  // empty: not measured
    }
    *end++ = ',';
    end = writeFixed(end, last, m.wallMs, 3);
    *end++ = '\n';
    out.append(row, end - row);
}

QByteArray metricsRow(const StepMetrics& m) {
    QByteArray row;
    appendMetricsRow(row, m);
    return row;
}

QByteArray summaryHeader() {
    return "optimizer,final_train_loss,final_test_loss,final_test_accuracy,steps,wall_ms,status\n";
}

QByteArray summaryRow(const RunResult& r) {
    QByteArray row = csvField(r.label);
    row.append(',');
    appendCell(row, r.finalTrainLoss);
    row.append(',');
    appendCell(row, r.finalTestLoss);
    row.append(',');
    appendCell(row, r.finalTestAccuracy);
    row.append(',');
    appendInteger(row, r.steps);
    row.append(',');
    appendMilliseconds(row, r.wallMs);
    row.append(',');
    row.append(QByteArray::fromStdString(r.statusText()));
    row.append('\n');
    return row;
}

void readMetricsCsv(QIODevice& in, const QString& path, int run, const std::function<void(const StepMetrics&)>& row) {
    static const char* const columns[] = {"step", "epoch", "train_loss", "test_loss", "test_accuracy", "wall_ms"};
    const QByteArray header = metricsHeader().trimmed();
    const std::string file = path.toStdString();
    bool headerSeen = false;
    for (qsizetype line = 1;; ++line) {
        QByteArray text = in.readLine(kMaxMetricsLineBytes + 1);
        if (text.isEmpty()) break;
        if (!text.endsWith('\n')) {
            // The metrics log is appended to while training: a last line without its line break was cut off.
            if (in.atEnd()) break;
            throw InputError(file + ":" + std::to_string(line) + ": longer than " + std::to_string(kMaxMetricsLineBytes) +
                             " bytes; expected a row of " + header.toStdString());
        }
        text.chop(text.endsWith("\r\n") ? 2 : 1);
        if (text.trimmed().isEmpty()) continue;
        if (!headerSeen) {
            if (text != header) throw InputError(file + ":" + std::to_string(line) + ": expected the header " + header.toStdString());
            headerSeen = true;
            continue;
        }
        const QList<QByteArray> cells = text.split(',');
        if (cells.size() != 6)
            throw InputError(file + ":" + std::to_string(line) + ": has " + std::to_string(cells.size()) + " fields; expected 6");
        double values[6];
        for (int c = 2; c < 6; ++c) values[c] = csvNumber(cells[c], path, line, columns[c], c <= 4);
        StepMetrics m;
        m.run = run;
        m.step = parseCount(cells[0], path, line, columns[0], kMaxCount);
        m.epoch = static_cast<int>(parseCount(cells[1], path, line, columns[1], std::numeric_limits<int>::max()));
        m.trainLoss = static_cast<float>(values[2]);
        m.testLoss = static_cast<float>(values[3]);
        m.testAccuracy = static_cast<float>(values[4]);
        m.wallMs = values[5];
        row(m);
    }
    if (const auto* device = qobject_cast<const QFileDevice*>(&in); device && device->error() != QFileDevice::NoError)
        throw InputError(file + ": cannot read (" + device->errorString().toStdString() + ")");
    if (!headerSeen) throw InputError(file + ":1: expected the header " + header.toStdString());
}

std::vector<StepMetrics> parseMetricsCsv(const QByteArray& csv, const QString& path, int run) {
    QBuffer buffer;
    buffer.setData(csv);
    buffer.open(QIODevice::ReadOnly);
    std::vector<StepMetrics> metrics;
    readMetricsCsv(buffer, path, run, [&](const StepMetrics& m) { metrics.push_back(m); });
    return metrics;
}

std::vector<RunResult> parseSummaryCsv(const QByteArray& csv, const QString& path) {
    const std::vector<CsvRecord> rows = csvRecords(csv, summaryHeader(), path);
    std::vector<RunResult> results;
    for (const CsvRecord& row : rows) {
        const QList<QByteArray>& cells = row.fields;
        const qsizetype r = row.line;
        RunResult result;
        result.label = cells[0].toStdString();
        result.finalTrainLoss = static_cast<float>(csvNumber(cells[1], path, r, "final_train_loss", true));
        result.finalTestLoss = static_cast<float>(csvNumber(cells[2], path, r, "final_test_loss", true));
        result.finalTestAccuracy = static_cast<float>(csvNumber(cells[3], path, r, "final_test_accuracy", true));
        result.steps = parseCount(cells[4], path, r, "steps", kMaxCount);
        result.wallMs = csvNumber(cells[5], path, r, "wall_ms", false);
        const std::optional<ParsedStatus> status = parseStatusText(cells[6].toStdString());
        if (!status)
            throw InputError(path.toStdString() + ":" + std::to_string(r) + ": column status: '" +
                             cells[6].toStdString() + "' is not one of " + statusVocabulary());
        result.status = status->status;
        result.divergedAtStep = status->divergedAtStep;
        results.push_back(std::move(result));
    }
    return results;
}

}  // namespace ml
