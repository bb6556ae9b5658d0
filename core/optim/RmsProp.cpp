#include "optim/RmsProp.h"

namespace ml {

RmsProp::RmsProp(std::string name, const HyperParameters& hp) : Optimizer(std::move(name), hp) {}

void RmsProp::allocate(const Matrix& parameters, LayerState& state) const {
    state.secondMoment = Matrix::Zero(parameters.rows(), parameters.cols());
    if (hp_.centered) state.auxiliary = Matrix::Zero(parameters.rows(), parameters.cols());
    if (hp_.momentum > 0.0) state.firstMoment = Matrix::Zero(parameters.rows(), parameters.cols());
}

void RmsProp::update(Matrix& parameters, const Matrix& gradient, LayerState& state) {
    const Matrix& g = decayedGradient(gradient, parameters, state, hp_.weightDecay);
    const float alpha = static_cast<float>(hp_.alpha);
    const float oneMinusAlpha = static_cast<float>(1.0 - hp_.alpha);  // in double, as torch.optim
    const float eps = static_cast<float>(hp_.eps);
    const float lr = static_cast<float>(hp_.lr);
    state.secondMoment = alpha * state.secondMoment + oneMinusAlpha * g.cwiseAbs2();
    // state.update first holds the denominator d, then the step.
    if (hp_.centered) {
        state.auxiliary = alpha * state.auxiliary + oneMinusAlpha * g;
        state.update = ((state.secondMoment - state.auxiliary.cwiseAbs2()).array().sqrt() + eps).matrix();
    } else {
        state.update = (state.secondMoment.array().sqrt() + eps).matrix();
    }
    if (hp_.momentum > 0.0) {
        state.firstMoment = static_cast<float>(hp_.momentum) * state.firstMoment + g.cwiseQuotient(state.update);
        state.update = -lr * state.firstMoment;
    } else {
        state.update = -lr * g.cwiseQuotient(state.update);
    }
    apply(parameters, state);
}

}  // namespace ml
