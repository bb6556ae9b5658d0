#include "views/KernelGrid.h"

#include <cmath>

namespace ml {

KernelGrid::KernelGrid(int outputs, int inputs, int kernel, bool withBias)
    : outputs_(outputs), inputs_(inputs), kernel_(kernel), withBias_(withBias) {}

Matrix KernelGrid::image(const Matrix& values) const {
    Matrix pixels = Matrix::Constant(height(), width(), NAN);
    for (int y = 0; y < height(); ++y)
        for (int x = 0; x < width(); ++x)
            if (const auto source = sourceOf(x, y)) pixels(y, x) = values(source->first, source->second);
    return pixels;
}

std::optional<std::pair<int, int>> KernelGrid::sourceOf(int x, int y) const {
    if (x < 0 || y < 0 || x >= width() || y >= height() || y % pitch() == kernel_) return std::nullopt;
    const int row = y / pitch(), kernelRow = y % pitch();
    if (x == biasX()) return std::make_pair(row, inputs_ * kernel_ * kernel_);
    const int input = x / pitch(), kernelColumn = x % pitch();
    if (kernelColumn == kernel_ || input >= inputs_) return std::nullopt;
    return std::make_pair(row, (input * kernel_ + kernelRow) * kernel_ + kernelColumn);
}

}  // namespace ml
