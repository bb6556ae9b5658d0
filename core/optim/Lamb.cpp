#include "optim/Lamb.h"

#include <cmath>

namespace ml {

Lamb::Lamb(std::string name, const HyperParameters& hp) : Optimizer(std::move(name), hp) {}

void Lamb::allocate(const Matrix& parameters, LayerState& state) const {
    state.firstMoment = Matrix::Zero(parameters.rows(), parameters.cols());
    state.secondMoment = Matrix::Zero(parameters.rows(), parameters.cols());
}

void Lamb::update(const Matrix& parameters, const Matrix& gradient, LayerState& state) {
    const HyperParameters& hp = hyperParameters();
    const Matrix& g = ruleGradient(gradient, parameters, state, 0.0);
    state.firstMoment = static_cast<float>(hp.beta1) * state.firstMoment + static_cast<float>(1.0 - hp.beta1) * g;
    state.secondMoment =
        static_cast<float>(hp.beta2) * state.secondMoment + static_cast<float>(1.0 - hp.beta2) * g.cwiseAbs2();
    const double t = static_cast<double>(stepCount());
    const float correction1 = static_cast<float>(1.0 - std::pow(hp.beta1, t));
    const float sqrtCorrection2 = static_cast<float>(std::sqrt(1.0 - std::pow(hp.beta2, t)));
    // state.update holds r, then the step.
    state.update = ((state.firstMoment.array() / correction1) /
                    (state.secondMoment.array().sqrt() / sqrtCorrection2 + static_cast<float>(hp.eps)))
                       .matrix();
    auto r = weightsOf(state.update);
    r += static_cast<float>(hp.weightDecay) * weightsOf(parameters);
    const float lr = static_cast<float>(hp.lr);
    const float weightNorm = weightsOf(parameters).norm(), rNorm = r.norm();
    const float trust = weightNorm == 0.0f || rNorm == 0.0f ? 1.0f : weightNorm / rNorm;
    r *= -lr * trust;
    biasOf(state.update) *= -lr;
}

}  // namespace ml
