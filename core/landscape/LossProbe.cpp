#include "landscape/LossProbe.h"

#include "InputError.h"
#include "nn/FlatParameters.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace ml {

std::shared_ptr<const Dataset> firstExamples(const Dataset& data, long examples) {
    std::vector<Eigen::Index> indices(std::size_t(std::clamp<long>(examples, 0, long(data.size()))));
    std::iota(indices.begin(), indices.end(), Eigen::Index{0});
    return data.select(indices);
}

namespace {

// Samples [from, to) of `data`, in order.
std::shared_ptr<const Dataset> range(const Dataset& data, Eigen::Index from, Eigen::Index to) {
    std::vector<Eigen::Index> indices(std::size_t(to - from));
    std::iota(indices.begin(), indices.end(), from);
    return data.select(indices);
}

}  // namespace

LossProbe::LossProbe(const NetworkSpec& spec, const Dataset& examples) : exampleCount_(examples.size()) {
    if (exampleCount_ == 0) throw InputError("the loss landscape needs at least one training example");
    const Eigen::Index whole = exampleCount_ / EvaluationChunks::kChunkSize * EvaluationChunks::kChunkSize;
    parts_.reserve(2);
    if (whole > 0) parts_.push_back({Network(spec), EvaluationChunks(*range(examples, 0, whole))});
    if (whole < exampleCount_)
        parts_.push_back({Network(spec), EvaluationChunks(*range(examples, whole, exampleCount_))});
    parameterCount_ = ml::parameterCount(parts_.front().network.parameters());
}

float LossProbe::lossAt(const Eigen::VectorXf& weights) {
    if (weights.size() != parameterCount_)
        throw InputError("loss landscape: " + std::to_string(weights.size()) + " weights, the network has " +
                         std::to_string(parameterCount_));
    double lossSum = 0.0;  // the mean over all examples, as one Network::evaluate would give it
    for (Part& part : parts_) {
        unflattenInto(weights, part.network.parameters());
        lossSum += double(part.network.evaluate(part.examples).loss) * double(part.examples.size());
    }
    return float(lossSum / double(exampleCount_));
}

}  // namespace ml
