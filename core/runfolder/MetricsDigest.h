#pragma once
// What is kept of a run's metrics.csv when it is read: bounded memory whatever the file's length.
//   rows()         every row, decimated by DecimationStride(capacity) (the plot's Train track)
//   evaluations()  the evaluated rows, decimated by their own DecimationStride(capacity)
//                  (the plot's Evaluation track)
// plus the figures the summary needs, taken over every row: the last row, the last evaluated row,
// the counts and the steps per epoch. With the default capacity (the
// plot's 200,000 points) the two series are exactly the points the live plot keeps, so a folder
// opened from disk draws what the live run drew. Memory: at most 2 x capacity rows (48 bytes each,
// about 19 MB per run at the default capacity).
#include "runfolder/DecimationStride.h"
#include "train/Snapshot.h"

#include <optional>
#include <vector>

namespace ml {

class MetricsDigest {
public:
    explicit MetricsDigest(int capacity = kPlotPointBudget);

    void add(const StepMetrics& row);

    const std::vector<StepMetrics>& rows() const { return rows_; }
    const std::vector<StepMetrics>& evaluations() const { return evaluations_; }
    long rowCount() const { return rowCount_; }  // every row added, kept or not
    long evaluationCount() const { return evaluationCount_; }
    int capacity() const { return rowPolicy_.capacity(); }
    bool empty() const { return rowCount_ == 0; }
    const std::optional<StepMetrics>& last() const { return last_; }
    const std::optional<StepMetrics>& lastEvaluation() const { return lastEvaluation_; }
    // The number of epoch-1 rows once a row of epoch 2 has been seen; 0 while unknown.
    long stepsPerEpoch() const { return stepsPerEpoch_; }

private:
    DecimationStride rowPolicy_;
    DecimationStride evaluationPolicy_;
    std::vector<StepMetrics> rows_;
    std::vector<StepMetrics> evaluations_;
    long rowCount_ = 0;
    long evaluationCount_ = 0;
    long stepsPerEpoch_ = 0;
    std::optional<StepMetrics> last_;
    std::optional<StepMetrics> lastEvaluation_;
};

}  // namespace ml
