#include "model/RunComparison.h"

#include "optim/OptimizerCatalog.h"

#include "runfolder/RunCsv.h"
#include "runfolder/RunFolderLayout.h"
#include "train/TrainingPlan.h"

#include <algorithm>

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
    optimizers_ = optimizersOf(experiment);
    ownRuns_ = static_cast<int>(plan.labels.size());
    summary_.reset(plan.labels, optimizers_, criterionFor(experiment));
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
    optimizers_ = optimizers;
    ownRuns_ = static_cast<int>(labels.size());
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

ComparisonRecord RunComparison::record() const {
    ComparisonRecord record;
    record.experiment = experiment_;
    record.source = source_;
    record.stepsPerEpoch = history_.stepsPerEpoch();
    for (int run = 0; run < std::min(ownRuns_, history_.runCount()); ++run) {
        record.labels.push_back(history_.label(run));
        record.optimizers.push_back(
            run < static_cast<int>(optimizers_.size()) ? optimizers_[static_cast<std::size_t>(run)] : std::string());
        record.metrics.push_back(history_.rows(run));
        record.results.push_back(summary_.result(run));
        record.colorSlots.push_back(history_.look(run).slot);
    }
    return record;
}

void RunComparison::show(const ComparisonRecord& record) {
    experiment_ = record.experiment;
    source_ = record.source;
    history_.reset(record.labels, record.stepsPerEpoch);
    optimizers_ = record.optimizers;
    ownRuns_ = record.runCount();
    summary_.reset(record.labels, record.optimizers, criterionFor(record.experiment));
    for (int run = 0; run < record.runCount(); ++run) {
        history_.append(record.metrics[static_cast<std::size_t>(run)]);
        summary_.addMetrics(record.metrics[static_cast<std::size_t>(run)]);
        summary_.finishRun(run, record.results[static_cast<std::size_t>(run)]);
    }
    setLooks(record.looks(false));
    Q_EMIT changed();
}

void RunComparison::setLooks(std::vector<RunLook> looks) {
    history_.setLooks(looks);
    summary_.setLooks(std::move(looks));
}

void RunComparison::overlay(const ComparisonRecord& record) {
    // Rebuilt from the kept rows: the runs on screen first (their indices stay), then the record's.
    std::vector<std::string> labels = history_.labels();
    std::vector<RunLook> looks = history_.looks();  // each overlaid run keeps its own colour, lighter
    for (const RunLook& look : record.looks(true)) looks.push_back(look);
    std::vector<std::vector<StepMetrics>> rows;
    std::vector<RunResult> results;
    for (int run = 0; run < history_.runCount(); ++run)
        rows.push_back(history_.rows(run)), results.push_back(summary_.result(run));
    const int first = static_cast<int>(labels.size());
    for (int run = 0; run < record.runCount(); ++run) {
        labels.push_back(record.runLabel(run).toStdString());
        optimizers_.push_back(record.optimizers[static_cast<std::size_t>(run)]);
        std::vector<StepMetrics> metrics = record.metrics[static_cast<std::size_t>(run)];
        for (StepMetrics& m : metrics) m.run = first + run;
        rows.push_back(std::move(metrics));
        RunResult result = record.results[static_cast<std::size_t>(run)];
        result.label = labels.back();
        results.push_back(result);
    }
    optimizers_.resize(labels.size());
    history_.reset(labels, history_.stepsPerEpoch() > 0 ? history_.stepsPerEpoch() : record.stepsPerEpoch);
    summary_.reset(labels, optimizers_, summary_.criterion());
    for (std::size_t run = 0; run < rows.size(); ++run) {
        history_.append(rows[run]);
        summary_.addMetrics(rows[run]);
        if (results[run].status != RunStatus::Pending && results[run].status != RunStatus::Running)
            summary_.finishRun(static_cast<int>(run), results[run]);
    }
    setLooks(std::move(looks));
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
            if (key == "lr" || value != field->get(info.defaults)) parts << QString::fromStdString(key + " " + value);
        }
        details << parts.join(", ");
    }
    return details;
}

void RunComparison::clear() {
    ownRuns_ = 0;
    optimizers_.clear();
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
