#include "nn/ConvLayer.h"

#include "Random.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace ml {

namespace {
using RowMajorMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Floats8 = Eigen::Matrix<float, 8, 1>;

// dst[x] = src[x * step] (gather) or dst[x * step] += src[x] (scatter) over one row of a kernel tap.
// Rows are short (W' values: 24 and 8 in the MNIST CNN): 8-float vectors, as Eigen's dynamic-size
// loops would take 16-float AVX-512 vectors and leave most of such a row to their scalar tail.
void copyRow(float* dst, const float* src, int n, int step) {
    int x = 0;
    if (step == 1)
        for (; x + 8 <= n; x += 8) Eigen::Map<Floats8>(dst + x) = Eigen::Map<const Floats8>(src + x);
    for (; x < n; ++x) dst[x] = src[x * step];
}
void addRow(float* dst, const float* src, int n, int step) {
    int x = 0;
    if (step == 1)
        for (; x + 8 <= n; x += 8) Eigen::Map<Floats8>(dst + x) += Eigen::Map<const Floats8>(src + x);
    for (; x < n; ++x) dst[x * step] += src[x];
}

// The direct forward path of a convolution with stride 1 (ConvLayer::directForward), on the
// sample's zero-padded image `image` (`inChannels` planes `planeSize` floats apart, `width` floats a
// row, readable 7 floats past every row's last output). `Channels` output channels x `Vectors`
// vectors of 8 output columns at once: their accumulators stay in registers over all C_in*k*k taps,
// where im2col would write k*k shifted copies of the image and Eigen would copy them once more into
// its packed layout. Each weight broadcast serves `Vectors` products and each pixel load `Channels`
// (8 x 3: 24 of AVX-512's 32 vector registers), so the loads no longer keep pace with the products.
// The output's vectors are numbered row after row (outW / 8 rounded up a row); this call computes
// `Vectors` of them from `firstVector` into `out`: Z, or with `relu` A = max(Z, 0) alone (ReLU's
// derivative needs only A > 0, which is Z > 0; ConvLayer::storesPreActivation).
//   weights: the layer's column-major parameters from the first of these channels (tap t at t*rows)
template <int Channels, int Vectors>
void convolveDirect(const float* image, Eigen::Index planeSize, int inChannels, int width, int kernel, int outW,
                    int firstVector, const float* weights, Eigen::Index rows, const float* bias, float* out, bool relu,
                    Eigen::Index positions) {
    const int perRow = (outW + 7) / 8;
    int inputAt[Vectors], outputAt[Vectors], count[Vectors];
    for (int v = 0; v < Vectors; ++v) {
        const int y = (firstVector + v) / perRow, x0 = (firstVector + v) % perRow * 8;
        inputAt[v] = y * width + x0;
        outputAt[v] = y * outW + x0;
        count[v] = std::min(8, outW - x0);
    }
    Floats8 sums[Channels][Vectors];
    for (int c = 0; c < Channels; ++c)
        for (int v = 0; v < Vectors; ++v) sums[c][v].setConstant(bias[c]);
    const float* tap = weights;  // tap t = (ci*k + ki)*k + kj, PyTorch's [in][kh][kw] order
    for (int ci = 0; ci < inChannels; ++ci)
        for (int ki = 0; ki < kernel; ++ki) {
            const float* row = image + ci * planeSize + ki * width;
            for (int kj = 0; kj < kernel; ++kj, tap += rows) {
                Floats8 pixels[Vectors];
                for (int v = 0; v < Vectors; ++v) pixels[v] = Eigen::Map<const Floats8>(row + inputAt[v] + kj);
                for (int c = 0; c < Channels; ++c) {
                    const float w = tap[c];
                    for (int v = 0; v < Vectors; ++v) sums[c][v] += w * pixels[v];
                }
            }
        }
    for (int c = 0; c < Channels; ++c)
        for (int v = 0; v < Vectors; ++v) {
            const Eigen::Index at = c * positions + outputAt[v];
            const Floats8 value = relu ? sums[c][v].cwiseMax(0.0f) : sums[c][v];
            if (count[v] == 8) Eigen::Map<Floats8>{out + at} = value;
            else std::copy_n(value.data(), count[v], out + at);
        }
}

// Its weight gradient: dW[c, tap] += sum over positions of dZ[c, position] * the tap's pixel there,
// 8 positions a vector, `Channels` channels sharing each load of the image.
//   gradient: the column-major parameter gradient from the first of these channels
template <int Channels>
void correlateOneChannel(const float* image, int width, int kernel, int outH, int outW, const float* dZ,
                         Eigen::Index positions, float* gradient, Eigen::Index rows) {
    const int full = outW / 8 * 8;
    for (int ki = 0; ki < kernel; ++ki)
        for (int kj = 0; kj < kernel; ++kj) {
            Floats8 sums[Channels];
            float tails[Channels] = {};
            for (int c = 0; c < Channels; ++c) sums[c].setZero();
            for (int y = 0; y < outH; ++y) {
                const float* row = image + (y + ki) * width + kj;
                const float* d = dZ + y * outW;
                for (int x0 = 0; x0 < full; x0 += 8) {
                    const Floats8 pixels = Eigen::Map<const Floats8>(row + x0);
                    for (int c = 0; c < Channels; ++c)
                        sums[c] += Eigen::Map<const Floats8>(d + c * positions + x0).cwiseProduct(pixels);
                }
                for (int x = full; x < outW; ++x)
                    for (int c = 0; c < Channels; ++c) tails[c] += d[c * positions + x] * row[x];
            }
            float* tap = gradient + (ki * kernel + kj) * rows;
            for (int c = 0; c < Channels; ++c) tap[c] += sums[c].sum() + tails[c];
        }
}
// Calls call(channels, c) over the output channels: blocks of 8 from c = 0, then one at a time for
// the rest (channels is a std::integral_constant, the direct path's template argument).
template <typename Call>
void inChannelBlocks(Eigen::Index count, Call call) {
    Eigen::Index c = 0;
    for (; c + 8 <= count; c += 8) call(std::integral_constant<int, 8>{}, c);
    for (; c < count; ++c) call(std::integral_constant<int, 1>{}, c);
}
}  // namespace

