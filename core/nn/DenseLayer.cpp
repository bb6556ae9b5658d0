#include "nn/DenseLayer.h"

#include "Random.h"
#include "TinyLoops.h"

#include <algorithm>
#include <cmath>

namespace ml {

struct DenseLayer::Buffers final : Layer::Workspace {
    BatchMatrix preActivation;  // Z [batch x out]
    BatchMatrix activation;     // A = f(Z); unused for Identity, whose output is Z itself
};

namespace {
// A dense layer's three products (Z = X W^T, dW = delta^T X, dX = delta W) all have
// rows + columns + depth = batch + in + out. Below Eigen's coefficient-based threshold (a tiny
// layer at a small batch) Eigen runs each as one dynamic-size dot product per result, whose set-up
// outweighs the few multiplications; there the layer's whole pass is written on raw contiguous
// spans instead (TinyDense below), in the summation order of Eigen's scalar code. Above it, Eigen's
// GEMM as before: 784-128-10 is unchanged.
bool isTiny(Eigen::Index batch, Eigen::Index inputs, Eigen::Index outputs) {
    return inputs > 0 && outputs > 0 && batch + inputs + outputs < EIGEN_GEMM_TO_COEFFBASED_THRESHOLD;
}

// The tiny layer's pass on raw spans. X [batch x in] and every [batch x out] buffer row-major
// (BatchMatrix); the parameters column-major [out x (in + 1)]: W(j, i) at p[i * out + j], the bias
// at p[in * out + j] (Tensor.h). Not vectorised: every loop is shorter than 20, where the vector
// loops' trip-count checks and remainders cost more instructions than they save.
struct TinyDense {
    Eigen::Index batch, in, out;

    // z_s = b + sum_i x_si W(:, i), input by input.
    ML_TINY_LOOPS void affine(const float* x, const float* p, float* z) const {
        const float* bias = p + in * out;
        for (Eigen::Index s = 0; s < batch; ++s, x += in, z += out) {
            for (Eigen::Index j = 0; j < out; ++j) z[j] = bias[j];
            for (Eigen::Index i = 0; i < in; ++i) {
                const float xi = x[i];
                const float* w = p + i * out;
                for (Eigen::Index j = 0; j < out; ++j) z[j] += xi * w[j];
            }
        }
    }
    // dW = sum_s delta_s x_s^T, db = sum_s delta_s (sample by sample, as the sums over the batch run).
    ML_TINY_LOOPS void parameterGradient(const float* delta, const float* x, float* g) const {
        float* bias = g + in * out;
        for (Eigen::Index i = 0; i < in; ++i)
            for (Eigen::Index j = 0; j < out; ++j) g[i * out + j] = delta[j] * x[i];
        for (Eigen::Index j = 0; j < out; ++j) bias[j] = delta[j];
        for (Eigen::Index s = 1; s < batch; ++s) {
            const float* d = delta + s * out;
            const float* xs = x + s * in;
            for (Eigen::Index i = 0; i < in; ++i)
                for (Eigen::Index j = 0; j < out; ++j) g[i * out + j] += d[j] * xs[i];
            for (Eigen::Index j = 0; j < out; ++j) bias[j] += d[j];
        }
    }
    // dX(s, i) = delta_s . W(:, i): two contiguous spans.
    ML_TINY_LOOPS void inputGradient(const float* delta, const float* p, float* dx) const {
        for (Eigen::Index s = 0; s < batch; ++s, delta += out, dx += in)
            for (Eigen::Index i = 0; i < in; ++i) {
                const float* w = p + i * out;
                float sum = delta[0] * w[0];
                for (Eigen::Index j = 1; j < out; ++j) sum += delta[j] * w[j];
                dx[i] = sum;
            }
    }
};

// m.resize(rows, cols) only when the shape differs: Eigen's resize always checks rows * cols for
// overflow with an integer division, a sizeable part of a tiny layer's pass.
void ensureShape(BatchMatrix& m, Eigen::Index rows, Eigen::Index cols) {
    if (m.rows() != rows || m.cols() != cols) m.resize(rows, cols);
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
    const auto weights = weightsOf(parameters);
    if (isTiny(input.rows(), inputs_, outputs_)) {
        ensureShape(z, input.rows(), outputs_);
        TinyDense{input.rows(), inputs_, outputs_}.affine(input.data(), parameters.data(), z.data());
    } else {
        // [batch x in] * [in x out]: the product shape Eigen runs fastest here (docs/dev/performance.md).
        z.noalias() = input * weights.transpose();
        z.rowwise() += biasOf(parameters).transpose();
    }
    if (activation_ == Activation::Identity) return z;
    applyActivation(activation_, z, buffers.activation);
    return buffers.activation;
}

void DenseLayer::backward(const Matrix& parameters, const BatchMatrix& input, BatchMatrix& outputGradient,
                          Workspace& work, Matrix& parameterGradient, BatchMatrix* inputGradient) const {
    auto& buffers = static_cast<Buffers&>(work);
    BatchMatrix& delta = outputGradient;  // dL/dA, becomes dL/dZ in place
    multiplyByDerivative(activation_, buffers.preActivation, buffers.activation, delta);
    if (isTiny(input.rows(), inputs_, outputs_)) {
        const TinyDense tiny{input.rows(), inputs_, outputs_};
        tiny.parameterGradient(delta.data(), input.data(), parameterGradient.data());
        if (inputGradient) {
            ensureShape(*inputGradient, input.rows(), inputs_);
            tiny.inputGradient(delta.data(), parameters.data(), inputGradient->data());
        }
        return;
    }
    weightsOf(parameterGradient).noalias() = delta.transpose() * input;
    biasOf(parameterGradient) = delta.colwise().sum().transpose();
    if (inputGradient) inputGradient->noalias() = delta * weightsOf(parameters);
}

bool DenseLayer::sampleGradientNormSquares(const BatchMatrix& input, const BatchMatrix& delta,
                                           SampleScratch& /*scratch*/, SampleNormSquares& norms) const {
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
