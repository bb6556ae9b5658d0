#include "optim/MomentumAggregation.h"

namespace ml {

namespace {
// The part of a layer matrix that the scope averages: all columns with join, weights only with own.
Eigen::Index averagedColumns(const Eigen::MatrixXf& buffer, BiasMode bias) {
    return bias == BiasMode::Join ? buffer.cols() : buffer.cols() - 1;
}
}  // namespace

void MomentumAggregation::aggregate(Eigen::MatrixXf& buffer, Eigen::VectorXf& scratch) const {
    const Eigen::Index columns = averagedColumns(buffer, bias_);
    auto block = buffer.leftCols(columns);
    switch (scope_) {
    case MeanScope::None: return;
    case MeanScope::FanIn:
        // Column by column: the matrices are column-major, rows are strided.
        scratch = block.rowwise().mean();
        for (Eigen::Index i = 0; i < block.cols(); ++i) block.col(i) = scratch;
        return;
    case MeanScope::FanOut:
        for (Eigen::Index i = 0; i < block.cols(); ++i) block.col(i).setConstant(block.col(i).mean());
        return;
    case MeanScope::Layer: block.setConstant(block.mean()); return;
    }
}

void MomentumAggregation::aggregate(Eigen::MatrixXf& buffer) const {
    Eigen::VectorXf scratch;
    aggregate(buffer, scratch);
}

void MomentumAggregation::accumulate(Eigen::MatrixXf& buffer, const Eigen::MatrixXf& gradient, float decay,
                                     float gain, Eigen::VectorXf& scratch) const {
    aggregate(buffer, scratch);
    buffer = decay * buffer + gain * gradient;
}

void MomentumAggregation::accumulate(Eigen::MatrixXf& buffer, const Eigen::MatrixXf& gradient, float decay,
                                     float gain) const {
    Eigen::VectorXf scratch;
    accumulate(buffer, gradient, decay, gain, scratch);
}

void MomentumAggregation::reserveScratch(const Eigen::MatrixXf& buffer, Eigen::VectorXf& scratch) const {
    if (scope_ == MeanScope::FanIn) scratch.resize(buffer.rows());  // the only scope that uses it
}

void MomentumAggregation::neuronMeans(const Eigen::MatrixXf& buffer, Eigen::VectorXf& means) const {
    const auto block = buffer.leftCols(averagedColumns(buffer, bias_));
    switch (scope_) {
    case MeanScope::None:
    case MeanScope::FanIn: means = block.rowwise().mean(); return;
    case MeanScope::FanOut: means = block.colwise().mean().transpose(); return;
    case MeanScope::Layer: means = Eigen::VectorXf::Constant(1, block.mean()); return;
    }
}

void MomentumAggregation::meanPerEntry(const Eigen::MatrixXf& buffer, Eigen::MatrixXf& out) const {
    out = buffer;
    if (scope_ == MeanScope::None) {
        MomentumAggregation(MeanScope::FanIn, bias_).aggregate(out);
        return;
    }
    aggregate(out);
}

}  // namespace ml
