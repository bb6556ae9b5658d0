#include "nn/DenseLayer.h"

#include "Random.h"

#include <cmath>

namespace ml {

struct DenseLayer::Buffers final : Layer::Workspace {
    BatchMatrix preActivation;  // Z [batch x out]
    BatchMatrix activation;     // A = f(Z); unused for Identity, whose output is Z itself
};

DenseLayer::DenseLayer(int inputs, int outputs, Activation activation)
    : inputs_(inputs), outputs_(outputs), activation_(activation) {}

void DenseLayer::initializeGlorotUniform(Matrix& parameters, Random& random) const {
    const float limit = std::sqrt(6.0f / static_cast<float>(inputs_ + outputs_));
    auto weights = weightsOf(parameters);
    // Row by row, so the values do not depend on Eigen's storage order.
    for (Eigen::Index j = 0; j < weights.rows(); ++j)
        for (Eigen::Index i = 0; i < weights.cols(); ++i) weights(j, i) = random.uniform(-limit, limit);
    biasOf(parameters).setZero();
}

std::unique_ptr<Layer::Workspace> DenseLayer::createWorkspace() const { return std::make_unique<Buffers>(); }

const BatchMatrix& DenseLayer::forward(const Matrix& parameters, const BatchMatrix& input, Workspace& work) const {
    auto& buffers = static_cast<Buffers&>(work);  // created by createWorkspace() above
    BatchMatrix& z = buffers.preActivation;
    // [batch x in] * [in x out]: the product shape Eigen runs fastest here (README, Benchmark).
    z.noalias() = input * weightsOf(parameters).transpose();
    z.rowwise() += biasOf(parameters).transpose();
    if (activation_ == Activation::Identity) return z;
    applyActivation(activation_, z, buffers.activation);
    return buffers.activation;
}

void DenseLayer::backward(const Matrix& parameters, const BatchMatrix& input, BatchMatrix& outputGradient,
                          Workspace& work, Matrix& parameterGradient, BatchMatrix* inputGradient) const {
    auto& buffers = static_cast<Buffers&>(work);
    BatchMatrix& delta = outputGradient;  // dL/dA, becomes dL/dZ in place
    multiplyByDerivative(activation_, buffers.preActivation, buffers.activation, delta);
    weightsOf(parameterGradient).noalias() = delta.transpose() * input;
    biasOf(parameterGradient) = delta.colwise().sum().transpose();
    if (inputGradient) inputGradient->noalias() = delta * weightsOf(parameters);
}

bool DenseLayer::sampleGradientNormSquares(const BatchMatrix& input, const BatchMatrix& delta, SampleScratch& /*scratch*/,
                                           SampleNormSquares& norms) const {
    // Sample s contributes c_s = delta_s x_s^T (row i: delta_si x_s) and delta_s to the bias, so
    // ||row i of c_s||^2 = delta_si^2 ||x_s||^2: O(batch (in + out)), no product.
    norms.weights.setZero();
    norms.bias.setZero();
    for (Eigen::Index s = 0; s < input.rows(); ++s) {
        const auto deltaSquares = delta.row(s).transpose().array().square();
        norms.weights += input.row(s).squaredNorm() * deltaSquares;
        norms.bias += deltaSquares;
    }
    return true;
}

}  // namespace ml
