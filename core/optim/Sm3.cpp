#include "optim/Sm3.h"

namespace ml {

Sm3::Sm3(std::string name, const HyperParameters& hp) : Optimizer(std::move(name), hp) {}

void Sm3::allocate(const Matrix& parameters, LayerState& state) const {
    state.secondMoment = Matrix::Zero(parameters.rows(), parameters.cols());
    state.rowSecondMoment = Vector::Zero(parameters.rows());
    state.columnSecondMoment = Vector::Zero(parameters.cols() - 1);
    if (hyperParameters().momentum > 0.0) state.firstMoment = Matrix::Zero(parameters.rows(), parameters.cols());
}

void Sm3::update(const Matrix& parameters, const Matrix& gradient, LayerState& state) {
    const HyperParameters& hp = hyperParameters();
    const Matrix& g = ruleGradient(gradient, parameters, state, 0.0);
    auto nu = weightsOf(state.secondMoment);
    for (Eigen::Index j = 0; j < nu.cols(); ++j)
        nu.col(j) = state.rowSecondMoment.cwiseMin(state.columnSecondMoment(j)) + g.col(j).cwiseAbs2();
    state.rowSecondMoment = nu.rowwise().maxCoeff();
    state.columnSecondMoment = nu.colwise().maxCoeff().transpose();
    biasOf(state.secondMoment) += biasOf(g).cwiseAbs2();
    // state.update holds d = g/sqrt(nu), then the step.
    state.update =
        (state.secondMoment.array() > 0.0f).select(g.array() / state.secondMoment.array().sqrt(), 0.0f).matrix();
    const float lr = static_cast<float>(hp.lr);
    if (hp.momentum > 0.0) {
        state.firstMoment =
            static_cast<float>(hp.momentum) * state.firstMoment + static_cast<float>(1.0 - hp.momentum) * state.update;
        state.update = -lr * state.firstMoment;
    } else {
        state.update *= -lr;
    }
}

}  // namespace ml
