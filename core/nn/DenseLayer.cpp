#include "nn/DenseLayer.h"

#include "Random.h"

#include <cmath>

namespace ml {

struct DenseLayer::Buffers final : Layer::Workspace {
    BatchMatrix preActivation;  // Z [batch x out]
    BatchMatrix activation;     // A = f(Z); unused for Identity, whose output is Z itself
};

namespace {
// Two of a dense layer's products. Eigen runs a product below its coefficient-based threshold
// (rows + columns + depth < EIGEN_GEMM_TO_COEFFBASED_THRESHOLD: a tiny layer at a small batch) as
// one dynamic-size dot product per result, whose set-up outweighs the few multiplications; there
// the same sums are written sample by sample as contiguous vector operations (bias added in the
// same pass). Above it, Eigen's GEMM as before: 784-128-10 is unchanged. (dX = delta W written so,
// as one dot product per result, measured no faster than Eigen's own and is left to Eigen.)
bool tinyProduct(Eigen::Index rows, Eigen::Index columns, Eigen::Index depth) {
    return depth > 0 && rows + columns + depth < EIGEN_GEMM_TO_COEFFBASED_THRESHOLD;
}

// Z = X W^T + b: row s of Z is b + sum_i x_si W(:, i).
void affine(const BatchMatrix& input, const Matrix& parameters, BatchMatrix& z) {
    const auto weights = weightsOf(parameters);
    const auto bias = biasOf(parameters);
    if (!tinyProduct(input.rows(), weights.rows(), weights.cols())) {
        // [batch x in] * [in x out]: the product shape Eigen runs fastest here (README, Benchmark).
        z.noalias() = input * weights.transpose();
        z.rowwise() += bias.transpose();
        return;
    }
    z.resize(input.rows(), weights.rows());
    for (Eigen::Index s = 0; s < input.rows(); ++s) {
        auto zs = z.row(s).transpose();
        zs = bias;
        for (Eigen::Index i = 0; i < weights.cols(); ++i) zs += input(s, i) * weights.col(i);
    }
}

// dW = delta^T X: the sum over samples of the outer products delta_s x_s^T.
template <typename Destination>
void weightGradient(const BatchMatrix& delta, const BatchMatrix& input, Destination&& dW) {
    if (!tinyProduct(delta.cols(), input.cols(), delta.rows())) {
        dW.noalias() = delta.transpose() * input;
        return;
    }
    dW.noalias() = delta.row(0).transpose() * input.row(0);
    for (Eigen::Index s = 1; s < delta.rows(); ++s) dW.noalias() += delta.row(s).transpose() * input.row(s);
}

}  // namespace

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
    affine(input, parameters, z);
    if (activation_ == Activation::Identity) return z;
    applyActivation(activation_, z, buffers.activation);
    return buffers.activation;
}

void DenseLayer::backward(const Matrix& parameters, const BatchMatrix& input, BatchMatrix& outputGradient,
                          Workspace& work, Matrix& parameterGradient, BatchMatrix* inputGradient) const {
    auto& buffers = static_cast<Buffers&>(work);
    BatchMatrix& delta = outputGradient;  // dL/dA, becomes dL/dZ in place
    multiplyByDerivative(activation_, buffers.preActivation, buffers.activation, delta);
    weightGradient(delta, input, weightsOf(parameterGradient));
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
