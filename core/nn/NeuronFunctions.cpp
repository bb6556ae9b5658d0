#include "nn/NeuronFunctions.h"

#include "InputError.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ml {

InputGrid::InputGrid(std::vector<AxisRange> axes, int samples) : axes_(std::move(axes)), samples_(samples) {
    if (axes_.empty() || axes_.size() > 2)
        throw InputError("input grid: expected 1 or 2 inputs, got " + std::to_string(axes_.size()));
    if (samples_ < 2)
        throw InputError("input grid: expected at least 2 samples per input, got " + std::to_string(samples_));
    for (std::size_t a = 0; a < axes_.size(); ++a)
        if (!(axes_[a].lower < axes_[a].upper) || !std::isfinite(axes_[a].lower) || !std::isfinite(axes_[a].upper))
            throw InputError("input grid: input " + std::to_string(a) +
                             " needs a finite range with lower < upper, got [" + std::to_string(axes_[a].lower) + ", " +
                             std::to_string(axes_[a].upper) + "]");
    const auto at = [this](int input, int k) {
        const AxisRange& range = axis(input);
        return range.lower + (range.upper - range.lower) * static_cast<float>(k) / static_cast<float>(samples_ - 1);
    };
    if (inputs() == 1) {
        points_.resize(samples_, 1);
        for (int p = 0; p < samples_; ++p) points_(p, 0) = at(0, p);
        return;
    }
    points_.resize(Eigen::Index{samples_} * samples_, 2);
    for (int r = 0; r < samples_; ++r) {
        const float y = at(1, samples_ - 1 - r);  // top row first
        for (int c = 0; c < samples_; ++c) {
            points_(Eigen::Index{r} * samples_ + c, 0) = at(0, c);
            points_(Eigen::Index{r} * samples_ + c, 1) = y;
        }
    }
}

InputGrid InputGrid::around(const Dataset& data, int samples, float margin) {
    if (data.inputDim() < 1 || data.inputDim() > 2)
        throw InputError("input grid: the data have " + std::to_string(data.inputDim()) +
                         " inputs; a grid needs 1 or 2");
    std::vector<AxisRange> axes(static_cast<std::size_t>(data.inputDim()));
    if (data.size() > 0) {
        std::vector<Eigen::Index> all(static_cast<std::size_t>(data.size()));
        std::iota(all.begin(), all.end(), Eigen::Index{0});
        Batch batch;
        data.gather(all, batch);
        for (int a = 0; a < data.inputDim(); ++a) {
            float lower = batch.inputs.col(a).minCoeff(), upper = batch.inputs.col(a).maxCoeff();
            if (!std::isfinite(lower) || !std::isfinite(upper)) continue;  // keep [-1, 1]
            if (!(lower < upper)) lower -= 0.5f, upper += 0.5f;
            const float pad = margin * (upper - lower);
            axes[static_cast<std::size_t>(a)] = {lower - pad, upper + pad};
        }
    }
    return InputGrid(std::move(axes), samples);
}

std::string neuronFunctionsUnsupported(const NetworkSpec& spec) {
    if (std::any_of(spec.layers.begin(), spec.layers.end(),
                    [](const LayerToken& layer) { return layer.kind != LayerToken::Kind::Dense; }))
        return "the network " + spec.text() + " has convolution or pooling layers (dense layers only)";
    if (spec.inputs() < 1 || spec.inputs() > 2)
        return "the network " + spec.text() + " has " + std::to_string(spec.inputs()) +
               " inputs (one or two inputs only)";
    return {};
}

namespace {

const NetworkSpec& supported(const NetworkSpec& spec, const InputGrid& grid) {
    if (const std::string reason = neuronFunctionsUnsupported(spec); !reason.empty())
        throw InputError("neuron functions: " + reason);
    if (grid.inputs() != spec.inputs())
        throw InputError("neuron functions: the network " + spec.text() + " has " + std::to_string(spec.inputs()) +
                         " inputs, the grid " + std::to_string(grid.inputs()));
    return spec;
}

}  // namespace

NeuronFunctions::NeuronFunctions(const NetworkSpec& spec, InputGrid grid)
    : grid_(std::move(grid)), network_(supported(spec, grid_)) {}

std::vector<BatchMatrix> NeuronFunctions::compute(const Parameters& parameters, const std::string& source) {
    network_.setParameters(parameters, source);
    return network_.layerOutputs(grid_.points());
}

}  // namespace ml