// One sample at a time: its patches stay in the cache (~60 KB for the MNIST CNN) instead of a whole
// batch's (several MB, slower than the products), and every product reads and writes the layer's
// [batch x C*H*W] rows in place through Maps, with no copy between layouts.
struct ConvLayer::Buffers final : Layer::Workspace {
    RowMajorMatrix patches;      // [C_in*k*k x H'*W']: one sample's patches, row r = one kernel tap
    Matrix patchGradient;        // [H'*W' x C_in*k*k]: their gradient, column r = tap r (same layout)
    BatchMatrix preActivation;   // Z [batch x C_out*H'*W'] when storesPreActivation()
    BatchMatrix activation;      // A = f(Z); unused for Identity
    RowMajorMatrix paddedImage;  // the direct paths: one sample's image with its zero border (paddedImage())
};

ConvLayer::ConvLayer(SampleShape input, const LayerToken& token, Activation activation, bool reluDerivativeByMaxPool)
    : input_(input), output_(token.outputShape(input, true, "conv")), kernel_(token.kernel), stride_(token.stride),
      padding_(token.padding), activation_(activation),
      reluDerivativeByMaxPool_(reluDerivativeByMaxPool && activation == Activation::Relu) {}

void ConvLayer::initializeGlorotUniform(Matrix& parameters, Random& random) const {
    const float fans = static_cast<float>((input_.channels + output_.channels) * kernel_ * kernel_);
    const float limit = std::sqrt(6.0f / fans);
    auto weights = weightsOf(parameters);
    for (Eigen::Index j = 0; j < weights.rows(); ++j)
        for (Eigen::Index i = 0; i < weights.cols(); ++i) weights(j, i) = random.uniform(-limit, limit);
    biasOf(parameters).setZero();
}

std::unique_ptr<Layer::Workspace> ConvLayer::createWorkspace() const { return std::make_unique<Buffers>(); }

ConvLayer::TapWindow ConvLayer::tapWindow(int ki, int kj) const {
    // Output rows oy whose input row oy*s + ki - p lies inside [0, H) (likewise the columns).
    const auto range = [&](int tap, int inSize, int outSize, int& first, int& count) {
        const int last = inSize - 1 + padding_ - tap;  // largest oy*s allowed
        first = padding_ > tap ? (padding_ - tap + stride_ - 1) / stride_ : 0;
        count = last < 0 ? 0 : std::max(0, std::min(outSize, last / stride_ + 1) - first);
    };
    TapWindow window;
    range(ki, input_.height, output_.height, window.outRow, window.rows);
    range(kj, input_.width, output_.width, window.outColumn, window.columns);
    if (window.rows == 0 || window.columns == 0) return {};  // the tap sees only padding
    window.inputOffset = Eigen::Index{window.outRow * stride_ + ki - padding_} * input_.width +
                         (window.outColumn * stride_ + kj - padding_);
    return window;
}

