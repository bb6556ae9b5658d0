#pragma once
// A data set as the trainer sees it: a number of samples that can be gathered into a batch.
// Inputs are always float32 rows ([batch x inputs]); targets are either float regression values
// ([batch x outputs]) or class indices.
#include "Tensor.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace ml {

// One mini-batch. Sample i is row i of `inputs`; for regression row i of `targets`, for
// classification labels(i). Buffers are reused between steps: gather() only resizes.
struct Batch {
    BatchMatrix inputs;      // [batch x inputDim]
    BatchMatrix targets;     // [batch x outputDim], regression only (empty for classification)
    Eigen::VectorXi labels;  // [batch], classification only (empty for regression)
    Eigen::Index size() const { return inputs.rows(); }
};

struct ImageShape {
    int height = 0;
    int width = 0;
    bool valid() const { return height > 0 && width > 0; }
};

class Dataset {
public:
    virtual ~Dataset() = default;
    virtual Eigen::Index size() const = 0;
    virtual int inputDim() const = 0;
    // Regression: number of target columns. Classification: number of classes.
    virtual int outputDim() const = 0;
    virtual bool isClassification() const = 0;
    // Copies the samples `indices` into `batch` (resizing its buffers, reusing capacity).
    virtual void gather(std::span<const Eigen::Index> indices, Batch& batch) const = 0;
    // For image data sets: the image size of an input row (row-major pixels); invalid otherwise.
    virtual ImageShape imageShape() const { return {}; }
    // A new data set of the samples `indices` (in that order), of the same kind.
    virtual std::shared_ptr<const Dataset> select(std::span<const Eigen::Index> indices) const = 0;
};

// The two halves of a loaded data set, plus what the user asked for (for config.json).
struct DataSplit {
    std::string spec;  // e.g. "toy:sine", "csv:/path/file.csv", "mnist"
    std::shared_ptr<const Dataset> train;
    std::shared_ptr<const Dataset> test;
};

}  // namespace ml
