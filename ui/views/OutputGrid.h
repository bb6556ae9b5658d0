#pragma once
// What a network computes over its input space, for the output view: its outputs at size × size
// points spanning the plane of two inputs (or size points along the line of one input), and at
// any points added after them (the data), by the core's forward pass (Network::forward) on a
// snapshot's weights, all points in one batch (one set of the network's buffers, never resized).
// Classification networks (cross-entropy) give the softmax probabilities of their classes,
// regression networks their output values.
//
// Public API
//   InputRange, inputRangeOf(datasets)  the box the data's inputs fill, padded by a tenth per side
//   OutputGrid(spec, range, size)       the grid's points (size ≥ 2), built once
//   addPoints(inputs)                   more points after the grid's; returns the first one's row
//   compute(weights, outputs)           one row per point; false when the weights do not fit
//   gridPoints()                        the grid's rows of outputs (the first ones)
//   pointIndex(column, row)             the row of outputs at grid column (first input) and row
//   coordinate(axis, i)                 where grid index i lies along input `axis`
//   predictedClasses(probabilities)     the most probable class of each row
//   classShades(probabilities)          predicted class + how sure: c + (p_c − 1/k) / (1 − 1/k) · 0.99
#include "Tensor.h"
#include "data/Dataset.h"
#include "nn/Network.h"

#include <array>
#include <vector>

namespace ml {

struct InputRange {
    std::array<double, 2> low{-1.0, -1.0};
    std::array<double, 2> high{1.0, 1.0};
};

// Over every sample of the given data sets (null ones skipped); one or two inputs.
InputRange inputRangeOf(const std::vector<const Dataset*>& datasets);

class OutputGrid {
public:
    // Throws InputError when the network does not have one or two inputs.
    OutputGrid(const NetworkSpec& spec, const InputRange& range, int size);

    int size() const { return size_; }
    int inputs() const { return inputs_; }
    bool classification() const { return classification_; }
    const InputRange& range() const { return range_; }
    const BatchMatrix& points() const { return points_; }
    Eigen::Index gridPoints() const { return inputs_ == 2 ? Eigen::Index{size_} * size_ : size_; }
    double coordinate(int axis, int index) const;
    Eigen::Index pointIndex(int column, int row) const { return Eigen::Index{row} * size_ + column; }

    Eigen::Index addPoints(const BatchMatrix& inputs);
    bool compute(const Parameters& weights, BatchMatrix& outputs);

private:
    Network network_;
    InputRange range_;
    int size_;
    int inputs_;
    bool classification_;
    BatchMatrix points_;  // row r * size + c: (x_c, y_r); one input: row c is x_c; then added points
};

using OutputRows = Eigen::Ref<const BatchMatrix>;  // some rows of compute's outputs
Eigen::VectorXi predictedClasses(const OutputRows& probabilities);
Eigen::VectorXf classShades(const OutputRows& probabilities);

}  // namespace ml