template <class ImageFloat, class PatchFloat, class ApplyRow>
void ConvLayer::forEachTapRow(ImageFloat* image, PatchFloat* patchRows, ApplyRow applyRow) const {
    const Eigen::Index P = positions(), channelSize = Eigen::Index{input_.height} * input_.width;
    const int outW = output_.width, rowStep = input_.width * stride_;
    for (int ki = 0; ki < kernel_; ++ki)
        for (int kj = 0; kj < kernel_; ++kj) {
            const TapWindow w = tapWindow(ki, kj);
            for (int c = 0; c < input_.channels; ++c) {
                const Eigen::Index r = (Eigen::Index{c} * kernel_ + ki) * kernel_ + kj;  // PyTorch's [in][kh][kw]
                PatchFloat* tap = patchRows + r * P;
                if constexpr (!std::is_const_v<PatchFloat>)  // gathering: padding reads as zeros
                    if (w.rows != output_.height || w.columns != outW) std::fill(tap, tap + P, 0.0f);
                PatchFloat* patch = tap + Eigen::Index{w.outRow} * outW + w.outColumn;
                ImageFloat* at = image + c * channelSize + w.inputOffset;
                for (int y = 0; y < w.rows; ++y, patch += outW, at += rowStep) applyRow(patch, at, w.columns);
            }
        }
}

void ConvLayer::gatherPatches(const float* image, float* patches) const {
    forEachTapRow(image, patches, [&](float* patch, const float* at, int n) { copyRow(patch, at, n, stride_); });
}

void ConvLayer::scatterPatches(const Buffers& buffers, float* imageGradient) const {
    forEachTapRow(imageGradient, buffers.patchGradient.data(),
                  [&](const float* patch, float* at, int n) { addRow(at, patch, n, stride_); });
}

int ConvLayer::paddedWidth() const {
    return (output_.width + 7) / 8 * 8 + kernel_ - 1;
}  // >= W + 2p, room for the last vector

bool ConvLayer::directForward() const { return stride_ == 1; }
bool ConvLayer::storesPreActivation() const { return !(directForward() && activation_ == Activation::Relu); }
bool ConvLayer::directWeightGradient() const { return input_.channels == 1 && stride_ == 1; }

const float* ConvLayer::paddedImage(Buffers& buffers, const float* image) const {
    const int width = paddedWidth();
    if (padding_ == 0 && width == input_.width) return image;  // W' a multiple of 8: the image itself will do
    const int height = input_.height + 2 * padding_;
    RowMajorMatrix& padded = buffers.paddedImage;
    if (padded.rows() != input_.channels * height || padded.cols() != width)
        padded.setZero(input_.channels * height, width);  // the border stays zero from here on
    for (int c = 0; c < input_.channels; ++c)
        padded.block(c * height + padding_, padding_, input_.height, input_.width) = Eigen::Map<const RowMajorMatrix>(
            image + Eigen::Index{c} * input_.height * input_.width, input_.height, input_.width);
    return padded.data();
}

const BatchMatrix& ConvLayer::forward(const Matrix& parameters, const BatchMatrix& input, Workspace& work) const {
    auto& buffers = static_cast<Buffers&>(work);  // created by createWorkspace() above
    const Eigen::Index batch = input.rows(), P = positions();
    const bool direct = directForward();
    const bool fusedRelu = !storesPreActivation();
    if (!direct) buffers.patches.resize(patchSize(), P);  // no-ops after the first call
    BatchMatrix& z = buffers.preActivation;
    if (!fusedRelu) z.resize(batch, outputSize());
    if (activation_ != Activation::Identity) buffers.activation.resize(batch, outputSize());
    const auto weights = weightsOf(parameters);
    const auto bias = biasOf(parameters);
    const Eigen::Index C = output_.channels;
    for (Eigen::Index s = 0; s < batch; ++s) {
        if (direct) {
            const float* image = paddedImage(buffers, input.row(s).data());
            const int width = paddedWidth();
            const Eigen::Index planeSize = Eigen::Index{input_.height + 2 * padding_} * width;
            const int vectors = output_.height * ((output_.width + 7) / 8);
            float* out = fusedRelu ? buffers.activation.row(s).data() : z.row(s).data();
            inChannelBlocks(C, [&](auto channels, Eigen::Index c) {
                constexpr int kChannels = decltype(channels)::value;
                const auto block = [&](auto vectorCount, int first) {
                    convolveDirect<kChannels, decltype(vectorCount)::value>(
                        image, planeSize, input_.channels, width, kernel_, output_.width, first, parameters.data() + c,
                        C, bias.data() + c, out + c * P, fusedRelu, P);
                };
                int v = 0;
                for (; v + 3 <= vectors; v += 3) block(std::integral_constant<int, 3>{}, v);
                if (vectors - v == 2) block(std::integral_constant<int, 2>{}, v);  // the rest: 2 vectors or 1
                else if (v < vectors) block(std::integral_constant<int, 1>{}, v);
            });
        } else {
            gatherPatches(input.row(s).data(), buffers.patches.data());
            // Sample s's output row, C_out x H'*W' row-major, is the column-major [H'*W' x C_out] Z_s^T:
            // Z_s^T = patches^T W^T puts the long dimension (positions) where the GEMM kernel wants it.
            Eigen::Map<Matrix> zs(z.row(s).data(), P, output_.channels);
            zs.noalias() = buffers.patches.transpose() * weights.transpose();
            zs.rowwise() += bias.transpose();
        }
        // The activation of this sample while its row is still in the cache (ReLU: by the direct path).
        if (activation_ != Activation::Identity && !fusedRelu)
            applyActivation(activation_, z.row(s).data(), buffers.activation.row(s).data(), outputSize());
    }
    return activation_ == Activation::Identity ? z : buffers.activation;
}

