#include "ImageDataset.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace ml {

ImageDataset::ImageDataset(std::vector<std::uint8_t> pixels, std::vector<std::uint8_t> labels, ImageShape shape,
                           int numClasses, float scale)
    : pixels_(std::move(pixels)), labels_(std::move(labels)), shape_(shape), numClasses_(numClasses), scale_(scale) {
    if (!shape_.valid() || numClasses_ < 1 || numClasses_ > 256)
        throw std::invalid_argument("ImageDataset: invalid image shape or class count");
    if (pixels_.size() != labels_.size() * static_cast<std::size_t>(inputDim()))
        throw std::invalid_argument("ImageDataset: pixel buffer does not match images x shape");
    if (std::any_of(labels_.begin(), labels_.end(), [&](std::uint8_t l) { return l >= numClasses_; }))
        throw std::invalid_argument("ImageDataset: label outside [0, numClasses)");
}

void ImageDataset::gather(std::span<const Eigen::Index> indices, Batch& batch) const {
    using PixelRow = Eigen::Map<const Eigen::Matrix<std::uint8_t, 1, Eigen::Dynamic>>;
    const auto n = static_cast<Eigen::Index>(indices.size());
    const Eigen::Index dim = inputDim();
    batch.inputs.resize(n, dim);
    batch.labels.resize(n);
    batch.targets.resize(0, 0);
    for (Eigen::Index i = 0; i < n; ++i) {
        const Eigen::Index s = indices[static_cast<std::size_t>(i)];
        if (s < 0 || s >= size()) throw std::out_of_range("ImageDataset::gather: sample index out of range");
        batch.inputs.row(i) = PixelRow(pixels_.data() + s * dim, dim).cast<float>() * scale_;
        batch.labels(i) = labels_[static_cast<std::size_t>(s)];
    }
}

ImageDataset ImageDataset::subset(std::span<const Eigen::Index> indices) const {
    const std::size_t dim = static_cast<std::size_t>(inputDim());
    std::vector<std::uint8_t> pixels(indices.size() * dim);
    std::vector<std::uint8_t> labels(indices.size());
    for (std::size_t i = 0; i < indices.size(); ++i) {
        const Eigen::Index s = indices[i];
        if (s < 0 || s >= size()) throw std::out_of_range("ImageDataset::subset: sample index out of range");
        std::memcpy(pixels.data() + i * dim, pixels_.data() + static_cast<std::size_t>(s) * dim, dim);
        labels[i] = labels_[static_cast<std::size_t>(s)];
    }
    return ImageDataset(std::move(pixels), std::move(labels), shape_, numClasses_, scale_);
}

}  // namespace ml
