#include "optim/Adagrad.h"

namespace ml {

Adagrad::Adagrad(std::string name, const HyperParameters& hp) : Optimizer(std::move(name), hp) {}

void Adagrad::allocate(const Matrix& parameters, LayerState& state) const {
    state.secondMoment = Matrix::Constant(parameters.rows(), parameters.cols(),
                                          static_cast<float>(hyperParameters().initialAccumulator));
}

void Adagrad::update(const Matrix& parameters, const Matrix& gradient, LayerState& state) {
    const HyperParameters& hp = hyperParameters();
    const Matrix& g = ruleGradient(gradient, parameters, state, hp.weightDecay);
    const float clr = static_cast<float>(hp.lr / (1.0 + static_cast<double>(stepCount() - 1) * hp.lrDecay));
    state.secondMoment.array() += g.array().square();
    shareSecondMoment(state);
    state.update = -clr * (g.array() / (state.secondMoment.array().sqrt() + static_cast<float>(hp.eps))).matrix();
}

}  // namespace ml
