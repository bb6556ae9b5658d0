#include "optim/Adam.h"

#include <cmath>

namespace ml {

Adam::Adam(std::string name, const HyperParameters& hp, WeightDecay weightDecay, MomentumAggregation aggregation)
    : Optimizer(std::move(name), hp, aggregation), decoupled_(weightDecay == WeightDecay::Decoupled) {}

void Adam::allocate(const Matrix& parameters, LayerState& state) const {
    state.firstMoment = Matrix::Zero(parameters.rows(), parameters.cols());
    state.secondMoment = Matrix::Zero(parameters.rows(), parameters.cols());
    if (hp_.amsgrad) state.auxiliary = Matrix::Zero(parameters.rows(), parameters.cols());
}

void Adam::update(Matrix& parameters, const Matrix& gradient, LayerState& state) {
    const Matrix& g = decoupled_ ? gradient : decayedGradient(gradient, parameters, state, hp_.weightDecay);
    const float beta1 = static_cast<float>(hp_.beta1);
    const float beta2 = static_cast<float>(hp_.beta2);
    // 1 - beta in double, then rounded (as torch.optim): 1 - 0.999f would lose four digits.
    aggregation_.accumulate(state.firstMoment, g, beta1, static_cast<float>(1.0 - hp_.beta1), state.groupMeans);
    state.secondMoment = beta2 * state.secondMoment + static_cast<float>(1.0 - hp_.beta2) * g.cwiseAbs2();
    if (hp_.amsgrad) state.auxiliary = state.auxiliary.cwiseMax(state.secondMoment);
    const Matrix& v = hp_.amsgrad ? state.auxiliary : state.secondMoment;

    const double t = static_cast<double>(step_);
    const float stepSize = static_cast<float>(hp_.lr / (1.0 - std::pow(hp_.beta1, t)));
    const float sqrtCorrection2 = static_cast<float>(std::sqrt(1.0 - std::pow(hp_.beta2, t)));
    const float eps = static_cast<float>(hp_.eps);
    state.update = -stepSize * (state.firstMoment.array() / (v.array().sqrt() / sqrtCorrection2 + eps)).matrix();
    if (decoupled_ && hp_.weightDecay != 0.0)
        state.update -= static_cast<float>(hp_.lr * hp_.weightDecay) * parameters;
    apply(parameters, state);
}

}  // namespace ml
