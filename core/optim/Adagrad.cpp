#include "optim/Adagrad.h"

namespace ml {

Adagrad::Adagrad(std::string name, const HyperParameters& hp) : Optimizer(std::move(name), hp) {}

void Adagrad::allocate(const Matrix& parameters, LayerState& state) const {
    state.secondMoment =
        Matrix::Constant(parameters.rows(), parameters.cols(), static_cast<float>(hp_.initialAccumulator));
}

void Adagrad::update(Matrix& parameters, const Matrix& gradient, LayerState& state) {
    const Matrix& g = decayedGradient(gradient, parameters, state, hp_.weightDecay);
    const float clr = static_cast<float>(hp_.lr / (1.0 + static_cast<double>(step_ - 1) * hp_.lrDecay));
    state.secondMoment.array() += g.array().square();
    state.update = -clr * (g.array() / (state.secondMoment.array().sqrt() + static_cast<float>(hp_.eps))).matrix();
    apply(parameters, state);
}

}  // namespace ml
