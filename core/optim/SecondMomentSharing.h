#pragma once
// The second-moment half of state sharing (--second-moment-mean): after a rule's own
// update of v, the stored v is replaced by
//   none                    : v itself
//   fan-in, fan-out, layer  : its group's mean (the groups of MomentumAggregation, same --bias)
//   factored                : rowmean(v)_i * colmean(v)_j / mean(v)  (Adafactor's rank-1 estimate;
//                             0 where mean(v) = 0, i.e. where v is all 0)
// With --bias own the bias column keeps its own v (factored then factors the weights only); with
// join the bias is one more column. Rules: adam, adamw, rmsprop, adagrad (and adam-mini: fan-in).
#include "optim/HyperParameters.h"

#include <Eigen/Core>

namespace ml {

class SecondMomentSharing {
public:
    SecondMomentSharing(SecondMomentScope scope = SecondMomentScope::None, BiasMode bias = BiasMode::Own)
        : scope_(scope), bias_(bias) {}

    SecondMomentScope scope() const { return scope_; }
    BiasMode bias() const { return bias_; }

    // In place; `rows` and `columns` are scratch (sized by reserveScratch, so steps do not allocate).
    // columnsPerInput: as MomentumAggregation (fan-out groups an input's columns; 1 dense, k*k conv).
    void share(Eigen::MatrixXf& v, Eigen::VectorXf& rows, Eigen::VectorXf& columns,
               Eigen::Index columnsPerInput = 1) const;
    void share(Eigen::MatrixXf& v) const;
    void reserveScratch(const Eigen::MatrixXf& v, Eigen::VectorXf& rows, Eigen::VectorXf& columns) const;
    // The group mean of v the views colour by: v shared under this scope, the neuron's fan-in
    // mean where the scope is none (factored: the rank-1 estimate). Allocates; not for steps.
    void groupMean(const Eigen::MatrixXf& v, Eigen::MatrixXf& out) const;

private:
    SecondMomentScope scope_;
    BiasMode bias_;
};

}  // namespace ml
