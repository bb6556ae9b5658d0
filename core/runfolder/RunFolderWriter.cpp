#include "runfolder/RunFolderWriter.h"

#include "io/FileError.h"
#include "io/Files.h"
#include "experiment/ExperimentJson.h"
#include "runfolder/RunCsv.h"
#include "runfolder/RunFolderReuse.h"
#include "runfolder/WeightsFile.h"

#include <QDir>
#include <QJsonDocument>

namespace ml {

namespace {

QByteArray jsonBytes(const QJsonObject& json) { return QJsonDocument(json).toJson(QJsonDocument::Indented); }

std::vector<std::string> labelsOf(const Experiment& experiment) {
    std::vector<std::string> labels;
    for (const RunSpec& run : experiment.runs) labels.push_back(run.label);
    return labels;
}

// The single-run view of an experiment, for a run's own folder.
Experiment singleRun(const Experiment& experiment, const RunSpec& run) {
    Experiment single = experiment;
    single.name = experiment.name + " / " + run.label;
    single.runs = {run};
    single.initWeightsFile = runfolder::kInitialWeights;
    return single;
}

// The first run that starts from the experiment's own weights (a rule may constrain them: nero's
// projected rows); its weights_initial.json is what config.json re-starts every run from. When every
// run's rule constrains them, the first run's (constraining them again changes nothing).
int runWithSharedStart(const LockstepTrainer& trainer) {
    const Parameters& shared = trainer.initialParameters();
    for (int run = 0; run < trainer.runCount(); ++run) {
        const Parameters& start = trainer.initialParameters(run);
        bool same = true;
        for (std::size_t l = 0; l < shared.size(); ++l) same = same && start[l] == shared[l];
        if (same) return run;
    }
    return 0;
}

void makeFolder(const QString& path) {
    if (!QDir().mkpath(path)) throw FileError(path, "cannot create the folder");
}

}  // namespace

RunFolderWriter::RunFolderWriter(const QString& directory, const LockstepTrainer& trainer, DurableBatch* batch)
    : layout_(directory, labelsOf(trainer.experiment())), trainer_(trainer), batch_(batch) {
    const Experiment& experiment = trainer.experiment();
    Experiment resolved = experiment;
    // Initial weights are saved beside config.json, so the config reproduces the run exactly
    // even when they came from an --init file that later changes.
    resolved.initWeightsFile = layout_.initialWeightsRelative(runWithSharedStart(trainer));
    const std::vector<std::string> earlier = earlierRunLabels(layout_.root());
    makeFolder(layout_.root());
    writeFile(layout_.configFile(),
              jsonBytes(toJson(resolved)));     // a full disk fails here: the earlier run stays whole
    clearEarlierRuns(layout_.root(), earlier);  // from here on, nothing of it passes for this run's
    // Each run's own start, what its training began from (runs with the same start share one object).
    const Parameters* written = nullptr;
    QByteArray initial;
    for (int run = 0; run < layout_.runCount(); ++run) {
        makeFolder(layout_.runDirectory(run));
        if (layout_.runCount() > 1)
            writeFile(layout_.runConfigFile(run), jsonBytes(toJson(singleRun(experiment, experiment.runs[run]))));
        if (&trainer.initialParameters(run) != written) {
            written = &trainer.initialParameters(run);
            initial = weightsToJson(*written, experiment.network);
        }
        writeFile(layout_.initialWeightsFile(run), initial);
        metrics_.push_back(std::make_unique<MetricsLog>(layout_.metricsFile(run)));
    }
}

RunFolderWriter::~RunFolderWriter() = default;

void RunFolderWriter::stepFinished(const StepMetrics& metrics) { metrics_[metrics.run]->append(metrics); }

void RunFolderWriter::writeFile(const QString& path, QByteArrayView contents) {
    if (batch_) batch_->write(path, contents);
    else writeFileAtomically(path, contents);
}

void RunFolderWriter::runFinished(int run, const RunResult& result) {
    if (batch_) {
        metrics_[run]->closeUnsynced();
        batch_->syncOnCommit(layout_.metricsFile(run));
    } else {
        metrics_[run]->close();
    }
    writeFile(layout_.finalWeightsFile(run), weightsToJson(trainer_.parameters(run), trainer_.experiment().network));
    // The run's status ("stopped", "diverged at step N") survives only here: its files look like a finished run's.
    writeFile(layout_.runSummaryFile(run), summaryHeader() + summaryRow(result));
}

void RunFolderWriter::finish() {
    if (!layout_.hasSummary()) return;
    QByteArray summary = summaryHeader();
    for (int run = 0; run < trainer_.runCount(); ++run) summary += summaryRow(trainer_.result(run));
    writeFile(layout_.summaryFile(), summary);
}

}  // namespace ml
