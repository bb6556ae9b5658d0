#include "study/TrialOutcome.h"

#include "InputError.h"
#include "io/Files.h"
#include "io/JsonFile.h"
#include "stats/TimeToTarget.h"
#include "train/ExperimentJson.h"
#include "train/RunCsv.h"
#include "train/RunFolderLayout.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>
#include <limits>

namespace ml {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

const char* phaseName(StudyPhase phase) { return phase == StudyPhase::Tuning ? "tuning" : "final"; }

}  // namespace

void writeTrialMarker(const StudyLayout& layout, int index, const stats::TrialPoint& point, const std::string& status) {
    const StudyPlan& plan = layout.plan();
    const StudyTrial& trial = plan.trial(index);
    const StudyOptimizer& optimizer = plan.study().optimizers[trial.optimizer];
    QJsonObject values;
    for (std::size_t d = 0; d < point.size(); ++d) values[QString::fromStdString(optimizer.space[d].key)] = point[d];
    QJsonObject marker;
    marker["trial"] = index;
    marker["phase"] = phaseName(trial.phase);
    marker["task"] = QString::fromStdString(plan.study().tasks[trial.task].name);
    marker["optimizer"] = QString::fromStdString(optimizer.label);
    marker["number"] = trial.number;
    marker["seed"] = seedToJson(trial.seed);
    marker["point"] = values;
    marker["status"] = QString::fromStdString(status);
    writeFileAtomically(layout.trialMarker(index), QJsonDocument(marker).toJson(QJsonDocument::Indented));
}

std::optional<TrialOutcome> readTrialOutcome(const StudyLayout& layout, int index) {
    const QString markerPath = layout.trialMarker(index);
    if (!QFileInfo::exists(markerPath)) return std::nullopt;
    const QJsonObject marker = readJsonObject(markerPath);
    const StudyPlan& plan = layout.plan();
    const StudyOptimizer& optimizer = plan.study().optimizers[plan.trial(index).optimizer];
    if (marker.value("trial").toInt(-1) != index)
        throw InputError(markerPath.toStdString() + ": trial: expected " + std::to_string(index) +
                         "; the folder belongs to another study (use a new --out)");
    TrialOutcome outcome;
    outcome.trial = index;
    outcome.status = marker.value("status").toString().toStdString();
    const QJsonObject point = marker.value("point").toObject();
    for (const stats::SearchDimension& dimension : optimizer.space) {
        const QJsonValue value = point.value(QString::fromStdString(dimension.key));
        if (value.isUndefined()) break;  // trial 0: the defaults, no values
        if (!value.isDouble()) throw InputError(markerPath.toStdString() + ": point." + dimension.key + ": expected a number");
        outcome.point.push_back(value.toDouble());
    }
    const QString metrics = QDir(layout.trialDirectory(index)).filePath(runfolder::kMetrics);
    outcome.metrics = parseMetricsCsv(readFileBytes(metrics), metrics, 0);
    return outcome;
}

double finalEvaluatedLoss(const std::vector<StepMetrics>& metrics) {
    for (auto it = metrics.rbegin(); it != metrics.rend(); ++it)
        if (it->evaluated()) return it->testLoss;
    return NAN;
}

double finalEvaluatedAccuracy(const std::vector<StepMetrics>& metrics) {
    for (auto it = metrics.rbegin(); it != metrics.rend(); ++it)
        if (it->evaluated()) return it->testAccuracy;
    return NAN;
}

double bestEvaluatedAccuracy(const std::vector<StepMetrics>& metrics) {
    double best = NAN;
    for (const StepMetrics& m : metrics)
        if (m.evaluated() && !std::isnan(m.testAccuracy) && !(m.testAccuracy <= best)) best = m.testAccuracy;
    return best;
}

double selectionScore(const Study& study, const TrialOutcome& outcome) {
    if (outcome.diverged()) return kInfinity;
    const auto finiteOr = [](double value) { return std::isfinite(value) ? value : kInfinity; };
    switch (study.selection) {
    case SelectionMetric::FinalValidationLoss: return finiteOr(finalEvaluatedLoss(outcome.metrics));
    case SelectionMetric::BestValidationAccuracy: return finiteOr(1.0 - bestEvaluatedAccuracy(outcome.metrics));
    case SelectionMetric::StepsToTarget: {
        std::vector<long> steps;
        std::vector<double> losses;
        for (const StepMetrics& m : outcome.metrics) {
            steps.push_back(m.step);
            losses.push_back(m.testLoss);
        }
        return stats::timeToTarget(steps, losses, {}, study.target).steps;
    }
    }
    return kInfinity;
}

Selection selectConfiguration(const StudyPlan& plan, const StudyLayout& layout, int task, int optimizer) {
    std::optional<Selection> best;
    double bestTieBreak = kInfinity;
    std::string missing;
    int missingCount = 0;
    for (const int k : plan.tuningTrials(task, optimizer)) {
        const std::optional<TrialOutcome> outcome = readTrialOutcome(layout, k);
        if (!outcome) {
            if (++missingCount <= 5) missing += (missing.empty() ? "" : ", ") + std::to_string(k);
            continue;
        }
        const double score = selectionScore(plan.study(), *outcome);
        const double loss = finalEvaluatedLoss(outcome->metrics);
        const double tieBreak = outcome->diverged() || !std::isfinite(loss) ? kInfinity : loss;
        if (!best || score < best->score || (score == best->score && tieBreak < bestTieBreak)) {
            best = Selection{k, plan.trial(k).number, score};
            bestTieBreak = tieBreak;
        }
    }
    if (missingCount > 0)
        throw InputError("phase 1 of " + plan.study().tasks[task].name + " / " + plan.study().optimizers[optimizer].label +
                         " is unfinished: " + std::to_string(missingCount) + " tuning trial(s) missing (" + missing +
                         (missingCount > 5 ? ", ..." : "") + "); run them first");
    return *best;
}

}  // namespace ml
