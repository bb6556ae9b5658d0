#include "study/TrialOutcome.h"

#include "InputError.h"
#include "io/Files.h"
#include "io/JsonFile.h"
#include "stats/TimeToTarget.h"
#include "experiment/ExperimentJson.h"
#include "runfolder/RunCsv.h"
#include "runfolder/RunFolderLayout.h"
#include "train/RunStatus.h"

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

QJsonObject trialPointJson(const StudyOptimizer& optimizer, const stats::TrialPoint& point) {
    QJsonObject values;
    for (std::size_t d = 0; d < point.size(); ++d) values[QString::fromStdString(optimizer.space[d].key)] = point[d];
    return values;
}

// What trial.json says about which trial it is: everything but its point and status, which the
// reader checks against the plan.
QJsonObject trialIdentity(const StudyLayout& layout, int index) {
    const StudyPlan& plan = layout.plan();
    const StudyTrial& trial = plan.trial(index);
    QJsonObject identity;
    identity["trial"] = index;
    identity["phase"] = phaseName(trial.phase);
    identity["task"] = QString::fromStdString(plan.study().tasks[trial.task].name);
    identity["optimizer"] = QString::fromStdString(plan.study().optimizers[trial.optimizer].label);
    identity["number"] = trial.number;
    identity["seed"] = seedToJson(trial.seed);
    identity["plan"] = QString::fromStdString(plan.study().digest);
    if (plan.study().recordsRounds() && trial.phase == StudyPhase::Tuning) {
        identity["round"] = trial.round;
        identity["candidate"] = trial.candidate;
        identity["tuning_seed"] = trial.tuningSeed;
    }
    return identity;
}

QString jsonText(const QJsonValue& value) {
    if (value.isUndefined()) return "nothing";
    if (value.isString()) return "'" + value.toString() + "'";
    return QString::fromUtf8(QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact)).mid(1).chopped(1);
}

}  // namespace

void writeTrialMarker(const StudyLayout& layout, int index, const stats::TrialPoint& point, const std::string& status) {
    const StudyOptimizer& optimizer = layout.plan().study().optimizers[layout.plan().trial(index).optimizer];
    QJsonObject marker = trialIdentity(layout, index);
    marker["point"] = trialPointJson(optimizer, point);
    marker["status"] = QString::fromStdString(status);
    writeFileAtomically(layout.trialMarker(index), QJsonDocument(marker).toJson(QJsonDocument::Indented));
}

namespace {

// trial.json read and checked against the plan: it names this trial of this study (its digest
// included), a finished status and, for a tuning trial, the plan's point.
struct CheckedMarker {
    std::string status;
    stats::TrialPoint point;
};

CheckedMarker readCheckedMarker(const StudyLayout& layout, int index) {
    const QString markerPath = layout.trialMarker(index);
    const QJsonObject marker = readJsonObject(markerPath);
    const std::string where = markerPath.toStdString();
    const StudyPlan& plan = layout.plan();
    const StudyTrial& trial = plan.trial(index);
    const StudyOptimizer& optimizer = plan.study().optimizers[trial.optimizer];
    const QJsonObject identity = trialIdentity(layout, index);
    for (auto it = identity.begin(); it != identity.end(); ++it) {
        const QJsonValue found = marker.value(it.key());
        if (found == it.value()) continue;
        if (it.key() == "plan")
            throw InputError(
                where + ": plan: " + (found.isUndefined() ? "missing" : "the digest " + jsonText(found).toStdString()) +
                ", but " + layout.studyFile().toStdString() + " has the digest '" + plan.study().digest +
                "': the study was edited after this trial ran; restore it, or run the edited study in a new --out");
        throw InputError(where + ": " + it.key().toStdString() + ": expected " + jsonText(it.value()).toStdString() +
                         ", not " + jsonText(found).toStdString() +
                         "; the file was edited or belongs to another study (use a new --out)");
    }
    CheckedMarker checked;
    checked.status = marker.value("status").toString().toStdString();
    const std::optional<ParsedStatus> status = parseStatusText(checked.status);
    if (!marker.value("status").isString() || !status ||
        (status->status != RunStatus::Done && status->status != RunStatus::Diverged))
        throw InputError(where + ": status: expected done or diverged at step N (a finished trial), not " +
                         jsonText(marker.value("status")).toStdString());
    const QJsonObject point = marker.value("point").toObject();
    for (const stats::SearchDimension& dimension : optimizer.space) {
        const QJsonValue value = point.value(QString::fromStdString(dimension.key));
        if (value.isUndefined()) break;  // trial 0: the defaults, no values
        if (!value.isDouble()) throw InputError(where + ": point." + dimension.key + ": expected a number");
        checked.point.push_back(value.toDouble());
    }
    // A tuning trial's point is the plan's; a final run's is its selection's, which phase 1 decides.
    if (trial.phase == StudyPhase::Tuning && trial.round == 0 && trial.candidate > 0) {
        const stats::TrialPoint planned = plan.point(trial.optimizer, trial.candidate);
        if (checked.point != planned)
            throw InputError(where + ": point: expected the plan's " +
                             jsonText(trialPointJson(optimizer, planned)).toStdString() + " for trial " +
                             std::to_string(trial.number) + " of " + optimizer.label + ", not " +
                             jsonText(marker.value("point")).toStdString() + "; the file was edited");
    }
    return checked;
}

}  // namespace

