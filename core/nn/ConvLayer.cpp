#include "nn/ConvLayer.h"

#include "Random.h"

#include <algorithm>
#include <cmath>

namespace ml {

namespace {
using RowMajorMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
constexpr Eigen::Index kPatchBudget = Eigen::Index{1} << 22;  // floats in one im2col block
}  // namespace

struct ConvLayer::Buffers final : Layer::Workspace {
    RowMajorMatrix columns;         // [C_in*k*k x block*positions]: the patches, one column per position
    RowMajorMatrix blockOutput;     // [C_out x block*positions]: W * columns
    RowMajorMatrix blockGradient;   // dZ of a block in the same layout
    RowMajorMatrix columnGradient;  // W^T dZ: the patches' gradient
    BatchMatrix preActivation;      // Z [batch x C_out*H'*W']
    BatchMatrix activation;         // A = f(Z); unused for Identity
    Eigen::Index patchesFirst = -1;  // the samples whose patches `columns` holds
    Eigen::Index patchesCount = 0;
};

ConvLayer::ConvLayer(SampleShape input, const LayerToken& token, Activation activation)
    : input_(input), output_(token.outputShape(input, true, "conv")), kernel_(token.kernel), stride_(token.stride),
      padding_(token.padding), activation_(activation) {}

void ConvLayer::initializeGlorotUniform(Matrix& parameters, Random& random) const {
    const float fans = static_cast<float>((input_.channels + output_.channels) * kernel_ * kernel_);
    const float limit = std::sqrt(6.0f / fans);
    auto weights = weightsOf(parameters);
    for (Eigen::Index j = 0; j < weights.rows(); ++j)
        for (Eigen::Index i = 0; i < weights.cols(); ++i) weights(j, i) = random.uniform(-limit, limit);
    biasOf(parameters).setZero();
}

std::unique_ptr<Layer::Workspace> ConvLayer::createWorkspace() const { return std::make_unique<Buffers>(); }

Eigen::Index ConvLayer::blockSamples() const { return std::max<Eigen::Index>(1, kPatchBudget / (patchSize() * positions())); }

void ConvLayer::gatherPatches(const BatchMatrix& input, Eigen::Index first, Eigen::Index count, BatchMatrix& columns) const {
    const Eigen::Index P = positions();
    const int H = input_.height, W = input_.width, outH = output_.height, outW = output_.width;
    for (Eigen::Index s = 0; s < count; ++s) {
        const float* x = input.row(first + s).data();
        Eigen::Index r = 0;
        for (int c = 0; c < input_.channels; ++c)
            for (int ki = 0; ki < kernel_; ++ki)
                for (int kj = 0; kj < kernel_; ++kj, ++r) {
                    float* out = &columns(r, s * P);
                    for (int oy = 0; oy < outH; ++oy, out += outW) {
                        const int iy = oy * stride_ + ki - padding_;
                        if (iy < 0 || iy >= H) {
                            std::fill(out, out + outW, 0.0f);
                            continue;
                        }
                        const float* row = x + (static_cast<Eigen::Index>(c) * H + iy) * W;
                        if (stride_ == 1) {  // a shifted copy of the input row, zeros where it is padding
                            const int shift = kj - padding_, lo = std::clamp(-shift, 0, outW),
                                      hi = std::clamp(W - shift, lo, outW);
                            std::fill(out, out + lo, 0.0f);
                            std::copy(row + lo + shift, row + hi + shift, out + lo);
                            std::fill(out + hi, out + outW, 0.0f);
                            continue;
                        }
                        for (int ox = 0; ox < outW; ++ox) {
                            const int ix = ox * stride_ + kj - padding_;
                            out[ox] = ix >= 0 && ix < W ? row[ix] : 0.0f;
                        }
                    }
                }
    }
}

void ConvLayer::scatterPatches(const Buffers& buffers, Eigen::Index first, Eigen::Index count,
                               BatchMatrix& inputGradient) const {
    const Eigen::Index P = positions();
    const int H = input_.height, W = input_.width, outH = output_.height, outW = output_.width;
    for (Eigen::Index s = 0; s < count; ++s) {
        float* gx = inputGradient.row(first + s).data();
        Eigen::Index r = 0;
        for (int c = 0; c < input_.channels; ++c)
            for (int ki = 0; ki < kernel_; ++ki)
                for (int kj = 0; kj < kernel_; ++kj, ++r) {
                    const float* g = &buffers.columnGradient(r, s * P);
                    for (int oy = 0; oy < outH; ++oy, g += outW) {
                        const int iy = oy * stride_ + ki - padding_;
                        if (iy < 0 || iy >= H) continue;
                        float* row = gx + (static_cast<Eigen::Index>(c) * H + iy) * W;
                        if (stride_ == 1) {  // the adjoint of the shifted copy above
                            const int shift = kj - padding_, lo = std::clamp(-shift, 0, outW),
                                      hi = std::clamp(W - shift, lo, outW);
                            for (int ox = lo; ox < hi; ++ox) row[ox + shift] += g[ox];
                            continue;
                        }
                        for (int ox = 0; ox < outW; ++ox) {
                            const int ix = ox * stride_ + kj - padding_;
                            if (ix >= 0 && ix < W) row[ix] += g[ox];
                        }
                    }
                }
    }
}

const BatchMatrix& ConvLayer::forward(const Matrix& parameters, const BatchMatrix& input, Workspace& work) const {
    auto& buffers = static_cast<Buffers&>(work);  // created by createWorkspace() above
    const Eigen::Index batch = input.rows(), P = positions(), block = std::min(blockSamples(), batch);
    // Sized for the largest block once; smaller blocks use the left columns (a resize would allocate).
    if (buffers.columns.cols() < block * P) {
        buffers.columns.resize(patchSize(), block * P);
        buffers.blockOutput.resize(output_.channels, block * P);
    }
    BatchMatrix& z = buffers.preActivation;
    z.resize(batch, outputSize());
    const auto weights = weightsOf(parameters);
    const auto bias = biasOf(parameters);
    for (Eigen::Index first = 0; first < batch; first += block) {
        const Eigen::Index count = std::min(block, batch - first);
        gatherPatches(input, first, count, buffers.columns);
        buffers.patchesFirst = first;
        buffers.patchesCount = count;
        buffers.blockOutput.leftCols(count * P).noalias() = weights * buffers.columns.leftCols(count * P);
        for (Eigen::Index s = 0; s < count; ++s)
            for (Eigen::Index o = 0; o < output_.channels; ++o)
                z.row(first + s).segment(o * P, P) = buffers.blockOutput.row(o).segment(s * P, P).array() + bias(o);
    }
    if (activation_ == Activation::Identity) return z;
    applyActivation(activation_, z, buffers.activation);
    return buffers.activation;
}

void ConvLayer::backward(const Matrix& parameters, const BatchMatrix& input, BatchMatrix& outputGradient,
                         Workspace& work, Matrix& parameterGradient, BatchMatrix* inputGradient) const {
    auto& buffers = static_cast<Buffers&>(work);
    BatchMatrix& delta = outputGradient;  // dL/dA, becomes dL/dZ in place
    multiplyByDerivative(activation_, buffers.preActivation, buffers.activation, delta);
    const Eigen::Index batch = input.rows(), P = positions(), block = std::min(blockSamples(), batch);
    if (buffers.blockGradient.cols() < block * P) buffers.blockGradient.resize(output_.channels, block * P);
    if (inputGradient) {
        if (buffers.columnGradient.cols() < block * P) buffers.columnGradient.resize(patchSize(), block * P);
        inputGradient->setZero(batch, inputSize());
    }
    auto weightGradient = weightsOf(parameterGradient);
    auto biasGradient = biasOf(parameterGradient);
    weightGradient.setZero();
    biasGradient.setZero();
    for (Eigen::Index first = 0; first < batch; first += block) {
        const Eigen::Index count = std::min(block, batch - first);
        // A batch in one block still has its patches from forward.
        if (buffers.patchesFirst != first || buffers.patchesCount != count) {
            gatherPatches(input, first, count, buffers.columns);
            buffers.patchesFirst = first;
            buffers.patchesCount = count;
        }
        auto dZ = buffers.blockGradient.leftCols(count * P);
        for (Eigen::Index s = 0; s < count; ++s)
            for (Eigen::Index o = 0; o < output_.channels; ++o)
                dZ.row(o).segment(s * P, P) = delta.row(first + s).segment(o * P, P);
        const auto columns = buffers.columns.leftCols(count * P);
        weightGradient.noalias() += dZ * columns.transpose();
        biasGradient += dZ.rowwise().sum();
        if (!inputGradient) continue;
        buffers.columnGradient.leftCols(count * P).noalias() = weightsOf(parameters).transpose() * dZ;
        scatterPatches(buffers, first, count, *inputGradient);
    }
    buffers.patchesFirst = -1;  // the next forward may bring other samples
}

bool ConvLayer::sampleGradientSquares(const BatchMatrix& input, const BatchMatrix& delta, SampleScratch& scratch,
                                      Matrix& squares) const {
    // The dense layer's two scratch matrices serve here as one sample's patches and gradient.
    BatchMatrix& patches = scratch.inputSquares;
    BatchMatrix& gradient = scratch.deltaSquares;
    const Eigen::Index P = positions();
    if (patches.rows() != patchSize() || patches.cols() != P) patches.resize(patchSize(), P);
    squares.setZero();
    auto weightSquares = weightsOf(squares);
    auto biasSquares = biasOf(squares);
    for (Eigen::Index s = 0; s < input.rows(); ++s) {
        gatherPatches(input, s, 1, patches);
        // dZ of sample s as [C_out x positions]: its row holds channel after channel.
        const Eigen::Map<const BatchMatrix> dZ(delta.row(s).data(), output_.channels, P);
        gradient.noalias() = dZ * patches.transpose();
        weightSquares += gradient.array().square().matrix();
        biasSquares += dZ.rowwise().sum().array().square().matrix();
    }
    return true;
}

}  // namespace ml
