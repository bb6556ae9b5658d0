#pragma once
// Labelled grey-scale images kept as uint8 in one contiguous buffer (70,000 Fashion-MNIST images
// take 55 MB instead of 220 MB as floats); pixels become float32 = pixel * scale when gathered.
#include "Dataset.h"

#include <cstdint>
#include <vector>

namespace ml {

class ImageDataset final : public Dataset {
public:
    // pixels: size() images of shape.height * shape.width bytes each, row-major, one after the
    // other; labels in [0, numClasses). Throws std::invalid_argument if the sizes do not fit.
    ImageDataset(std::vector<std::uint8_t> pixels, std::vector<std::uint8_t> labels, ImageShape shape, int numClasses,
                 float scale);

    Eigen::Index size() const override { return static_cast<Eigen::Index>(labels_.size()); }
    int inputDim() const override { return shape_.height * shape_.width; }
    int outputDim() const override { return numClasses_; }
    bool isClassification() const override { return true; }
    void gather(std::span<const Eigen::Index> indices, Batch& batch) const override;
    ImageShape imageShape() const override { return shape_; }

    std::shared_ptr<const Dataset> select(std::span<const Eigen::Index> indices) const override {
        return std::make_shared<ImageDataset>(subset(indices));
    }
    // A new data set of the images `indices` (in that order).
    ImageDataset subset(std::span<const Eigen::Index> indices) const;

    std::span<const std::uint8_t> pixels() const { return pixels_; }
    std::span<const std::uint8_t> labels() const { return labels_; }
    float scale() const { return scale_; }

private:
    std::vector<std::uint8_t> pixels_;
    std::vector<std::uint8_t> labels_;
    ImageShape shape_;
    int numClasses_;
    float scale_;
};

}  // namespace ml
