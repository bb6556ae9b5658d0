#pragma once
// The two CSV formats of a run folder, written and parsed here (the writer, the reader and the
// GUI's CSV export share them):
//   metrics.csv: step,epoch,train_loss,test_loss,test_accuracy,wall_ms
//                (test columns empty where not evaluated)
//   summary.csv: optimizer,final_train_loss,final_test_loss,final_test_accuracy,steps,wall_ms,status
//                (status in the words of train/RunStatus.h)
// It lives in train/, beside the types it formats; core/io knows no other folder, so that the data
// loaders, below train/, can use it too.
#include "train/Snapshot.h"

#include <QByteArray>
#include <QIODevice>
#include <QList>
#include <QString>

#include <functional>
#include <vector>

namespace ml {

// RFC 4180 quoting: a field holding a comma, a quote or a line break is quoted, its quotes doubled.
QByteArray csvField(const std::string& text);

QByteArray metricsHeader();
// Appends one row to `out` (no allocation when its capacity suffices: the run folder's log reuses
// one buffer); metricsRow() is the same row on its own.
void appendMetricsRow(QByteArray& out, const StepMetrics& metrics);
QByteArray metricsRow(const StepMetrics& metrics);
QByteArray summaryHeader();
QByteArray summaryRow(const RunResult& result);

// Longest metrics.csv line accepted (a row is under 100 bytes): a file of other content is refused
// at its first long line instead of being read into memory.
inline constexpr qsizetype kMaxMetricsLineBytes = 4096;
// Streams metrics.csv from `in`, one line at a time, handing each row to `row`; errors (InputError)
// name `path`, the line and the column. A last line without its line break was cut off by a kill
// and is ignored.
void readMetricsCsv(QIODevice& in, const QString& path, int run, const std::function<void(const StepMetrics&)>& row);
// The same over a whole file's contents, every row kept.
std::vector<StepMetrics> parseMetricsCsv(const QByteArray& csv, const QString& path, int run);
// One result per line, with its label.
std::vector<RunResult> parseSummaryCsv(const QByteArray& csv, const QString& path);

// The RFC 4180 reader under both (also for the study's results files, whose labels may be quoted):
// the data records of a CSV whose first line must be `header`, each with `header`'s columns. Blank
// lines are skipped; a quoted field may span lines. InputError "PATH:LINE: ..." otherwise.
struct CsvRecord {
    qsizetype line;  // 1-based line where the record starts
    QList<QByteArray> fields;
};
std::vector<CsvRecord> csvRecords(const QByteArray& csv, const QByteArray& header, const QString& path);
// A number cell ("inf" too); an empty one is NaN when `optional`, else an InputError naming the column.
double csvNumber(const QByteArray& cell, const QString& path, qsizetype line, const char* column, bool optional);

}  // namespace ml
