#include "optim/Lars.h"

namespace ml {

Lars::Lars(std::string name, const HyperParameters& hp) : Optimizer(std::move(name), hp) {}

void Lars::allocate(const Matrix& parameters, LayerState& state) const {
    state.firstMoment = Matrix::Zero(parameters.rows(), parameters.cols());
}

void Lars::update(const Matrix& parameters, const Matrix& gradient, LayerState& state) {
    const HyperParameters& hp = hyperParameters();
    const Matrix& g = ruleGradient(gradient, parameters, state, 0.0);
    const float wd = static_cast<float>(hp.weightDecay);
    const float weightNorm = weightsOf(parameters).norm(), gradientNorm = weightsOf(g).norm();
    const float localLr = weightNorm == 0.0f || gradientNorm == 0.0f
                              ? 1.0f
                              : static_cast<float>(hp.trust) * weightNorm / (gradientNorm + wd * weightNorm);
    const float lr = static_cast<float>(hp.lr), mu = static_cast<float>(hp.momentum);
    Matrix& u = state.firstMoment;
    weightsOf(u) = mu * weightsOf(u) + (lr * localLr) * (weightsOf(g) + wd * weightsOf(parameters));
    biasOf(u) = mu * biasOf(u) + lr * biasOf(g);
    state.update = -u;
}

}  // namespace ml
