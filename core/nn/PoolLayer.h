#pragma once
// Pooling over k x k windows with stride k, channel by channel (PyTorch's MaxPool2d(k) and
// AvgPool2d(k): a last row or column that does not fill a window is left out). No parameters.
//   max:     Y[c, y, x] = max_{i,j<k} X[c, y*k + i, x*k + j]; the gradient goes to the maximum (the
//            first one in row order on ties)
//   average: Y[c, y, x] = mean of the window; each input gets 1/k^2 of its window's gradient
#include "nn/Layer.h"
#include "nn/NetworkSpec.h"

namespace ml {

class PoolLayer final : public Layer {
public:
    enum class Kind { Max, Average };
    // reluInput (max pooling only): the input is a ReLU's output A = max(Z, 0), and backward passes
    // dL/dZ instead of dL/dA: the window's maximum is positive exactly where Z > 0 there, so the
    // ReLU's derivative costs one comparison per window here instead of a pass over every input
    // (its layer was built with reluDerivativeByMaxPool).
    PoolLayer(SampleShape input, int kernel, Kind kind, bool reluInput = false);

    Eigen::Index inputSize() const override { return input_.size(); }
    Eigen::Index outputSize() const override { return output_.size(); }
    Shape parameterShape() const override { return {0, 0}; }
    void initializeGlorotUniform(Matrix&, Random&) const override {}

    std::unique_ptr<Workspace> createWorkspace() const override;
    const BatchMatrix& forward(const Matrix& parameters, const BatchMatrix& input, Workspace& work) const override;
    void backward(const Matrix& parameters, const BatchMatrix& input, BatchMatrix& outputGradient, Workspace& work,
                  Matrix& parameterGradient, BatchMatrix* inputGradient) const override;

private:
    struct Buffers;
    // Max pooling 2x2 (the common case) in two vectorised passes (PoolLayer.cpp).
    void maxPool2x2(const BatchMatrix& input, Buffers& buffers) const;

    SampleShape input_;
    SampleShape output_;
    int kernel_;
    Kind kind_;
    bool reluInput_;
};

}  // namespace ml
