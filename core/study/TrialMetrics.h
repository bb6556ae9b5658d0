#pragma once
// What selection and aggregation keep of a trial's metrics.csv, streamed row by row as the
// run-folder reader streams a run's (runfolder/MetricsDigest.h): bounded memory whatever the file's
// length. The figures are taken over every row: the last evaluated loss and accuracy, the best
// accuracy and the time to the study's target. A final run also keeps its curves for the seed
// bands: the rows and the evaluated rows, each decimated by DecimationStride(kTrialCurvePoints), so
// a run of fewer rows keeps every one (at most about 1.9 MB per final run).
#include "runfolder/MetricsDigest.h"
#include "stats/TimeToTarget.h"

#include <optional>

namespace ml {

inline constexpr int kTrialCurvePoints = 20000;

class TrialMetrics {
public:
    // `target`: the study's target loss (NaN: none); `keepCurves`: a final run (its bands).
    explicit TrialMetrics(double target = NAN, bool keepCurves = false);

    void add(const StepMetrics& row);

    long rowCount() const { return rowCount_; }
    const std::optional<StepMetrics>& last() const { return last_; }
    // The last evaluated test loss and accuracy, and the best accuracy; NaN when none.
    double finalLoss() const;
    double finalAccuracy() const;
    double bestAccuracy() const { return bestAccuracy_; }
    // The first evaluated row whose test loss reached the target (every row, not the decimated ones).
    const stats::TimeToTarget& timeToTarget() const { return timeToTarget_; }
    // The band curves (empty unless keepCurves): every row, and every evaluated row, decimated.
    const std::vector<StepMetrics>& rows() const;
    const std::vector<StepMetrics>& evaluations() const;

private:
    double target_;
    std::optional<MetricsDigest> curves_;
    long rowCount_ = 0;
    std::optional<StepMetrics> last_;
    std::optional<StepMetrics> lastEvaluation_;
    double bestAccuracy_ = NAN;
    stats::TimeToTarget timeToTarget_;
};

}  // namespace ml
