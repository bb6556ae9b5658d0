#include "nn/PoolLayer.h"

#include <cstdint>
#include <limits>

namespace ml {

namespace {

// One row of 2x2 windows of max pooling: the top row `top` (the bottom one `width` further), `count`
// windows, the offset of `top` in its sample `at`. Takes the first maximum in row order (a, b, c, d)
// as the general loop does, for numbers: the earlier of each row's pair, then the top row on ties.
// Branch-free selects, which the compiler turns into vector code (PoolLayer.cpp is compiled with
// -fno-trapping-math: no floating-point exception flags to keep, CMakeLists.txt).
void maxPool2x2Row(const float* __restrict top, int width, int count, int at, float* __restrict out,
                   std::int32_t* __restrict taken) {
    const float* __restrict bottom = top + width;
    for (int ox = 0; ox < count; ++ox) {
        const float a = top[2 * ox], b = top[2 * ox + 1], c = bottom[2 * ox], d = bottom[2 * ox + 1];
        const bool right = b > a, lowerRight = d > c;
        const float upper = right ? b : a, lower = lowerRight ? d : c;
        const bool below = lower > upper;
        out[ox] = below ? lower : upper;
        taken[ox] = at + 2 * ox + (below ? width + lowerRight : int{right});
    }
}

}  // namespace

struct PoolLayer::Buffers final : Layer::Workspace {
    BatchMatrix output;  // [batch x C*H'*W']
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
    for (Eigen::Index b = 0; b < batch; ++b) {
        const float* x = input.row(b).data();
        float* y = buffers.output.row(b).data();
        std::int32_t* chosen = kind_ == Kind::Max ? buffers.chosen.row(b).data() : nullptr;
        Eigen::Index o = 0;
        for (int c = 0; c < output_.channels; ++c)
            for (int oy = 0; oy < output_.height; ++oy) {
                const int rowCorner = (c * input_.height + oy * kernel_) * W;
                if (kind_ == Kind::Max && kernel_ == 2) {  // the common case, vectorised
                    maxPool2x2Row(x + rowCorner, W, output_.width, rowCorner, y + o, chosen + o);
                    o += output_.width;
                    continue;
                }
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

void PoolLayer::backward(const Matrix&, const BatchMatrix& input, BatchMatrix& outputGradient, Workspace& work,
                         Matrix&, BatchMatrix* inputGradient) const {
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
                    const Eigen::Index corner = (Eigen::Index{c} * input_.height + oy * kernel_) * input_.width + ox * kernel_;
                    for (int i = 0; i < kernel_; ++i)
                        for (int j = 0; j < kernel_; ++j) gx[corner + Eigen::Index{i} * input_.width + j] += g[o] * share;
                }
    }
}

}  // namespace ml
