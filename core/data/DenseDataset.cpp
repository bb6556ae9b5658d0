#include "DenseDataset.h"

#include <algorithm>
#include <stdexcept>

namespace ml {

DenseDataset DenseDataset::regression(RowMatrix features, RowMatrix targets) {
    if (features.rows() != targets.rows())
        throw std::invalid_argument("DenseDataset: features and targets differ in row count");
    DenseDataset d;
    d.features_ = std::move(features);
    d.targets_ = std::move(targets);
    return d;
}

DenseDataset DenseDataset::classification(RowMatrix features, Eigen::VectorXi labels, int numClasses) {
    if (features.rows() != labels.size())
        throw std::invalid_argument("DenseDataset: features and labels differ in row count");
    if (labels.size() > 0 && (labels.minCoeff() < 0 || labels.maxCoeff() >= numClasses))
        throw std::invalid_argument("DenseDataset: label outside [0, numClasses)");
    DenseDataset d;
    d.features_ = std::move(features);
    d.labels_ = std::move(labels);
    d.numClasses_ = numClasses;
    d.classification_ = true;
    return d;
}

void DenseDataset::gather(std::span<const Eigen::Index> indices, Batch& batch) const {
    static_assert(bool(RowMatrix::IsRowMajor) && bool(BatchMatrix::IsRowMajor), "gather copies whole rows");
    const auto n = static_cast<Eigen::Index>(indices.size());
    batch.inputs.resize(n, features_.cols());
    if (classification_) {
        batch.labels.resize(n);
        batch.targets.resize(0, 0);
    } else {
        batch.targets.resize(n, targets_.cols());
        batch.labels.resize(0);
    }
    for (Eigen::Index i = 0; i < n; ++i) {
        const Eigen::Index s = indices[static_cast<std::size_t>(i)];
        if (s < 0 || s >= size()) throw std::out_of_range("DenseDataset::gather: sample index out of range");
        // Both row-major: a sample is one contiguous run of floats (copy_n, not Eigen's
        // dynamic-size block assignment, whose set-up outweighs a small row).
        std::copy_n(features_.row(s).data(), features_.cols(), batch.inputs.row(i).data());
        if (classification_) batch.labels(i) = labels_(s);
        else std::copy_n(targets_.row(s).data(), targets_.cols(), batch.targets.row(i).data());
    }
}

DenseDataset DenseDataset::subset(std::span<const Eigen::Index> indices) const {
    DenseDataset d;
    d.classification_ = classification_;
    d.numClasses_ = numClasses_;
    const auto n = static_cast<Eigen::Index>(indices.size());
    d.features_.resize(n, features_.cols());
    if (classification_) d.labels_.resize(n);
    else d.targets_.resize(n, targets_.cols());
    for (Eigen::Index i = 0; i < n; ++i) {
        const Eigen::Index s = indices[static_cast<std::size_t>(i)];
        if (s < 0 || s >= size()) throw std::out_of_range("DenseDataset::subset: sample index out of range");
        d.features_.row(i) = features_.row(s);
        if (classification_) d.labels_(i) = labels_(s);
        else d.targets_.row(i) = targets_.row(s);
    }
    return d;
}

void DenseDataset::standardize(const Eigen::RowVectorXf& mean, const Eigen::RowVectorXf& stddev) {
    if (mean.size() != features_.cols() || stddev.size() != features_.cols())
        throw std::invalid_argument("DenseDataset::standardize: wrong number of columns");
    const Eigen::RowVectorXf scale = (stddev.array() > 0.0f).select(stddev.cwiseInverse(), 1.0f);
    features_ = (features_.rowwise() - mean).array().rowwise() * scale.array();
}

}  // namespace ml
