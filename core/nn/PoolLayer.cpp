#include "nn/PoolLayer.h"

#include <cstdint>
#include <limits>

namespace ml {

struct PoolLayer::Buffers final : Layer::Workspace {
    BatchMatrix output;  // [batch x C*H'*W']
    // max: the offset, within its sample's row, of the input each output took (int: half the memory traffic)
    Eigen::Matrix<std::int32_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> chosen;
};

PoolLayer::PoolLayer(SampleShape input, int kernel, Kind kind)
    : input_(input), output_{input.channels, input.height / kernel, input.width / kernel}, kernel_(kernel), kind_(kind) {}

std::unique_ptr<Layer::Workspace> PoolLayer::createWorkspace() const { return std::make_unique<Buffers>(); }

bool PoolLayer::windowsCoverInput() const {
    return input_.height == output_.height * kernel_ && input_.width == output_.width * kernel_;
}

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
                if (kind_ == Kind::Max && kernel_ == 2) {  // the common case, unrolled (same order and ties)
                    for (int ox = 0; ox < output_.width; ++ox, ++o) {
                        const int at = rowCorner + 2 * ox;
                        const int candidates[4] = {at, at + 1, at + W, at + W + 1};
                        float best = -std::numeric_limits<float>::infinity();
                        int where = at;
                        for (const int candidate : candidates) {
                            const bool larger = x[candidate] > best;
                            best = larger ? x[candidate] : best;
                            where = larger ? candidate : where;
                        }
                        y[o] = best;
                        chosen[o] = where;
                    }
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
    // Windows that tile the input write every input gradient below; otherwise the inputs no window
    // reads (a last row or column) keep zero.
    if (windowsCoverInput()) inputGradient->resize(batch, inputSize());
    else inputGradient->setZero(batch, inputSize());
    const float share = 1.0f / static_cast<float>(kernel_ * kernel_);
    const int W = input_.width;
    for (Eigen::Index b = 0; b < batch; ++b) {
        const float* g = outputGradient.row(b).data();
        float* gx = inputGradient->row(b).data();
        const std::int32_t* chosen = kind_ == Kind::Max ? buffers.chosen.row(b).data() : nullptr;
        Eigen::Index o = 0;
        for (int c = 0; c < output_.channels; ++c)
            for (int oy = 0; oy < output_.height; ++oy) {
                const int rowCorner = (c * input_.height + oy * kernel_) * W;
                if (kind_ == Kind::Max && kernel_ == 2) {  // the common case, without branches
                    for (int ox = 0; ox < output_.width; ++ox, ++o) {
                        const int at = rowCorner + 2 * ox;
                        for (const int candidate : {at, at + 1, at + W, at + W + 1})
                            gx[candidate] = chosen[o] == candidate ? g[o] : 0.0f;
                    }
                    continue;
                }
                for (int ox = 0; ox < output_.width; ++ox, ++o) {
                    const int corner = rowCorner + ox * kernel_;
                    const float value = kind_ == Kind::Max ? 0.0f : g[o] * share;
                    for (int i = 0; i < kernel_; ++i)
                        for (int j = 0; j < kernel_; ++j) gx[corner + i * W + j] = value;
                    if (kind_ == Kind::Max) gx[chosen[o]] = g[o];  // the maximum takes it all
                }
            }
    }
}

}  // namespace ml
