#include "runfolder/RunCsv.h"

#include "InputError.h"
#include "io/NumberText.h"
#include "experiment/Experiment.h"

#include <QBuffer>
#include <QFileDevice>
#include <QList>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

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

// "PATH:LINE" and "PATH:LINE: column NAME", built only for a message.
std::string lineWhere(const QString& path, qsizetype line) { return path.toStdString() + ":" + std::to_string(line); }
std::string cellWhere(const QString& path, qsizetype line, const char* column) {
    return lineWhere(path, line) + ": column " + column;
}

// What QByteArray::trimmed() removes.
constexpr std::string_view kBlanks = " \t\n\v\f\r";

// A number in `cell` (QByteArray::toDouble's syntax: blanks around it and a leading '+' allowed,
// "inf" and "nan" too), without allocating: metrics.csv has thousands of rows per run, and the
// study reads every tuning trial's (phase 2's choice) while the other workers wait for it.
std::optional<double> parseNumber(std::string_view cell) {
    cell.remove_prefix(std::min(cell.size(), cell.find_first_not_of(kBlanks)));
    cell.remove_suffix(cell.size() - (cell.find_last_not_of(kBlanks) + 1));               // npos + 1 == 0: all blank
    if (cell.size() > 1 && cell.front() == '+' && cell[1] != '-') cell.remove_prefix(1);  // from_chars takes no '+'
    double value = 0.0;
    const char* const end = cell.data() + cell.size();
    const auto [stop, error] = std::from_chars(cell.data(), end, value);
    if (error != std::errc() || stop != end) return std::nullopt;
    return value;
}

double numberCell(std::string_view cell, const QString& path, qsizetype line, const char* column, bool optional) {
    if (cell.empty()) {
        if (optional) return NAN;
        throw InputError(cellWhere(path, line, column) + " is empty");
    }
    if (const std::optional<double> value = parseNumber(cell)) return *value;
    throw InputError(cellWhere(path, line, column) + ": '" + std::string(cell) + "' is not a number");
}

// A whole number from 0 to `max` (step and epoch columns), checked before the conversion.
long parseCount(std::string_view cell, const QString& path, qsizetype line, const char* column, long max) {
    const double value = numberCell(cell, path, line, column, false);
    if (!(value >= 0 && value <= static_cast<double>(max)) || std::floor(value) != value)
        throw InputError(cellWhere(path, line, column) + ": '" + std::string(cell) +
                         "' is not a whole number from 0 to " + std::to_string(max));
    return static_cast<long>(value);
}

std::string_view view(const QByteArray& bytes) { return {bytes.constData(), static_cast<std::size_t>(bytes.size())}; }

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
            throw InputError(lineWhere(path, record.line) + ": has " + std::to_string(record.fields.size()) +
                             " fields; expected " + std::to_string(columns.size()));
    return records;
}

double csvNumber(const QByteArray& cell, const QString& path, qsizetype line, const char* column, bool optional) {
    return numberCell(view(cell), path, line, column, optional);
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
    const QByteArray headerText = metricsHeader().trimmed();
    const std::string_view header = view(headerText);
    bool headerSeen = false;
    // One line at a time into this buffer, its cells as views into it: no allocation per row.
    char buffer[kMaxMetricsLineBytes + 2];
    for (qsizetype line = 1;; ++line) {
        const qint64 length = in.readLine(buffer, sizeof buffer);
        if (length <= 0) break;
        std::string_view text(buffer, static_cast<std::size_t>(length));
        if (text.back() != '\n') {
            // The metrics log is appended to while training: a last line without its line break was cut off.
            if (in.atEnd()) break;
            throw InputError(lineWhere(path, line) + ": longer than " + std::to_string(kMaxMetricsLineBytes) +
                             " bytes; expected a row of " + std::string(header));
        }
        text.remove_suffix(text.size() > 1 && text[text.size() - 2] == '\r' ? 2 : 1);
        if (text.find_first_not_of(kBlanks) == std::string_view::npos) continue;  // a blank line
        if (!headerSeen) {
            if (text != header)
                throw InputError(lineWhere(path, line) + ": expected the header " + std::string(header));
            headerSeen = true;
            continue;
        }
        const auto fields = static_cast<std::size_t>(std::count(text.begin(), text.end(), ',')) + 1;
        if (fields != 6)
            throw InputError(lineWhere(path, line) + ": has " + std::to_string(fields) + " fields; expected 6");
        std::string_view cells[6];
        for (std::size_t c = 0, start = 0; c < 6; ++c) {
            const std::size_t comma = text.find(',', start);  // npos for the last cell
            cells[c] = text.substr(start, comma - start);
            start = comma + 1;
        }
        double values[6];
        for (int c = 2; c < 6; ++c) values[c] = numberCell(cells[c], path, line, columns[c], c <= 4);
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
        throw InputError(path.toStdString() + ": cannot read (" + device->errorString().toStdString() + ")");
    if (!headerSeen) throw InputError(path.toStdString() + ":1: expected the header " + std::string(header));
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
        result.steps = parseCount(view(cells[4]), path, r, "steps", kMaxCount);
        result.wallMs = csvNumber(cells[5], path, r, "wall_ms", false);
        const std::optional<ParsedStatus> status = parseStatusText(cells[6].toStdString());
        if (!status)
            throw InputError(cellWhere(path, r, "status") + ": '" + cells[6].toStdString() + "' is not one of " +
                             statusVocabulary());
        result.status = status->status;
        result.divergedAtStep = status->divergedAtStep;
        results.push_back(std::move(result));
    }
    return results;
}

}  // namespace ml
