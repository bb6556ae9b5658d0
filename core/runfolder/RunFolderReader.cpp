#include "runfolder/RunFolderReader.h"

#include "InputError.h"
#include "io/Files.h"
#include "experiment/ExperimentJson.h"
#include "runfolder/RunCsv.h"
#include "runfolder/RunFolderLayout.h"
#include "runfolder/SnapshotFile.h"
#include "runfolder/WeightsFile.h"

#include <QFile>
#include <QFileInfo>

#include <cmath>

namespace ml {

namespace {

// Without summary.csv: a run whose final weights were never written was interrupted (killed); a
// last batch loss that is not finite is divergence at that step (the trainer stops there).
RunResult resultFromMetrics(const RunSpec& spec, const MetricsDigest& metrics, bool finished) {
    RunResult result;
    result.label = spec.label;
    result.status = finished ? RunStatus::Done : RunStatus::Stopped;
    if (!metrics.last()) return result;
    const StepMetrics& last = *metrics.last();
    result.steps = last.step;
    result.wallMs = last.wallMs;
    if (metrics.lastEvaluation()) {
        result.finalTestLoss = metrics.lastEvaluation()->testLoss;
        result.finalTestAccuracy = metrics.lastEvaluation()->testAccuracy;
    }
    result.finalTrainLoss = last.trainLoss;
    if (!std::isfinite(last.trainLoss)) {
        result.status = RunStatus::Diverged;
        result.divergedAtStep = last.step;
        result.steps = last.step - 1;
    }
    return result;
}

// Runs `read`; an InputError becomes part of the run's problem instead of ending the whole read.
template <typename Read>
void readPart(RunRecord& record, Read&& read) {
    try {
        read();
    } catch (const InputError& error) {
        record.problem += (record.problem.empty() ? "" : "; ") + std::string(error.what());
    }
}

// Each result of a summary.csv replaces the derived one of the run with its label.
void takeResults(RunFolder& folder, const QString& summaryFile) {
    for (const RunResult& result : parseSummaryCsv(readFileBytes(summaryFile), summaryFile))
        for (RunRecord& run : folder.runs)
            if (run.spec.label == result.label) run.result = result;
}

// A run reads as done only when its summary and its files agree: the final weights were read and
// the metrics end at the step the summary names. Otherwise (a summary.csv left from another run,
// a lost or damaged weights file) it is a stopped run, and the reason is its problem.
void distrustUnbackedDone(RunRecord& run) {
    if (run.result.status != RunStatus::Done) return;
    std::string disagreement;
    if (run.finalWeights.empty())
        disagreement = "summary.csv says done, but the final weights (" + std::string(runfolder::kFinalWeights) +
                       ") were not read";
    else if (run.metrics.last() && run.metrics.last()->step != run.result.steps)
        disagreement = "summary.csv says done after " + std::to_string(run.result.steps) + " steps, but " +
                       runfolder::kMetrics + " ends at step " + std::to_string(run.metrics.last()->step);
    if (disagreement.empty()) return;
    run.result.status = RunStatus::Stopped;
    run.problem += (run.problem.empty() ? "" : "; ") + disagreement + "; read as stopped";
}

}  // namespace

std::vector<std::string> RunFolder::problems() const {
    std::vector<std::string> list;
    for (const RunRecord& run : runs)
        if (!run.problem.empty()) list.push_back(run.spec.label + ": " + run.problem);
    return list;
}

void readMetricsFile(const QString& path, int run, MetricsDigest& digest) {
    QFile file(path);
    openForReading(file);
    readMetricsCsv(file, path, run, [&](const StepMetrics& row) { digest.add(row); });
}

RunFolder readRunFolder(const QString& directory, int pointBudget) {
    RunFolder folder;
    folder.directory = directory;
    const QString configPath = RunFolderLayout(directory, {}).configFile();  // needs no run labels
    if (!QFileInfo::exists(configPath))
        throw InputError(configPath.toStdString() +
                         ": not found; expected a folder written by momentum-lab-cli train --out");
    folder.experiment = loadExperiment(configPath);
    std::vector<std::string> labels;
    for (const RunSpec& run : folder.experiment.runs) labels.push_back(run.label);
    const RunFolderLayout layout(directory, labels);

    for (int i = 0; i < layout.runCount(); ++i) {
        RunRecord record;
        record.spec = folder.experiment.runs[i];
        record.directory = layout.runDirectory(i);
        record.metrics = MetricsDigest(pointBudget);
        readPart(record, [&] { readMetricsFile(layout.metricsFile(i), i, record.metrics); });
        const bool finished = QFileInfo::exists(layout.finalWeightsFile(i));
        record.result = resultFromMetrics(record.spec, record.metrics, finished);
        if (finished)
            readPart(record, [&] {
                Parameters weights = loadWeightsFile(layout.finalWeightsFile(i), folder.experiment);
                // A file from elsewhere (or edited) must not reach the views, which index by the layers.
                checkLayerShapes(folder.experiment, weights, layout.finalWeightsFile(i).toStdString());
                record.finalWeights = std::move(weights);
            });
        if (QFileInfo::exists(layout.snapshotsFile(i)))
            readPart(record, [&] {
                // Only the header here: the records are streamed by whoever shows them.
                const SnapshotFileReader snapshots(layout.snapshotsFile(i), i);
                Parameters shapesOnly;
                for (const auto& [rows, cols] : snapshots.header().layers) shapesOnly.push_back(Matrix(rows, cols));
                checkLayerShapes(folder.experiment, shapesOnly, layout.snapshotsFile(i).toStdString());
                record.snapshotsFile = layout.snapshotsFile(i);
            });
        folder.runs.push_back(std::move(record));
    }
    // The runs' own summaries, then the folder's (several runs) where it exists.
    for (int i = 0; i < layout.runCount(); ++i)
        if (QFileInfo::exists(layout.runSummaryFile(i)))
            readPart(folder.runs[i], [&] { takeResults(folder, layout.runSummaryFile(i)); });
    if (layout.hasSummary() && QFileInfo::exists(layout.summaryFile())) takeResults(folder, layout.summaryFile());
    for (RunRecord& run : folder.runs) distrustUnbackedDone(run);
    return folder;
}

}  // namespace ml
