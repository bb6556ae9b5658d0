#include "model/MetricsHistory.h"

#include <cmath>
#include <map>

namespace ml {

MetricsHistory::MetricsHistory(int capacity) : capacity_(capacity) {}

void MetricsHistory::reset(const std::vector<std::string>& labels, long stepsPerEpoch) {
    runs_.clear();
    for (const std::string& label : labels) {
        runs_.push_back({label, DecimatingHistory(3, capacity_), DecimatingHistory(4, capacity_), 0, 0});
        runs_.back().train.commitCapacity();  // a point per step: its whole memory now, flat from then on
    }
    looks_ = ownLooks(static_cast<int>(labels.size()));
    stepsPerEpoch_ = stepsPerEpoch;
    hasAccuracy_ = false;
    ++generation_;
}

void MetricsHistory::append(const StepMetrics& m) {
    appendTrain(m);
    if (m.evaluated()) appendEvaluation(m);
}

void MetricsHistory::appendTrain(const StepMetrics& m) {
    if (m.run < 0 || m.run >= runCount()) return;
    Run& run = runs_[static_cast<std::size_t>(m.run)];
    if (run.train.append(double(m.step), {double(m.epoch), m.wallMs / 1000.0, double(m.trainLoss)}) ==
        DecimatingHistory::Change::Decimated)
        ++run.trainDecimations;
}

void MetricsHistory::appendEvaluation(const StepMetrics& m) {
    if (m.run < 0 || m.run >= runCount()) return;
    Run& run = runs_[static_cast<std::size_t>(m.run)];
    if (std::isfinite(m.testAccuracy)) hasAccuracy_ = true;
    if (run.evaluation.append(double(m.step), {double(m.epoch), m.wallMs / 1000.0, double(m.testLoss),
                                               double(m.testAccuracy)}) == DecimatingHistory::Change::Decimated)
        ++run.evaluationDecimations;
}

void MetricsHistory::append(const std::vector<StepMetrics>& metrics) {
    for (const StepMetrics& m : metrics) append(m);
}

std::vector<std::string> MetricsHistory::labels() const {
    std::vector<std::string> list;
    for (const Run& run : runs_) list.push_back(run.label);
    return list;
}

const DecimatingHistory& MetricsHistory::track(int run, Track track) const {
    const Run& entry = runs_.at(static_cast<std::size_t>(run));
    return track == Track::Train ? entry.train : entry.evaluation;
}

std::uint64_t MetricsHistory::decimations(int run, Track track) const {
    const Run& entry = runs_.at(static_cast<std::size_t>(run));
    return track == Track::Train ? entry.trainDecimations : entry.evaluationDecimations;
}

std::size_t MetricsHistory::storedPoints() const {
    std::size_t points = 0;
    for (const Run& run : runs_) points += run.train.size() + run.evaluation.size();
    return points;
}

double MetricsHistory::epochAt(const DecimatingHistory& track, int index) const {
    if (stepsPerEpoch_ > 0) return track.steps()[index] / static_cast<double>(stepsPerEpoch_);
    return track.series(kEpoch)[index];
}

std::vector<StepMetrics> MetricsHistory::rows(int run) const {
    std::map<long, StepMetrics> byStep;
    auto rowAt = [&](const DecimatingHistory& track, int i) -> StepMetrics& {
        StepMetrics& row = byStep[static_cast<long>(track.steps()[i])];
        row.run = run;
        row.step = static_cast<long>(track.steps()[i]);
        row.epoch = static_cast<int>(track.series(kEpoch)[i]);
        row.wallMs = track.series(kWallSeconds)[i] * 1000.0;
        return row;
    };
    const DecimatingHistory& train = track(run, Track::Train);
    for (int i = 0; i < train.size(); ++i) rowAt(train, i).trainLoss = static_cast<float>(train.series(kTrainLoss)[i]);
    const DecimatingHistory& evaluation = track(run, Track::Evaluation);
    for (int i = 0; i < evaluation.size(); ++i) {
        StepMetrics& row = rowAt(evaluation, i);
        row.testLoss = static_cast<float>(evaluation.series(kTestLoss)[i]);
        row.testAccuracy = static_cast<float>(evaluation.series(kTestAccuracy)[i]);
    }
    std::vector<StepMetrics> rows;
    rows.reserve(byStep.size());
    for (auto& [step, row] : byStep) rows.push_back(row);
    return rows;
}

}  // namespace ml
