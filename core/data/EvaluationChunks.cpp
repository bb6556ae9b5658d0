#include "EvaluationChunks.h"

#include <algorithm>
#include <numeric>

namespace ml {

EvaluationChunks::EvaluationChunks(const Dataset& data) : size_(data.size()), classification_(data.isClassification()) {
    std::vector<Eigen::Index> indices;
    chunks_.reserve(static_cast<std::size_t>((size_ + kChunkSize - 1) / kChunkSize));
    for (Eigen::Index start = 0; start < size_; start += kChunkSize) {
        indices.resize(static_cast<std::size_t>(std::min(kChunkSize, size_ - start)));
        std::iota(indices.begin(), indices.end(), start);
        data.gather(indices, chunks_.emplace_back());
    }
}

}  // namespace ml