void ConvLayer::backward(const Matrix& parameters, const BatchMatrix& input, BatchMatrix& outputGradient,
                         Workspace& work, Matrix& parameterGradient, BatchMatrix* inputGradient) const {
    auto& buffers = static_cast<Buffers&>(work);
    BatchMatrix& delta = outputGradient;  // dL/dA, becomes dL/dZ in place, sample by sample below
    const Eigen::Index batch = input.rows(), P = positions(), C = output_.channels;
    const bool direct = directWeightGradient();
    if (!direct) buffers.patches.resize(patchSize(), P);
    auto weightGradient = weightsOf(parameterGradient);
    weightGradient.setZero();
    if (inputGradient) {
        buffers.patchGradient.resize(P, patchSize());
        inputGradient->setZero(batch, inputSize());
    }
    const auto weights = weightsOf(parameters);
    auto biasGradient = biasOf(parameterGradient);
    biasGradient.setZero();
    const bool hasActivation = activation_ != Activation::Identity;
    for (Eigen::Index s = 0; s < batch; ++s) {
        if (!reluDerivativeByMaxPool_)
            multiplyByDerivative(
                activation_, (storesPreActivation() ? buffers.preActivation : buffers.activation).row(s).data(),
                hasActivation ? buffers.activation.row(s).data() : nullptr, delta.row(s).data(), outputSize());
        const Eigen::Map<const Matrix> dZt(delta.row(s).data(), P, output_.channels);  // dZ_s^T, as in forward
        if (direct) {
            const float* image = paddedImage(buffers, input.row(s).data());
            const int width = paddedWidth();
            inChannelBlocks(C, [&](auto channels, Eigen::Index c) {
                correlateOneChannel<decltype(channels)::value>(image, width, kernel_, output_.height, output_.width,
                                                               dZt.data() + c * P, P, parameterGradient.data() + c, C);
            });
        } else {
            // The patches again rather than a whole batch's kept from forward: gathering from the input
            // costs less than reading them back from memory (measured: docs/dev/performance.md, Convolutions).
            gatherPatches(input.row(s).data(), buffers.patches.data());
            weightGradient.noalias() += dZt.transpose() * buffers.patches.transpose();  // dW += dZ_s patches^T
        }
        biasGradient += dZt.colwise().sum().transpose();
        if (!inputGradient) continue;
        buffers.patchGradient.noalias() = dZt * weights;  // (W^T dZ_s)^T: [positions x C_in*k*k]
        scatterPatches(buffers, inputGradient->row(s).data());
    }
}

bool ConvLayer::sampleGradientNormSquares(const BatchMatrix& input, const BatchMatrix& delta, SampleScratch& scratch,
                                          SampleNormSquares& norms) const {
    // A sample's kernel gradient is a sum over the output positions, whose norm is no product of
    // norms: each sample's gradient is formed in turn (one weight gradient's cost more).
    BatchMatrix& patches = scratch.patches;  // row-major [C_in*k*k x positions], as buffers.patches
    BatchMatrix& gradient = scratch.sampleGradient;
    const Eigen::Index P = positions();
    if (patches.rows() != patchSize() || patches.cols() != P) patches.resize(patchSize(), P);
    norms.weights.setZero();
    norms.bias.setZero();
    for (Eigen::Index s = 0; s < input.rows(); ++s) {
        gatherPatches(input.row(s).data(), patches.data());
        // dZ of sample s as [C_out x positions]: its row holds channel after channel.
        const Eigen::Map<const BatchMatrix> dZ(delta.row(s).data(), output_.channels, P);
        gradient.noalias() = dZ * patches.transpose();
        norms.weights += gradient.rowwise().squaredNorm().array();
        norms.bias += dZ.rowwise().sum().array().square();
    }
    return true;
}

}  // namespace ml
