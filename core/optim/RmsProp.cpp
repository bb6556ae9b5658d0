#include "optim/RmsProp.h"

namespace ml {

RmsProp::RmsProp(std::string name, const HyperParameters& hp) : Optimizer(std::move(name), hp) {}

void RmsProp::allocate(const Matrix& parameters, LayerState& state) const {
    const HyperParameters& hp = hyperParameters();
    state.secondMoment = Matrix::Zero(parameters.rows(), parameters.cols());
    if (hp.centered) state.centredMean = Matrix::Zero(parameters.rows(), parameters.cols());
    if (hp.momentum > 0.0) state.firstMoment = Matrix::Zero(parameters.rows(), parameters.cols());
}

void RmsProp::update(const Matrix& parameters, const Matrix& gradient, LayerState& state) {
    const HyperParameters& hp = hyperParameters();
    const Matrix& g = ruleGradient(gradient, parameters, state, hp.weightDecay);
    const float alpha = static_cast<float>(hp.alpha);
    const float oneMinusAlpha = static_cast<float>(1.0 - hp.alpha);  // in double, as torch.optim
    const float eps = static_cast<float>(hp.eps);
    const float lr = static_cast<float>(hp.lr);
    state.secondMoment = alpha * state.secondMoment + oneMinusAlpha * g.cwiseAbs2();
    shareSecondMoment(state);
    // state.update first holds the denominator d, then the step.
    if (hp.centered) {
        state.centredMean = alpha * state.centredMean + oneMinusAlpha * g;
        state.update = ((state.secondMoment - state.centredMean.cwiseAbs2()).array().sqrt() + eps).matrix();
    } else {
        state.update = (state.secondMoment.array().sqrt() + eps).matrix();
    }
    if (hp.momentum > 0.0) {
        state.firstMoment = static_cast<float>(hp.momentum) * state.firstMoment + g.cwiseQuotient(state.update);
        state.update = -lr * state.firstMoment;
    } else {
        state.update = -lr * g.cwiseQuotient(state.update);
    }
}

}  // namespace ml
