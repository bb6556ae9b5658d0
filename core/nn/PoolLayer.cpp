#include "nn/PoolLayer.h"

#include <cstdint>
#include <limits>

namespace ml {

namespace {

// 2x2 max pooling in two passes over a sample, each a plain loop the compiler vectorises (branch-free
// selects; PoolLayer.cpp is compiled with -fno-trapping-math: no floating-point exception flags to
// keep, CMakeLists.txt). Rows of 24 or 8 values, as in the MNIST CNN, leave a one-pass loop per
// row of windows mostly to its scalar tail; the first pass here runs over a whole sample at once.
// The first maximum in row order (a, b / c, d), as the general loop: the earlier of each row's
// pair, then the top row on ties.
// Pass 1: each horizontal pair's larger value and the offset of the first maximum in its sample
// (`at` the pair run's first offset): `pairs` consecutive pairs of `x`.
void maxOfPairs(const float* __restrict x, int pairs, int at, float* __restrict larger,
                std::int32_t* __restrict taken) {
    for (int i = 0; i < pairs; ++i) {
        const float a = x[2 * i], b = x[2 * i + 1];
        const bool right = b > a;
        larger[i] = right ? b : a;
        taken[i] = at + 2 * i + int{right};
    }
}
// Pass 2: the larger of a window's upper and lower pair maxima (`count` windows a row), the upper on ties.
void maxOfRowPairs(const float* __restrict upper, const std::int32_t* __restrict upperAt, int count,
                   float* __restrict out, std::int32_t* __restrict taken) {
    const float* __restrict lower = upper + count;
    const std::int32_t* __restrict lowerAt = upperAt + count;
    for (int ox = 0; ox < count; ++ox) {
        const bool below = lower[ox] > upper[ox];
        out[ox] = below ? lower[ox] : upper[ox];
        taken[ox] = below ? lowerAt[ox] : upperAt[ox];
    }
}

}  // namespace

struct PoolLayer::Buffers final : Layer::Workspace {
    BatchMatrix output;  // [batch x C*H'*W']
    // 2x2 max: one sample's pair maxima and their offsets, [C*H x W'] (the first pass)
    Eigen::VectorXf pairMaxima;
    Eigen::Matrix<std::int32_t, Eigen::Dynamic, 1> pairTaken;
    // max: the offset, within its sample's row, of the input each output took (int: half the memory traffic)
    Eigen::Matrix<std::int32_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> chosen;
};

PoolLayer::PoolLayer(SampleShape input, int kernel, Kind kind, bool reluInput)
    : input_(input), output_{input.channels, input.height / kernel, input.width / kernel}, kernel_(kernel), kind_(kind),
      reluInput_(reluInput && kind == Kind::Max) {}

std::unique_ptr<Layer::Workspace> PoolLayer::createWorkspace() const { return std::make_unique<Buffers>(); }

const BatchMatrix& PoolLayer::forward(const Matrix&, const BatchMatrix& input, Workspace& work) const {
    auto& buffers = static_cast<Buffers&>(work);
    const Eigen::Index batch = input.rows();
    buffers.output.resize(batch, outputSize());
    if (kind_ == Kind::Max) buffers.chosen.resize(batch, outputSize());
    const float area = static_cast<float>(kernel_ * kernel_);
    const int W = input_.width;
    if (kind_ == Kind::Max && kernel_ == 2) {  // the common case, vectorised
        maxPool2x2(input, buffers);
        return buffers.output;
    }
    for (Eigen::Index b = 0; b < batch; ++b) {
        const float* x = input.row(b).data();
        float* y = buffers.output.row(b).data();
        std::int32_t* chosen = kind_ == Kind::Max ? buffers.chosen.row(b).data() : nullptr;
        Eigen::Index o = 0;
        for (int c = 0; c < output_.channels; ++c)
            for (int oy = 0; oy < output_.height; ++oy) {
                const int rowCorner = (c * input_.height + oy * kernel_) * W;
                for (int ox = 0; ox < output_.width; ++ox, ++o) {
                    const int corner = rowCorner + ox * kernel_;
                    float best = -std::numeric_limits<float>::infinity(), sum = 0.0f;
                    int where = corner;
                    for (int i = 0; i < kernel_; ++i)
                        for (int j = 0; j < kernel_; ++j) {
                            const int at = corner + i * W + j;
                            sum += x[at];
                            if (x[at] > best) {
                                best = x[at];
                                where = at;
                            }
                        }
                    if (kind_ == Kind::Max) {
                        y[o] = best;
                        chosen[o] = where;
                    } else {
                        y[o] = sum / area;
                    }
                }
            }
    }
    return buffers.output;
}

void PoolLayer::maxPool2x2(const BatchMatrix& input, Buffers& buffers) const {
    const int W = input_.width, outW = output_.width, rows = input_.channels * input_.height;
    buffers.pairMaxima.resize(Eigen::Index{rows} * outW);
    buffers.pairTaken.resize(Eigen::Index{rows} * outW);
    float* larger = buffers.pairMaxima.data();
    std::int32_t* taken = buffers.pairTaken.data();
    for (Eigen::Index b = 0; b < input.rows(); ++b) {
        const float* x = input.row(b).data();
        if (W == 2 * outW) {
            maxOfPairs(x, rows * outW, 0, larger, taken);  // even rows: the whole sample is one run of pairs
        } else {
            for (int r = 0; r < rows; ++r) maxOfPairs(x + r * W, outW, r * W, larger + r * outW, taken + r * outW);
        }
        float* y = buffers.output.row(b).data();
        std::int32_t* chosen = buffers.chosen.row(b).data();
        for (int c = 0; c < output_.channels; ++c)
            for (int oy = 0; oy < output_.height; ++oy) {
                const Eigen::Index upper = (Eigen::Index{c} * input_.height + 2 * oy) * outW;
                const Eigen::Index o = (Eigen::Index{c} * output_.height + oy) * outW;
                maxOfRowPairs(larger + upper, taken + upper, outW, y + o, chosen + o);
            }
    }
}

void PoolLayer::backward(const Matrix&, const BatchMatrix& input, BatchMatrix& outputGradient, Workspace& work, Matrix&,
                         BatchMatrix* inputGradient) const {
    if (!inputGradient) return;  // nothing to learn here
    auto& buffers = static_cast<Buffers&>(work);
    const Eigen::Index batch = input.rows();
    inputGradient->setZero(batch, inputSize());  // a zero fill and a scatter: faster than writing each window
    const float share = 1.0f / static_cast<float>(kernel_ * kernel_);
    for (Eigen::Index b = 0; b < batch; ++b) {
        const float* g = outputGradient.row(b).data();
        float* gx = inputGradient->row(b).data();
        if (kind_ == Kind::Max) {
            const std::int32_t* chosen = buffers.chosen.row(b).data();
            const float* y = buffers.output.row(b).data();
            if (reluInput_)
                for (Eigen::Index o = 0; o < outputSize(); ++o) gx[chosen[o]] = y[o] > 0.0f ? g[o] : 0.0f;
            else
                for (Eigen::Index o = 0; o < outputSize(); ++o) gx[chosen[o]] = g[o];  // windows do not overlap
            continue;
        }
        Eigen::Index o = 0;
        for (int c = 0; c < output_.channels; ++c)
            for (int oy = 0; oy < output_.height; ++oy)
                for (int ox = 0; ox < output_.width; ++ox, ++o) {
                    const Eigen::Index corner =
                        (Eigen::Index{c} * input_.height + oy * kernel_) * input_.width + ox * kernel_;
                    for (int i = 0; i < kernel_; ++i)
                        for (int j = 0; j < kernel_; ++j)
                            gx[corner + Eigen::Index{i} * input_.width + j] += g[o] * share;
                }
    }
}

}  // namespace ml
