#include "model/RunComparison.h"

#include "train/RunCsv.h"
#include "train/RunFolderLayout.h"
#include "train/TrainingPlan.h"

namespace ml {

namespace {

std::vector<std::string> optimizersOf(const Experiment& experiment) {
    std::vector<std::string> names;
    for (const RunSpec& run : experiment.runs) names.push_back(run.optimizer);
    return names;
}

// "Steps to threshold" in the metric that fits the loss.
RunSummaryModel::Criterion criterionFor(const Experiment& experiment) {
    return experiment.network.loss == LossKind::CrossEntropy ? RunSummaryModel::Criterion::TestAccuracyAtLeast
                                                             : RunSummaryModel::Criterion::TrainLossAtMost;
}

}  // namespace

RunComparison::RunComparison(QObject* parent, int historyCapacity)
    : QObject(parent), history_(historyCapacity), summary_(this) {}

void RunComparison::begin(const Experiment& experiment, const TrainingPlan& plan) {
    experiment_ = experiment;
    source_.clear();
    history_.reset(plan.labels, plan.stepsPerEpoch);
    summary_.reset(plan.labels, optimizersOf(experiment), criterionFor(experiment));
    Q_EMIT changed();
}

void RunComparison::renameExperiment(const std::string& name) {
    experiment_.name = name;
    Q_EMIT changed();
}

void RunComparison::addMetrics(const std::vector<StepMetrics>& metrics) {
    history_.append(metrics);
    summary_.addMetrics(metrics);
    Q_EMIT changed();
}

void RunComparison::finishRun(int run, const RunResult& result) {
    summary_.finishRun(run, result);
    Q_EMIT changed();
}

void RunComparison::showFolder(const RunFolder& folder) {
    experiment_ = folder.experiment;
    source_ = folder.directory;
    std::vector<std::string> labels;
    std::vector<std::string> optimizers;
    for (const RunRecord& run : folder.runs) {
        labels.push_back(run.spec.label);
        optimizers.push_back(run.spec.optimizer);
    }
    history_.reset(labels, folder.runs.empty() ? 0 : folder.runs.front().metrics.stepsPerEpoch());
    summary_.reset(labels, optimizers, criterionFor(folder.experiment));
    // Each track arrives decimated already (the same policy and budget as the history's), so the
    // history keeps every point it is given and the plot shows what the live run showed.
    for (std::size_t i = 0; i < folder.runs.size(); ++i) {
        const int run = static_cast<int>(i);
        for (StepMetrics m : folder.runs[i].metrics.rows()) {
            m.run = run;
            history_.appendTrain(m);
        }
        for (StepMetrics m : folder.runs[i].metrics.evaluations()) {
            m.run = run;
            history_.appendEvaluation(m);
        }
        // The last row gives the table its last batch loss (shown when no evaluation gave a train loss).
        if (std::optional<StepMetrics> last = folder.runs[i].metrics.last()) {
            last->run = run;
            summary_.addMetrics({*last});
        }
        summary_.finishRun(run, folder.runs[i].result);
    }
    summary_.setThreshold(summary_.threshold(), history_);  // steps to threshold, from the tracks
    Q_EMIT changed();
}

void RunComparison::clear() {
    source_.clear();
    history_.reset({}, 0);
    summary_.reset({}, {});
    Q_EMIT changed();
}

void RunComparison::setThreshold(double threshold) {
    summary_.setThreshold(threshold, history_);
    Q_EMIT changed();
}

QByteArray RunComparison::metricsCsv(int run) const {
    QByteArray csv = metricsHeader();
    for (const StepMetrics& row : history_.rows(run)) csv += metricsRow(row);
    return csv;
}

QString RunComparison::metricsCsvFileName(int run) const {
    return runFileName(history_.label(run)) + QStringLiteral(".csv");
}

QByteArray RunComparison::summaryCsv() const {
    QByteArray csv = summaryHeader();
    for (int run = 0; run < summary_.rowCount(); ++run) csv += summaryRow(summary_.result(run));
    return csv;
}

}  // namespace ml
