#include "optim/SecondMomentSharing.h"

#include "optim/MomentumAggregation.h"

namespace ml {

void SecondMomentSharing::share(Eigen::MatrixXf& v, Eigen::VectorXf& rows, Eigen::VectorXf& columns,
                                Eigen::Index columnsPerInput) const {
    if (scope_ == SecondMomentScope::None) return;
    if (scope_ != SecondMomentScope::Factored) {
        // The group means are the first moment's: one mechanism (SecondMomentScope lists MeanScope's scopes first).
        MomentumAggregation(static_cast<MeanScope>(scope_), bias_).aggregate(v, rows, columnsPerInput);
        return;
    }
    auto block = v.leftCols(bias_ == BiasMode::Join ? v.cols() : v.cols() - 1);
    rows = block.rowwise().mean();
    columns = block.colwise().mean().transpose();
    const float total = rows.mean();
    if (total == 0.0f) return;  // v >= 0, so every entry is 0 already
    rows /= total;
    for (Eigen::Index j = 0; j < block.cols(); ++j) block.col(j) = rows * columns(j);
}

void SecondMomentSharing::share(Eigen::MatrixXf& v) const {
    Eigen::VectorXf rows, columns;
    share(v, rows, columns);
}

void SecondMomentSharing::reserveScratch(const Eigen::MatrixXf& v, Eigen::VectorXf& rows,
                                         Eigen::VectorXf& columns) const {
    if (scope_ == SecondMomentScope::None) return;
    rows.resize(v.rows());
    columns.resize(v.cols());
}

void SecondMomentSharing::groupMean(const Eigen::MatrixXf& v, Eigen::MatrixXf& out) const {
    out = v;
    SecondMomentSharing(scope_ == SecondMomentScope::None ? SecondMomentScope::FanIn : scope_, bias_).share(out);
}

}  // namespace ml
