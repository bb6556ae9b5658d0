#include "optim/Adafactor.h"

#include <algorithm>
#include <cmath>

namespace ml {

namespace {
constexpr float kEps1 = 1e-30f;  // added to G^2
constexpr float kEps2 = 1e-3f;   // smallest RMS of the weights the step is relative to
constexpr float kClip = 1.0f;    // d: the largest RMS of an update before it is scaled down

template <typename Block>
float rms(const Block& block) {
    return std::sqrt(block.squaredNorm() / static_cast<float>(block.size()));
}
}  // namespace

Adafactor::Adafactor(std::string name, const HyperParameters& hp) : Optimizer(std::move(name), hp) {}

void Adafactor::allocate(const Matrix& parameters, LayerState& state) const {
    state.secondMoment = Matrix::Zero(parameters.rows(), parameters.cols());
    state.rowSecondMoment = Vector::Zero(parameters.rows());
    state.columnSecondMoment = Vector::Zero(parameters.cols() - 1);
    if (hyperParameters().beta1 > 0.0) state.firstMoment = Matrix::Zero(parameters.rows(), parameters.cols());
}

void Adafactor::update(const Matrix& parameters, const Matrix& gradient, LayerState& state) {
    const HyperParameters& hp = hyperParameters();
    const Matrix& g = ruleGradient(gradient, parameters, state, 0.0);
    const double t = static_cast<double>(stepCount());
    const float decay = static_cast<float>(1.0 - std::pow(t, -0.8));
    const float gain = static_cast<float>(std::pow(t, -0.8));  // 1 - decay, formed in double
    const float rho = static_cast<float>(hp.lr > 0.0 ? hp.lr : std::min(1e-2, 1.0 / std::sqrt(t)));

    // Second moments: R and C of the weights (state.update holds G^2 + eps1 meanwhile), v of the bias.
    state.update = (g.array().square() + kEps1).matrix();
    state.rowSecondMoment = decay * state.rowSecondMoment + gain * weightsOf(state.update).rowwise().sum();
    state.columnSecondMoment =
        decay * state.columnSecondMoment + gain * weightsOf(state.update).colwise().sum().transpose();
    auto factored = weightsOf(state.secondMoment);
    const float rowTotal = state.rowSecondMoment.sum();
    for (Eigen::Index j = 0; j < factored.cols(); ++j)
        factored.col(j) = state.rowSecondMoment * (state.columnSecondMoment(j) / rowTotal);
    biasOf(state.secondMoment) = decay * biasOf(state.secondMoment) + gain * biasOf(state.update);

    // U = G/sqrt(V), clipped tensor by tensor; with b1 > 0 averaged into m; then scaled by alpha.
    // In float, V underflows to 0 where a row and a column without gradient meet (G = 0 there): U = 0.
    const auto v = state.secondMoment.array();
    state.update = (v > 0.0f).select(g.array() / v.sqrt(), 0.0f).matrix();
    auto clip = [](auto u) { u /= std::max(1.0f, rms(u) / kClip); };
    clip(weightsOf(state.update));
    clip(biasOf(state.update));
    if (hp.beta1 > 0.0) {
        state.firstMoment =
            static_cast<float>(hp.beta1) * state.firstMoment + static_cast<float>(1.0 - hp.beta1) * state.update;
        state.update = state.firstMoment;
    }
    weightsOf(state.update) *= std::max(kEps2, rms(weightsOf(parameters))) * rho;
    biasOf(state.update) *= std::max(kEps2, rms(biasOf(parameters))) * rho;
    state.update = -state.update;
}

}  // namespace ml
