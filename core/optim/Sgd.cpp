#include "optim/Sgd.h"

namespace ml {

Sgd::Sgd(std::string name, const HyperParameters& hp, Momentum momentum, MomentumAggregation aggregation)
    : Optimizer(std::move(name), hp, aggregation), useMomentum_(momentum != Momentum::None && hp.momentum > 0.0),
      nesterov_(momentum == Momentum::Nesterov) {}

void Sgd::allocate(const Matrix& parameters, LayerState& state) const {
    if (useMomentum_) state.firstMoment = Matrix::Zero(parameters.rows(), parameters.cols());
}

void Sgd::update(const Matrix& parameters, const Matrix& gradient, LayerState& state) {
    const HyperParameters& hp = hyperParameters();
    const Matrix& g = ruleGradient(gradient, parameters, state, hp.weightDecay);
    const float lr = static_cast<float>(hp.lr);
    if (!useMomentum_) {
        state.update = -lr * g;
    } else {
        const float mu = static_cast<float>(hp.momentum);
        Matrix& b = state.firstMoment;
        if (stepCount() == 1) b = g;  // PyTorch: the buffer starts as the first gradient, undamped
        else
            aggregation().accumulate(b, g, mu, static_cast<float>(1.0 - hp.dampening), state.groupMeans,
                                     state.columnsPerInput);
        if (nesterov_) state.update = -lr * (g + mu * b);
        else state.update = -lr * b;
    }
}

}  // namespace ml
