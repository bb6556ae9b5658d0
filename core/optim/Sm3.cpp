#include "optim/Sm3.h"

#include "optim/UpdateRecipe.h"

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

namespace {

// D = sqrt(nu) (no eps; g/D = 0 where nu = 0); (decay, gain, scale) = (mu, 1-mu, lr) on g/D.
class Sm3Parts final : public UpdateRecipe {
public:
    Sm3Parts()
        : UpdateRecipe({.moment = "m", .secondMoment = true, .denominatorFirst = true, .decay = Decay::Elsewhere}) {}

private:
    bool keepsFirstMoment(const HyperParameters& hp) const override { return hp.momentum > 0.0; }
    bool numbers(const ExplainedConnection& c, UpdateExplanation& out) const override {
        if (out.hasFirstMoment) out.decay = c.hp.momentum, out.gain = 1.0 - c.hp.momentum;
        out.scale = c.hp.lr;
        return true;
    }
    void denominator(const ExplainedConnection&, float v, UpdateExplanation& out) const override {
        out.denominator = std::sqrt(v) + 0.0f;
    }
    std::string denominatorLines(const UpdateExplanation& e, const HyperParameters&) const override {
        return "D = √ν = √" + formulaNumber(e.secondMoment) + " = " + formulaNumber(e.denominator) +
               "  (ν = min(μ_row, μ_col) + g²; the covers μ_row, μ_col are not recorded, ν is)\n";
    }
    std::string updateText(const FormulaNames&, const UpdateExplanation& e, const HyperParameters&) const override {
        if (e.hasFirstMoment) return "−lr·m = " + minusProduct(e.scale, e.firstMoment);
        return "−lr·g/D (0 where ν = 0) = " + minusProduct(e.scale, e.gradient) + "/" + formulaNumber(e.denominator);
    }
};

}  // namespace

const UpdateRecipe& Sm3::explanation(const HyperParameters&) {
    static const Sm3Parts parts;
    return parts;
}

}  // namespace ml
