#pragma once
// A fully connected layer with an element-wise activation f:
//   forward:  Z = X W^T + b,  A = f(Z)                 X [batch x in], W [out x in], A [batch x out]
//   backward: dZ = dA .* f'(Z),  dW = dZ^T X,  db = column sums of dZ,  dX = dZ W
// Parameters [out x (in + 1)] = [W | b]: W(j, i) connects input i to unit j.
// The activation belongs to the layer rather than being a layer of its own, so that one layer is
// one parameter matrix and one "layer" of the views; the output layer is Identity (the loss adds
// softmax where it needs it).
#include "nn/Activation.h"
#include "nn/Layer.h"

namespace ml {

class DenseLayer final : public Layer {
public:
    DenseLayer(int inputs, int outputs, Activation activation);

    Eigen::Index inputSize() const override { return inputs_; }
    Eigen::Index outputSize() const override { return outputs_; }
    Shape parameterShape() const override { return {outputs_, inputs_ + 1}; }
    void initializeGlorotUniform(Matrix& parameters, Random& random) const override;

    std::unique_ptr<Workspace> createWorkspace() const override;
    const BatchMatrix& forward(const Matrix& parameters, const BatchMatrix& input, Workspace& work) const override;
    void backward(const Matrix& parameters, const BatchMatrix& input, BatchMatrix& outputGradient, Workspace& work,
                  Matrix& parameterGradient, BatchMatrix* inputGradient) const override;
    // A sample's gradient is the outer product delta_s [x_s 1]^T, so the sum of its squares is
    // (delta .* delta)^T [X .* X  1]: one product, no per-sample matrix.
    bool sampleGradientNormSquares(const BatchMatrix& input, const BatchMatrix& delta, SampleScratch& scratch,
                                   SampleNormSquares& norms) const override;

private:
    struct Buffers;

    Eigen::Index inputs_;
    Eigen::Index outputs_;
    Activation activation_;
};

}  // namespace ml
