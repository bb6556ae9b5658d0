#include "views/OutputGrid.h"

#include "InputError.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>

namespace ml {

InputRange inputRangeOf(const std::vector<const Dataset*>& datasets) {
    std::array<double, 2> low{std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
    std::array<double, 2> high{-low[0], -low[1]};
    Batch all;
    for (const Dataset* data : datasets) {
        if (!data || data->size() == 0) continue;
        std::vector<Eigen::Index> indices(static_cast<std::size_t>(data->size()));
        std::iota(indices.begin(), indices.end(), Eigen::Index{0});
        data->gather(indices, all);
        for (int axis = 0; axis < std::min(2, int(all.inputs.cols())); ++axis) {
            low[axis] = std::min(low[axis], double(all.inputs.col(axis).minCoeff()));
            high[axis] = std::max(high[axis], double(all.inputs.col(axis).maxCoeff()));
        }
    }
    InputRange range;
    for (int axis = 0; axis < 2; ++axis) {
        if (!(low[axis] <= high[axis])) continue;  // no data on this axis: [-1, 1]
        const double pad = high[axis] > low[axis] ? 0.1 * (high[axis] - low[axis]) : 1.0;
        range.low[axis] = low[axis] - pad;
        range.high[axis] = high[axis] + pad;
    }
    return range;
}

OutputGrid::OutputGrid(const NetworkSpec& spec, const InputRange& range, int size)
    : network_(spec), range_(range), size_(std::max(2, size)), inputs_(spec.inputs()),
      classification_(spec.loss == LossKind::CrossEntropy) {
    if (inputs_ != 1 && inputs_ != 2)
        throw InputError("the network " + spec.text() + " has " + std::to_string(inputs_) +
                         " inputs; the output view draws networks of 1 or 2 inputs");
    if (inputs_ == 1) {
        points_.resize(size_, 1);
        for (int c = 0; c < size_; ++c) points_(c, 0) = float(coordinate(0, c));
        return;
    }
    points_.resize(Eigen::Index{size_} * size_, 2);
    for (int r = 0; r < size_; ++r)
        for (int c = 0; c < size_; ++c) {
            points_(pointIndex(c, r), 0) = float(coordinate(0, c));
            points_(pointIndex(c, r), 1) = float(coordinate(1, r));
        }
}

double OutputGrid::coordinate(int axis, int index) const {
    const std::size_t a = static_cast<std::size_t>(axis);
    return range_.low[a] + (range_.high[a] - range_.low[a]) * double(index) / double(size_ - 1);
}

Eigen::Index OutputGrid::addPoints(const BatchMatrix& inputs) {
    const Eigen::Index first = points_.rows();
    points_.conservativeResize(first + inputs.rows(), Eigen::NoChange);
    points_.bottomRows(inputs.rows()) = inputs;
    return first;
}

bool OutputGrid::compute(const Parameters& weights, BatchMatrix& outputs) {
    try {
        network_.setParameters(weights, "snapshot");
    } catch (const InputError&) {
        return false;  // another network's run (an overlaid comparison)
    }
    outputs = network_.forward(points_);
    if (classification_) {  // softmax per row, as the cross-entropy loss reads the outputs
        const Eigen::Index classes = outputs.cols();
        float* row = outputs.data();
        for (Eigen::Index i = 0; i < outputs.rows(); ++i, row += classes) {
            const float largest = *std::max_element(row, row + classes);
            float sum = 0.0f;
            for (Eigen::Index c = 0; c < classes; ++c) sum += (row[c] = std::exp(row[c] - largest));
            for (Eigen::Index c = 0; c < classes; ++c) row[c] /= sum;
        }
    }
    return true;
}

Eigen::VectorXi predictedClasses(const OutputRows& probabilities) {
    Eigen::VectorXi classes(probabilities.rows());
    for (Eigen::Index i = 0; i < probabilities.rows(); ++i) probabilities.row(i).maxCoeff(&classes(i));
    return classes;
}

Eigen::VectorXf classShades(const OutputRows& probabilities) {
    const double k = double(probabilities.cols());
    Eigen::VectorXf shades(probabilities.rows());
    for (Eigen::Index i = 0; i < probabilities.rows(); ++i) {
        Eigen::Index c = 0;
        const double p = probabilities.row(i).maxCoeff(&c);
        const double sure = k > 1 ? std::clamp((p - 1.0 / k) / (1.0 - 1.0 / k), 0.0, 1.0) : 1.0;
        shades(i) = float(double(c) + 0.99 * sure);
    }
    return shades;
}

}  // namespace ml
