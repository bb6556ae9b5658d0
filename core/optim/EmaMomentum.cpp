#include "optim/EmaMomentum.h"

namespace ml {

EmaMomentum::EmaMomentum(std::string name, const HyperParameters& hp, MomentumAggregation aggregation)
    : Optimizer(std::move(name), hp, aggregation) {}

void EmaMomentum::allocate(const Matrix& parameters, LayerState& state) const {
    state.firstMoment = Matrix::Zero(parameters.rows(), parameters.cols());
}

void EmaMomentum::update(const Matrix& parameters, const Matrix& gradient, LayerState& state) {
    const HyperParameters& hp = hyperParameters();
    const float beta = static_cast<float>(hp.momentum);
    const Matrix& g = ruleGradient(gradient, parameters, state, 0.0);
    aggregation().accumulate(state.firstMoment, g, beta, static_cast<float>(1.0 - hp.momentum), state.groupMeans,
                             state.columnsPerInput);
    state.update = -static_cast<float>(hp.lr) * state.firstMoment;
}

}  // namespace ml
