#include "optim/MomentumAggregation.h"

namespace ml {

namespace {
// The part of a layer matrix that the scope averages: all columns with join, weights only with own.
Eigen::Index averagedColumns(const Eigen::MatrixXf& buffer, BiasMode bias) {
    return bias == BiasMode::Join ? buffer.cols() : buffer.cols() - 1;
}
}  // namespace

template <typename Entries, typename GroupValue>
void MomentumAggregation::share(Entries entries, const GroupValue& groupValue) const {
    const bool keepSign = statistic_ == MeanStatistic::SignedAbsMean;
    if (blend_ == 1.0f) {  // the full group value: exactly today's neuron-mean when the statistic is the mean
        if (keepSign) entries = (entries.array().sign() * groupValue.array()).matrix();
        else entries = groupValue;
        return;
    }
    const float own = 1.0f - blend_;
    if (keepSign) entries = (own * entries.array() + blend_ * entries.array().sign() * groupValue.array()).matrix();
    else entries = (own * entries.array() + blend_ * groupValue.array()).matrix();
}

template <typename Entries>
float MomentumAggregation::groupStatistic(const Entries& entries) const {
    return statistic_ == MeanStatistic::SignedAbsMean ? entries.cwiseAbs().mean() : entries.mean();
}

void MomentumAggregation::aggregate(Eigen::MatrixXf& buffer, Eigen::VectorXf& scratch,
                                    Eigen::Index columnsPerInput) const {
    if (scope_ == MeanScope::None || blend_ == 0.0f) return;  // blend 0: ordinary momentum, untouched
    const Eigen::Index columns = averagedColumns(buffer, bias_);
    auto block = buffer.leftCols(columns);
    switch (scope_) {
    case MeanScope::None: return;
    case MeanScope::FanIn:
        // Column by column: the matrices are column-major, rows are strided.
        if (statistic_ == MeanStatistic::SignedAbsMean) scratch = block.cwiseAbs().rowwise().mean();
        else scratch = block.rowwise().mean();
        for (Eigen::Index i = 0; i < block.cols(); ++i) share(block.col(i), scratch);
        return;
    case MeanScope::FanOut: {
        // Input by input (its columnsPerInput columns), then with join the bias vector on its own.
        const Eigen::Index width = columnsPerInput, inputs = (buffer.cols() - 1) / width;
        for (Eigen::Index i = 0; i < inputs; ++i) {
            auto group = block.middleCols(i * width, width);
            share(group, Eigen::MatrixXf::Constant(block.rows(), width, groupStatistic(group)));
        }
        if (bias_ == BiasMode::Join) {
            auto bias = buffer.col(buffer.cols() - 1);
            share(bias, Eigen::VectorXf::Constant(buffer.rows(), groupStatistic(bias)));
        }
        return;
    }
    case MeanScope::Layer:
        share(block, Eigen::MatrixXf::Constant(block.rows(), block.cols(), groupStatistic(block)));
        return;
    }
}

void MomentumAggregation::aggregate(Eigen::MatrixXf& buffer, Eigen::Index columnsPerInput) const {
    Eigen::VectorXf scratch;
    aggregate(buffer, scratch, columnsPerInput);
}

void MomentumAggregation::accumulate(Eigen::MatrixXf& buffer, const Eigen::MatrixXf& gradient, float decay, float gain,
                                     Eigen::VectorXf& scratch, Eigen::Index columnsPerInput) const {
    aggregate(buffer, scratch, columnsPerInput);
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

void MomentumAggregation::neuronMeans(const Eigen::MatrixXf& buffer, Eigen::VectorXf& means,
                                      Eigen::Index columnsPerInput) const {
    const auto block = buffer.leftCols(averagedColumns(buffer, bias_));
    switch (scope_) {
    case MeanScope::None:
    case MeanScope::FanIn: means = block.rowwise().mean(); return;
    case MeanScope::FanOut: {
        const Eigen::Index width = columnsPerInput, inputs = (buffer.cols() - 1) / width;
        means.resize(inputs + (bias_ == BiasMode::Join ? 1 : 0));
        for (Eigen::Index i = 0; i < inputs; ++i) means(i) = block.middleCols(i * width, width).mean();
        if (bias_ == BiasMode::Join) means(inputs) = buffer.col(buffer.cols() - 1).mean();
        return;
    }
    case MeanScope::Layer: means = Eigen::VectorXf::Constant(1, block.mean()); return;
    }
}

void MomentumAggregation::meanPerEntry(const Eigen::MatrixXf& buffer, Eigen::MatrixXf& out,
                                       Eigen::Index columnsPerInput) const {
    out = buffer;
    MomentumAggregation(scope_ == MeanScope::None ? MeanScope::FanIn : scope_, bias_, 1.0, statistic_)
        .aggregate(out, columnsPerInput);
}

void MomentumAggregation::splitShared(const Eigen::MatrixXf& buffer, Eigen::MatrixXf& shared, Eigen::MatrixXf& own,
                                      Eigen::Index columnsPerInput) const {
    meanPerEntry(buffer, shared, columnsPerInput);
    own = buffer - shared;
}

}  // namespace ml