void checkTrialMarker(const StudyLayout& layout, int trial) { readCheckedMarker(layout, trial); }

std::optional<TrialOutcome> readTrialOutcome(const StudyLayout& layout, int index) {
    if (!QFileInfo::exists(layout.trialMarker(index))) return std::nullopt;
    CheckedMarker marker = readCheckedMarker(layout, index);
    TrialOutcome outcome;
    outcome.trial = index;
    outcome.status = std::move(marker.status);
    outcome.point = std::move(marker.point);
    const Study& study = layout.plan().study();
    outcome.metrics = TrialMetrics(study.target, layout.plan().trial(index).phase == StudyPhase::Final);
    const QString metrics = QDir(layout.trialDirectory(index)).filePath(runfolder::kMetrics);
    QFile file(metrics);
    openForReading(file);
    readMetricsCsv(file, metrics, 0, [&](const StepMetrics& row) { outcome.metrics.add(row); });
    return outcome;
}

double finalEvaluatedLoss(const TrialMetrics& metrics) { return metrics.finalLoss(); }
double finalEvaluatedAccuracy(const TrialMetrics& metrics) { return metrics.finalAccuracy(); }
double bestEvaluatedAccuracy(const TrialMetrics& metrics) { return metrics.bestAccuracy(); }

double finalTestLoss(const TrialOutcome& outcome) {
    const double loss = finalEvaluatedLoss(outcome.metrics);
    return outcome.diverged() || std::isnan(loss) ? kInfinity : loss;
}

double finalTestAccuracy(const TrialOutcome& outcome) {
    return outcome.diverged() ? 0.0 : finalEvaluatedAccuracy(outcome.metrics);
}

double finalTestError(const TrialOutcome& outcome) { return 1.0 - finalTestAccuracy(outcome); }

double selectionScore(const Study& study, const TrialOutcome& outcome) {
    if (outcome.diverged()) return kInfinity;
    const auto finiteOr = [](double value) { return std::isfinite(value) ? value : kInfinity; };
    switch (study.selection) {
    case SelectionMetric::FinalValidationLoss: return finiteOr(finalEvaluatedLoss(outcome.metrics));
    case SelectionMetric::BestValidationAccuracy: return finiteOr(1.0 - bestEvaluatedAccuracy(outcome.metrics));
    case SelectionMetric::StepsToTarget: return outcome.metrics.timeToTarget().steps;
    }
    return kInfinity;
}

}  // namespace ml
