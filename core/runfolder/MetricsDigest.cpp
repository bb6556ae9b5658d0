#include "runfolder/MetricsDigest.h"

namespace ml {

namespace {

void keep(DecimationStride& policy, std::vector<StepMetrics>& series, const StepMetrics& row) {
    if (!policy.offer()) return;
    series.push_back(row);
    if (policy.full(static_cast<long>(series.size()))) keepEverySecond(series);
}

}  // namespace

MetricsDigest::MetricsDigest(int capacity) : rowPolicy_(capacity), evaluationPolicy_(capacity) {}

void MetricsDigest::add(const StepMetrics& row) {
    ++rowCount_;
    keep(rowPolicy_, rows_, row);
    if (stepsPerEpoch_ == 0 && row.epoch >= 2) stepsPerEpoch_ = row.step - 1;
    last_ = row;
    if (!row.evaluated()) return;
    ++evaluationCount_;
    keep(evaluationPolicy_, evaluations_, row);
    lastEvaluation_ = row;
}

}  // namespace ml
