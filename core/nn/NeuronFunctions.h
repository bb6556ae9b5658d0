#pragma once
// What each neuron of a small dense network computes, as a function of the network's input: every
// neuron's activation at every point of a grid over the input range. For a network with two inputs
// the grid is N x N points over the plane (the neuron's function as an image); with one input, N
// points over the line (the neuron's function as a curve). The last layer's values are the
// network's outputs (linear, before any softmax), so the same call gives the output over the grid.
//
// The values come from the core's own forward pass (Network::layerOutputs) on the given weights:
// all grid points form ONE batch, so each layer is one matrix product over the whole grid.
//
// Public API
//   AxisRange                  one input's interval [lower, upper]
//   InputGrid(axes, samples)   `samples` points per axis, both ends included; 1 or 2 axes
//   InputGrid::around(data, samples, margin)  the grid over the training inputs' range (min/max
//                              of each input) widened by `margin` times the span on each side
//   grid.points()              [points x inputs], one grid point per row. Order: with two inputs
//                              point p = row * samples + column, column c at input 0's
//                              lower + c * step (left to right), row r at input 1's upper - r * step
//                              (top row first: rows are an image's rows); with one input point
//                              p at lower + p * step
//   neuronFunctionsUnsupported(spec)  why a network has no such functions ("" when it has one):
//                              dense layers only, one or two inputs
//   NeuronFunctions(spec, grid)  throws InputError with that reason; holds one Network whose
//                              buffers every compute() reuses (one object per thread)
//   compute(parameters, source)  per parameter layer l, a [points x neurons of layer l] matrix:
//                              column j is neuron j's activation (hidden layers after the
//                              activation, the last layer linear) at every grid point; throws
//                              InputError naming `source` when the parameters do not fit the spec
#include "Tensor.h"
#include "data/Dataset.h"
#include "nn/Network.h"
#include "nn/NetworkSpec.h"

#include <string>
#include <vector>

namespace ml {

struct AxisRange {
    float lower = -1.0f;
    float upper = 1.0f;
};

class InputGrid {
public:
    // Throws InputError unless there are 1 or 2 axes with lower < upper and samples >= 2.
    InputGrid(std::vector<AxisRange> axes, int samples);
    // The range of the training inputs (a constant input: +-0.5 around its value) widened by
    // `margin` times the span on each side. Throws InputError unless `data` has 1 or 2 inputs.
    static InputGrid around(const Dataset& data, int samples, float margin = 0.1f);

    int inputs() const { return static_cast<int>(axes_.size()); }
    int samples() const { return samples_; }
    Eigen::Index pointCount() const { return points_.rows(); }
    const AxisRange& axis(int input) const { return axes_[static_cast<std::size_t>(input)]; }
    const BatchMatrix& points() const { return points_; }

private:
    std::vector<AxisRange> axes_;
    int samples_ = 0;
    BatchMatrix points_;
};

// "" when NeuronFunctions can be made for `spec`, else a one-line reason.
std::string neuronFunctionsUnsupported(const NetworkSpec& spec);

class NeuronFunctions {
public:
    NeuronFunctions(const NetworkSpec& spec, InputGrid grid);

    const InputGrid& grid() const { return grid_; }
    const NetworkSpec& spec() const { return network_.spec(); }
    std::vector<BatchMatrix> compute(const Parameters& parameters, const std::string& source);

private:
    InputGrid grid_;
    Network network_;
};

}  // namespace ml
