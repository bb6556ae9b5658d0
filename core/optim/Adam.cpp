#include "optim/Adam.h"

#include <cmath>

namespace ml {

Adam::Adam(std::string name, const HyperParameters& hp, WeightDecay weightDecay, MomentumAggregation aggregation)
    : Optimizer(std::move(name), hp, aggregation), decoupled_(weightDecay == WeightDecay::Decoupled) {}

void Adam::allocate(const Matrix& parameters, LayerState& state) const {
    state.firstMoment = Matrix::Zero(parameters.rows(), parameters.cols());
    state.secondMoment = Matrix::Zero(parameters.rows(), parameters.cols());
    if (hyperParameters().amsgrad) state.maxSecondMoment = Matrix::Zero(parameters.rows(), parameters.cols());
}

void Adam::update(const Matrix& parameters, const Matrix& gradient, LayerState& state) {
    const HyperParameters& hp = hyperParameters();
    const Matrix& g = ruleGradient(gradient, parameters, state, decoupled_ ? 0.0 : hp.weightDecay);
    const float beta1 = static_cast<float>(hp.beta1);
    const float beta2 = static_cast<float>(hp.beta2);
    // 1 - beta in double, then rounded (as torch.optim): 1 - 0.999f would lose four digits.
    aggregation().accumulate(state.firstMoment, g, beta1, static_cast<float>(1.0 - hp.beta1), state.groupMeans,
                             state.columnsPerInput);
    state.secondMoment = beta2 * state.secondMoment + static_cast<float>(1.0 - hp.beta2) * g.cwiseAbs2();
    shareSecondMoment(state);
    if (hp.amsgrad) state.maxSecondMoment = state.maxSecondMoment.cwiseMax(state.secondMoment);
    const Matrix& v = hp.amsgrad ? state.maxSecondMoment : state.secondMoment;

    const double t = static_cast<double>(stepCount());
    const float stepSize = static_cast<float>(hp.lr / (1.0 - std::pow(hp.beta1, t)));
    const float sqrtCorrection2 = static_cast<float>(std::sqrt(1.0 - std::pow(hp.beta2, t)));
    const float eps = static_cast<float>(hp.eps);
    state.update = -stepSize * (state.firstMoment.array() / (v.array().sqrt() / sqrtCorrection2 + eps)).matrix();
    if (decoupled_ && hp.weightDecay != 0.0) state.update -= static_cast<float>(hp.lr * hp.weightDecay) * parameters;
}

}  // namespace ml
