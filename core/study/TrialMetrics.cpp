#include "study/TrialMetrics.h"

#include <cmath>

namespace ml {

TrialMetrics::TrialMetrics(double target, bool keepCurves) : target_(target) {
    if (keepCurves) curves_.emplace(kTrialCurvePoints);
}

void TrialMetrics::add(const StepMetrics& row) {
    ++rowCount_;
    last_ = row;
    if (curves_) curves_->add(row);
    if (!row.evaluated()) return;
    lastEvaluation_ = row;
    if (!std::isnan(row.testAccuracy) && !(row.testAccuracy <= bestAccuracy_)) bestAccuracy_ = row.testAccuracy;
    if (!timeToTarget_.reached()) {
        const long step = row.step;
        const double loss = row.testLoss, wall = row.wallMs;
        timeToTarget_ = stats::timeToTarget({&step, 1}, {&loss, 1}, {&wall, 1}, target_);
    }
}

double TrialMetrics::finalLoss() const { return lastEvaluation_ ? lastEvaluation_->testLoss : NAN; }
double TrialMetrics::finalAccuracy() const { return lastEvaluation_ ? lastEvaluation_->testAccuracy : NAN; }

const std::vector<StepMetrics>& TrialMetrics::rows() const {
    static const std::vector<StepMetrics> none;
    return curves_ ? curves_->rows() : none;
}

const std::vector<StepMetrics>& TrialMetrics::evaluations() const {
    static const std::vector<StepMetrics> none;
    return curves_ ? curves_->evaluations() : none;
}

}  // namespace ml
