#include "train/RunFolderReader.h"

#include "InputError.h"
#include "io/Files.h"
#include "train/ExperimentJson.h"
#include "train/RunCsv.h"
#include "train/RunFolderLayout.h"
#include "train/SnapshotFile.h"
#include "train/WeightsFile.h"

#include <QFileInfo>

namespace ml {

namespace {

// Without summary.csv: a run whose final weights were never written was interrupted (killed).
RunResult resultFromMetrics(const RunSpec& spec, const std::vector<StepMetrics>& metrics, bool finished) {
    RunResult result;
    result.label = spec.label;
    result.status = finished ? RunStatus::Done : RunStatus::Stopped;
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

// Runs `read`; an InputError becomes part of the run's problem instead of ending the whole read.
template <typename Read>
void readPart(RunRecord& record, Read&& read) {
    try {
        read();
    } catch (const InputError& error) {
        record.problem += (record.problem.empty() ? "" : "; ") + std::string(error.what());
    }
}

}  // namespace

std::vector<std::string> RunFolder::problems() const {
    std::vector<std::string> list;
    for (const RunRecord& run : runs)
        if (!run.problem.empty()) list.push_back(run.spec.label + ": " + run.problem);
    return list;
}

RunFolder readRunFolder(const QString& directory) {
    RunFolder folder;
    folder.directory = directory;
    const QString configPath = RunFolderLayout(directory, {}).configFile();  // needs no run labels
    if (!QFileInfo::exists(configPath))
        throw InputError(configPath.toStdString() + ": not found; expected a folder written by momentum-lab-cli train --out");
    folder.experiment = loadExperiment(configPath);
    std::vector<std::string> labels;
    for (const RunSpec& run : folder.experiment.runs) labels.push_back(run.label);
    const RunFolderLayout layout(directory, labels);

    const Network shapes(folder.experiment.network);  // final weights must fit the experiment's network
    for (int i = 0; i < layout.runCount(); ++i) {
        RunRecord record;
        record.spec = folder.experiment.runs[i];
        record.directory = layout.runDirectory(i);
        readPart(record, [&] { record.metrics = parseMetricsCsv(readFileBytes(layout.metricsFile(i)), layout.metricsFile(i), i); });
        const bool finished = QFileInfo::exists(layout.finalWeightsFile(i));
        record.result = resultFromMetrics(record.spec, record.metrics, finished);
        if (finished)
            readPart(record, [&] {
                Parameters weights = loadWeightsFile(layout.finalWeightsFile(i));
                // A file from elsewhere (or edited) must not reach the views, which index by the network.
                shapes.checkShapes(weights, layout.finalWeightsFile(i).toStdString());
                record.finalWeights = std::move(weights);
            });
        if (QFileInfo::exists(layout.snapshotsFile(i)))
            readPart(record, [&] {
                // Only the header here: the records are streamed by whoever shows them.
                const SnapshotFileReader snapshots(layout.snapshotsFile(i), i);
                Parameters shapesOnly;
                for (const auto& [rows, cols] : snapshots.header().layers) shapesOnly.push_back(Matrix(rows, cols));
                shapes.checkShapes(shapesOnly, layout.snapshotsFile(i).toStdString());
                record.snapshotsFile = layout.snapshotsFile(i);
            });
        folder.runs.push_back(std::move(record));
    }
    if (layout.hasSummary() && QFileInfo::exists(layout.summaryFile()))
        for (const RunResult& result : parseSummaryCsv(readFileBytes(layout.summaryFile()), layout.summaryFile()))
            for (RunRecord& run : folder.runs)
                if (run.spec.label == result.label) run.result = result;
    return folder;
}

}  // namespace ml
