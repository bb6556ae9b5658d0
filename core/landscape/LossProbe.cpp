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

LossProbe::LossProbe(const NetworkSpec& spec, const Dataset& examples)
    : network_(spec), examples_(examples), parameterCount_(ml::parameterCount(network_.parameters())) {
    if (examples_.size() == 0) throw InputError("the loss landscape needs at least one training example");
}

float LossProbe::lossAt(const Eigen::VectorXf& weights) {
    if (weights.size() != parameterCount_)
        throw InputError("loss landscape: " + std::to_string(weights.size()) + " weights, the network has " +
                         std::to_string(parameterCount_));
    unflattenInto(weights, network_.parameters());
    return network_.evaluate(examples_).loss;
}

}  // namespace ml
