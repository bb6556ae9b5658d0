#pragma once
// A data set gathered once into float batches of at most kChunkSize samples, in sample order.
// Evaluating reads these instead of gathering again, so every evaluation of every run of a
// comparison shares one conversion (uint8 images -> float used to be redone for each of them).
// Costs the data set's size in floats (MNIST's 70,000 images: 220 MB).
#include "Dataset.h"

#include <span>
#include <vector>

namespace ml {

class EvaluationChunks {
public:
    static constexpr Eigen::Index kChunkSize = 1024;  // bounds the evaluation pass's buffers

    explicit EvaluationChunks(const Dataset& data);

    std::span<const Batch> chunks() const { return chunks_; }
    Eigen::Index size() const { return size_; }
    bool isClassification() const { return classification_; }

private:
    std::vector<Batch> chunks_;
    Eigen::Index size_ = 0;
    bool classification_ = false;
};

}  // namespace ml
