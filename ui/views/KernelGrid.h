#pragma once
// A conv layer's matrix [out x (in*k*k + 1)] (row o = output channel o's kernels in PyTorch's
// [in][kh][kw] order, then its bias) laid out as ONE image for the heat-map: out rows by in
// columns of k×k kernels, a one-pixel gap (NaN, drawn grey) between kernels, and optionally the
// bias as one more column after a gap (each channel's k rows hold its bias).
//
// Public API
//   KernelGrid(outputs, inputs, kernel, withBias)
//   width(), height()           the image's size in pixels
//   image(values)               [height x width] pixels, NaN in the gaps
//   sourceOf(x, y)              the (row, column) of `values` behind pixel (x, y); nullopt in a gap
//   kernelCenter(i)             the pixel coordinate of kernel row/column i's centre (for ticks)
//   biasX()                     the bias column's x (-1 without it)
#include "Tensor.h"

#include <optional>
#include <utility>

namespace ml {

class KernelGrid {
public:
    KernelGrid(int outputs, int inputs, int kernel, bool withBias);

    int width() const { return withBias_ ? inputs_ * pitch() + 1 : inputs_ * pitch() - 1; }
    int height() const { return outputs_ * pitch() - 1; }
    int outputs() const { return outputs_; }
    int inputs() const { return inputs_; }
    int kernel() const { return kernel_; }
    Matrix image(const Matrix& values) const;
    std::optional<std::pair<int, int>> sourceOf(int x, int y) const;
    double kernelCenter(int index) const { return index * pitch() + (kernel_ - 1) / 2.0; }
    int biasX() const { return withBias_ ? inputs_ * pitch() : -1; }

private:
    int pitch() const { return kernel_ + 1; }  // a kernel and its gap

    int outputs_;
    int inputs_;
    int kernel_;
    bool withBias_;
};

}  // namespace ml
