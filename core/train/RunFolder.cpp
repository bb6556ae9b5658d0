#include "train/RunFolder.h"

#include "InputError.h"
#include "train/WeightsFile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QSaveFile>

#include <cmath>
#include <stdexcept>

namespace ml {

namespace {

QByteArray number(double value, const char* format = "%.9g") {
    if (std::isnan(value)) return {};
    return QString::asprintf(format, value).toLatin1();
}

std::runtime_error writeError(const QString& path, const QString& reason) {
    return std::runtime_error(path.toStdString() + ": cannot write (" + reason.toStdString() + ")");
}

QByteArray jsonBytes(const QJsonObject& json) { return QJsonDocument(json).toJson(QJsonDocument::Indented); }

// The single-run view of an experiment, for a run's own folder.
Experiment singleRun(const Experiment& experiment, const RunSpec& run) {
    Experiment single = experiment;
    single.name = experiment.name + " / " + run.label;
    single.runs = {run};
    single.initWeightsFile = "weights_initial.json";
    return single;
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

void writeFileAtomically(const QString& path, const QByteArray& contents) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) throw writeError(path, file.errorString());
    if (file.write(contents) != contents.size()) throw writeError(path, file.errorString());
    if (!file.commit()) throw writeError(path, file.errorString());
}

RunFolderWriter::RunFolderWriter(const QString& directory, const LockstepTrainer& trainer)
    : directory_(directory), trainer_(trainer) {
    const Experiment& experiment = trainer.experiment();
    Experiment resolved = experiment;
    // Initial weights are saved beside config.json, so the config reproduces the run exactly
    // even when they came from an --init file that later changes.
    resolved.initWeightsFile = trainer.runCount() == 1 ? "weights_initial.json" : experiment.runs.front().label + "/weights_initial.json";
    if (!QDir().mkpath(directory_)) throw writeError(directory_, "cannot create the folder");
    writeFileAtomically(QDir(directory_).filePath("config.json"), jsonBytes(toJson(resolved)));
    const QByteArray initial = weightsToJson(trainer.initialParameters());
    for (int run = 0; run < trainer.runCount(); ++run) {
        const QDir dir(runDirectory(run));
        if (!QDir().mkpath(dir.path())) throw writeError(dir.path(), "cannot create the folder");
        if (trainer.runCount() > 1)
            writeFileAtomically(dir.filePath("config.json"),
                                jsonBytes(toJson(singleRun(experiment, experiment.runs[run]))));
        writeFileAtomically(dir.filePath("weights_initial.json"), initial);
        auto metrics = std::make_unique<QSaveFile>(dir.filePath("metrics.csv"));
        if (!metrics->open(QIODevice::WriteOnly)) throw writeError(metrics->fileName(), metrics->errorString());
        metrics->write(metricsHeader());
        metrics_.push_back(std::move(metrics));
    }
}

RunFolderWriter::~RunFolderWriter() = default;  // uncommitted QSaveFiles discard their temp files

QString runFolderPath(const QString& folder, const std::string& label, std::size_t runCount) {
    return runCount == 1 ? folder : QDir(folder).filePath(QString::fromStdString(label));
}

QString RunFolderWriter::runDirectory(int run) const {
    return runFolderPath(directory_, trainer_.experiment().runs[run].label, trainer_.experiment().runs.size());
}

void RunFolderWriter::stepFinished(const StepMetrics& metrics) { metrics_[metrics.run]->write(metricsRow(metrics)); }

void RunFolderWriter::runFinished(int run, const RunResult&) {
    const QDir dir(runDirectory(run));
    writeFileAtomically(dir.filePath("weights_final.json"), weightsToJson(trainer_.parameters(run)));
    if (!metrics_[run]->commit()) throw writeError(metrics_[run]->fileName(), metrics_[run]->errorString());
}

void RunFolderWriter::finish() {
    if (trainer_.runCount() == 1) return;
    QByteArray summary = summaryHeader();
    for (int run = 0; run < trainer_.runCount(); ++run) summary += summaryRow(trainer_.result(run));
    writeFileAtomically(QDir(directory_).filePath("summary.csv"), summary);
}

// ---- reading ----

namespace {

QList<QByteArray> readCsvLines(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        throw InputError(path.toStdString() + ": cannot open (" + file.errorString().toStdString() + ")");
    QList<QByteArray> lines = file.readAll().split('\n');
    while (!lines.isEmpty() && lines.back().trimmed().isEmpty()) lines.pop_back();
    return lines;
}

double parseCell(const QByteArray& cell, const QString& path, qsizetype line, const char* column, bool optional) {
    if (cell.isEmpty()) {
        if (optional) return NAN;
        throw InputError(path.toStdString() + ":" + std::to_string(line) + ": column " + column + " is empty");
    }
    bool ok = false;
    const double value = cell.toDouble(&ok);
    if (!ok)
        throw InputError(path.toStdString() + ":" + std::to_string(line) + ": column " + column + ": '" +
                         cell.toStdString() + "' is not a number");
    return value;
}

std::vector<StepMetrics> readMetrics(const QString& path, int run) {
    const QList<QByteArray> lines = readCsvLines(path);
    if (lines.isEmpty() || lines.front().trimmed() + '\n' != metricsHeader())
        throw InputError(path.toStdString() + ":1: expected the header " + metricsHeader().trimmed().toStdString());
    static const char* const columns[] = {"step", "epoch", "train_loss", "test_loss", "test_accuracy", "wall_ms"};
    std::vector<StepMetrics> metrics;
    metrics.reserve(lines.size());
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QList<QByteArray> cells = lines[i].trimmed().split(',');
        if (cells.size() != 6)
            throw InputError(path.toStdString() + ":" + std::to_string(i + 1) + ": has " + std::to_string(cells.size()) +
                             " fields; expected 6");
        double values[6];
        for (int c = 0; c < 6; ++c) values[c] = parseCell(cells[c], path, i + 1, columns[c], c >= 2 && c <= 4);
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

RunResult resultFromMetrics(const RunSpec& spec, const std::vector<StepMetrics>& metrics) {
    RunResult result;
    result.label = spec.label;
    result.status = RunStatus::Done;
    if (metrics.empty()) return result;
    result.steps = metrics.back().step;
    result.wallMs = metrics.back().wallMs;
    for (auto it = metrics.rbegin(); it != metrics.rend(); ++it)
        if (it->evaluated()) {
            result.finalTestLoss = it->testLoss;
            result.finalTestAccuracy = it->testAccuracy;
            break;
        }
    result.finalTrainLoss = metrics.back().trainLoss;
    return result;
}

// Fills results from summary.csv (its status column says whether a run diverged).
void readSummary(const QString& path, std::vector<RunRecord>& runs) {
    const QList<QByteArray> lines = readCsvLines(path);
    if (lines.isEmpty() || lines.front().trimmed() + '\n' != summaryHeader())
        throw InputError(path.toStdString() + ":1: expected the header " + summaryHeader().trimmed().toStdString());
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QList<QByteArray> cells = lines[i].trimmed().split(',');
        if (cells.size() != 7)
            throw InputError(path.toStdString() + ":" + std::to_string(i + 1) + ": has " + std::to_string(cells.size()) +
                             " fields; expected 7");
        for (RunRecord& run : runs) {
            if (run.spec.label != cells[0].toStdString()) continue;
            RunResult& r = run.result;
            r.finalTrainLoss = static_cast<float>(parseCell(cells[1], path, i + 1, "final_train_loss", true));
            r.finalTestLoss = static_cast<float>(parseCell(cells[2], path, i + 1, "final_test_loss", true));
            r.finalTestAccuracy = static_cast<float>(parseCell(cells[3], path, i + 1, "final_test_accuracy", true));
            r.steps = static_cast<long>(parseCell(cells[4], path, i + 1, "steps", false));
            r.wallMs = parseCell(cells[5], path, i + 1, "wall_ms", false);
            const QByteArray status = cells[6];
            if (status.startsWith("diverged at step ")) {
                r.status = RunStatus::Diverged;
                r.divergedAtStep = status.mid(17).toLong();
            } else {
                r.status = status == "stopped" ? RunStatus::Stopped : RunStatus::Done;
            }
        }
    }
}

}  // namespace

RunFolder readRunFolder(const QString& directory) {
    RunFolder folder;
    folder.directory = directory;
    const QString configPath = QDir(directory).filePath("config.json");
    if (!QFileInfo::exists(configPath))
        throw InputError(configPath.toStdString() + ": not found; expected a folder written by momentum-lab-cli train --out");
    folder.experiment = loadExperiment(configPath.toStdString());
    const std::size_t runCount = folder.experiment.runs.size();
    for (std::size_t i = 0; i < runCount; ++i) {
        RunRecord record;
        record.spec = folder.experiment.runs[i];
        record.directory = runFolderPath(directory, record.spec.label, runCount);
        record.metrics = readMetrics(QDir(record.directory).filePath("metrics.csv"), static_cast<int>(i));
        record.result = resultFromMetrics(record.spec, record.metrics);
        folder.runs.push_back(std::move(record));
    }
    const QString summaryPath = QDir(directory).filePath("summary.csv");
    if (runCount > 1 && QFileInfo::exists(summaryPath)) readSummary(summaryPath, folder.runs);
    return folder;
}

}  // namespace ml
