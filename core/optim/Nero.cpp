#include "optim/Nero.h"

#include <cmath>

namespace ml {

namespace {
// Each row centred and scaled to unit length (a row that centres to 0 stays 0).
template <typename Block>
void centreAndNormaliseRows(Block rows) {
    for (Eigen::Index i = 0; i < rows.rows(); ++i) {
        auto row = rows.row(i);
        row.array() -= row.mean();
        const float norm = row.norm();
        if (norm > 0.0f) row /= norm;
    }
}
float scaleOr(float scale) { return scale == 0.0f ? 0.01f : scale; }
}  // namespace

Nero::Nero(std::string name, const HyperParameters& hp) : Optimizer(std::move(name), hp) {}

void Nero::allocate(const Matrix& parameters, LayerState& state) const {
    state.secondMoment = Matrix::Zero(parameters.rows(), parameters.cols());
    state.rowSecondMoment = Vector::Zero(parameters.rows());
    state.tensorScales = Vector::Zero(2);
}

void Nero::update(const Matrix& parameters, const Matrix& gradient, LayerState& state) {
    const HyperParameters& hp = hyperParameters();
    const Matrix& g = ruleGradient(gradient, parameters, state, 0.0);
    state.update = parameters;  // the new parameters, until the last line
    auto w = weightsOf(state.update);
    if (stepCount() == 1) {
        centreAndNormaliseRows(w);
        state.tensorScales(0) = scaleOr(w.rowwise().norm().mean());
        state.tensorScales(1) = scaleOr(biasOf(parameters).cwiseAbs().mean());
    }
    const float beta = static_cast<float>(hp.beta2), gain = static_cast<float>(1.0 - hp.beta2);
    Vector& s = state.rowSecondMoment;
    s = beta * s + gain * weightsOf(g).rowwise().squaredNorm();
    weightsOf(state.secondMoment).colwise() = s;
    auto sBias = biasOf(state.secondMoment);
    sBias = beta * sBias + gain * biasOf(g).cwiseAbs2();

    const float correction = static_cast<float>(1.0 - std::pow(hp.beta2, static_cast<double>(stepCount())));
    const float lr = static_cast<float>(hp.lr);
    for (Eigen::Index j = 0; j < state.update.cols(); ++j) {
        const bool bias = j + 1 == state.update.cols();
        const auto sj = state.secondMoment.col(j).array();
        state.update.col(j) -= (lr * state.tensorScales(bias ? 1 : 0)) *
                               (sj > 0.0f).select(g.col(j).array() / (sj / correction).sqrt(), 0.0f).matrix();
    }
    centreAndNormaliseRows(w);
    state.update -= parameters;
}

}  // namespace ml
