#include "model/RunComparison.h"

#include "optim/OptimizerCatalog.h"

#include "train/RunCsv.h"
#include "train/RunFolderLayout.h"
#include "train/TrainingPlan.h"

#include <algorithm>

namespace ml {

namespace {

std::vector<std::string> optimizersOf(const Experiment& experiment) {
    std::vector<std::string> names;
    for (const RunSpec& run : experiment.runs) names.push_back(run.optimizer);
    return names;
}

// Steps per epoch of a folder's runs: the number of rows of epoch 1 when a second epoch exists.
long stepsPerEpochOf(const RunFolder& folder) {
    if (folder.runs.empty()) return 0;
    const std::vector<StepMetrics>& metrics = folder.runs.front().metrics;
    const auto second = std::find_if(metrics.begin(), metrics.end(), [](const StepMetrics& m) { return m.epoch >= 2; });
    if (second == metrics.end()) return 0;
    return second->step - 1;
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
    history_.reset(labels, stepsPerEpochOf(folder));
    summary_.reset(labels, optimizers, criterionFor(folder.experiment));
    for (std::size_t i = 0; i < folder.runs.size(); ++i) {
        std::vector<StepMetrics> metrics = folder.runs[i].metrics;
        for (StepMetrics& m : metrics) m.run = static_cast<int>(i);
        addMetrics(metrics);
        summary_.finishRun(static_cast<int>(i), folder.runs[i].result);
    }
    Q_EMIT changed();
}

QStringList RunComparison::runDetails() const {
    QStringList details;
    for (const RunSpec& run : experiment_.runs) {
        const OptimizerInfo& info = optimizerInfo(run.optimizer);
        QStringList parts;
        for (const std::string& key : info.parameters) {
            const ParameterField* field = findParameterField(key);
            const std::string value = field->get(run.hp);
            if (key == "lr" || value != field->get(info.defaults))
                parts << QString::fromStdString(key + " " + value);
        }
        details << parts.join(", ");
    }
    return details;
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
