#include "nn/PoolLayer.h"

#include <limits>

namespace ml {

struct PoolLayer::Buffers final : Layer::Workspace {
    BatchMatrix output;  // [batch x C*H'*W']
    Eigen::Matrix<Eigen::Index, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> chosen;  // max: the input index of each output
};

PoolLayer::PoolLayer(SampleShape input, int kernel, Kind kind)
    : input_(input), output_{input.channels, input.height / kernel, input.width / kernel}, kernel_(kernel), kind_(kind) {}

std::unique_ptr<Layer::Workspace> PoolLayer::createWorkspace() const { return std::make_unique<Buffers>(); }

const BatchMatrix& PoolLayer::forward(const Matrix&, const BatchMatrix& input, Workspace& work) const {
    auto& buffers = static_cast<Buffers&>(work);
    const Eigen::Index batch = input.rows();
    buffers.output.resize(batch, outputSize());
    if (kind_ == Kind::Max) buffers.chosen.resize(batch, outputSize());
    const float area = static_cast<float>(kernel_ * kernel_);
    for (Eigen::Index b = 0; b < batch; ++b) {
        const float* x = input.row(b).data();
        float* y = buffers.output.row(b).data();
        Eigen::Index o = 0;
        for (int c = 0; c < output_.channels; ++c)
            for (int oy = 0; oy < output_.height; ++oy)
                for (int ox = 0; ox < output_.width; ++ox, ++o) {
                    const Eigen::Index corner = (Eigen::Index{c} * input_.height + oy * kernel_) * input_.width + ox * kernel_;
                    float best = -std::numeric_limits<float>::infinity(), sum = 0.0f;
                    Eigen::Index where = corner;
                    for (int i = 0; i < kernel_; ++i)
                        for (int j = 0; j < kernel_; ++j) {
                            const Eigen::Index at = corner + Eigen::Index{i} * input_.width + j;
                            sum += x[at];
                            if (x[at] > best) {
                                best = x[at];
                                where = at;
                            }
                        }
                    if (kind_ == Kind::Max) {
                        y[o] = best;
                        buffers.chosen(b, o) = where;
                    } else {
                        y[o] = sum / area;
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
    inputGradient->setZero(batch, inputSize());
    const float share = 1.0f / static_cast<float>(kernel_ * kernel_);
    for (Eigen::Index b = 0; b < batch; ++b) {
        const float* g = outputGradient.row(b).data();
        float* gx = inputGradient->row(b).data();
        if (kind_ == Kind::Max) {
            for (Eigen::Index o = 0; o < outputSize(); ++o) gx[buffers.chosen(b, o)] += g[o];
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
