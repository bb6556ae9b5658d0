#pragma once
// A data set of float feature rows with either float regression targets or integer class labels.
#include "Dataset.h"

namespace ml {

class DenseDataset final : public Dataset {
public:
    // Row-major so that one sample's features are contiguous (gather copies whole rows).
    using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

    // Rows of `features` and `targets` are samples. Throws std::invalid_argument on mismatch.
    static DenseDataset regression(RowMatrix features, RowMatrix targets);
    // labels(i) in [0, numClasses). Throws std::invalid_argument otherwise.
    static DenseDataset classification(RowMatrix features, Eigen::VectorXi labels, int numClasses);

    Eigen::Index size() const override { return features_.rows(); }
    int inputDim() const override { return static_cast<int>(features_.cols()); }
    int outputDim() const override { return classification_ ? numClasses_ : static_cast<int>(targets_.cols()); }
    bool isClassification() const override { return classification_; }
    void gather(std::span<const Eigen::Index> indices, Batch& batch) const override;

    std::shared_ptr<const Dataset> select(std::span<const Eigen::Index> indices) const override {
        return std::make_shared<DenseDataset>(subset(indices));
    }
    // A new data set of the samples `indices` (in that order).
    DenseDataset subset(std::span<const Eigen::Index> indices) const;
    // Replaces each feature x by (x - mean) / stddev, column-wise (stddev 0 is treated as 1).
    void standardize(const Eigen::RowVectorXf& mean, const Eigen::RowVectorXf& stddev);

    const RowMatrix& features() const { return features_; }
    const RowMatrix& targets() const { return targets_; }      // empty for classification
    const Eigen::VectorXi& labels() const { return labels_; }  // empty for regression

private:
    DenseDataset() = default;
    RowMatrix features_;
    RowMatrix targets_;
    Eigen::VectorXi labels_;
    int numClasses_ = 0;
    bool classification_ = false;
};

}  // namespace ml
