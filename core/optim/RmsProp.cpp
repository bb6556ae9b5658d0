#include "optim/RmsProp.h"

#include "optim/UpdateRecipe.h"

namespace ml {

RmsProp::RmsProp(std::string name, const HyperParameters& hp) : Optimizer(std::move(name), hp) {}

void RmsProp::allocate(const Matrix& parameters, LayerState& state) const {
    const HyperParameters& hp = hyperParameters();
    state.secondMoment = Matrix::Zero(parameters.rows(), parameters.cols());
    if (hp.centered) state.centredMean = Matrix::Zero(parameters.rows(), parameters.cols());
    if (hp.momentum > 0.0) state.firstMoment = Matrix::Zero(parameters.rows(), parameters.cols());
}

void RmsProp::update(const Matrix& parameters, const Matrix& gradient, LayerState& state) {
    const HyperParameters& hp = hyperParameters();
    const Matrix& g = ruleGradient(gradient, parameters, state, hp.weightDecay);
    const float alpha = static_cast<float>(hp.alpha);
    const float oneMinusAlpha = static_cast<float>(1.0 - hp.alpha);  // in double, as torch.optim
    const float eps = static_cast<float>(hp.eps);
    const float lr = static_cast<float>(hp.lr);
    state.secondMoment = alpha * state.secondMoment + oneMinusAlpha * g.cwiseAbs2();
    shareSecondMoment(state);
    // state.update first holds the denominator d, then the step.
    if (hp.centered) {
        state.centredMean = alpha * state.centredMean + oneMinusAlpha * g;
        state.update = ((state.secondMoment - state.centredMean.cwiseAbs2()).array().sqrt() + eps).matrix();
    } else {
        state.update = (state.secondMoment.array().sqrt() + eps).matrix();
    }
    if (hp.momentum > 0.0) {
        state.firstMoment = static_cast<float>(hp.momentum) * state.firstMoment + g.cwiseQuotient(state.update);
        state.update = -lr * state.firstMoment;
    } else {
        state.update = -lr * g.cwiseQuotient(state.update);
    }
}

namespace {

// (decay, gain, scale) = (mu, 1, lr) on g/D with momentum; D of v - c^2 when centered.
class RmsPropParts final : public UpdateRecipe {
public:
    RmsPropParts() : UpdateRecipe({.secondMoment = true, .denominatorFirst = true}) {}

private:
    bool keepsFirstMoment(const HyperParameters& hp) const override { return hp.momentum > 0.0; }
    bool numbers(const ExplainedConnection& c, UpdateExplanation& out) const override {
        if (out.hasFirstMoment) out.decay = c.hp.momentum, out.gain = 1.0;
        out.scale = c.hp.lr;
        return true;
    }
    bool secondMomentUsed(const ExplainedConnection& c, UpdateExplanation& out, float& v) const override {
        if (!c.hp.centered) return true;
        const Matrix* mean = ruleStateOf(c.layer, "centred_mean", out);
        if (!mean) return false;
        const float centred = (*mean)(c.row, c.column);
        out.centredMean = centred;
        v = v - centred * centred;
        return true;
    }
    std::string denominatorLines(const UpdateExplanation& e, const HyperParameters& hp) const override {
        if (!hp.centered) return UpdateRecipe::denominatorLines(e, hp);
        return "c = α·c′ + (1−α)·g = " + formulaNumber(e.centredMean) +
               "  (the running mean of g)\nD = √(v − c²) + ε = √(" + formulaNumber(e.secondMoment) + " − " +
               formulaNumber(e.centredMean) + "²) + " + formulaNumber(hp.eps) + " = " + formulaNumber(e.denominator) +
               "\n";
    }
    std::string updateText(const FormulaNames& names, const UpdateExplanation& e,
                           const HyperParameters&) const override {
        if (e.hasFirstMoment) return "−lr·a = " + minusProduct(e.scale, e.firstMoment);
        return "−lr·" + names.g + "/D = " + minusProduct(e.scale, e.gradient) + "/" + formulaNumber(e.denominator);
    }
};

}  // namespace

const UpdateRecipe& RmsProp::explanation(const HyperParameters&) {
    static const RmsPropParts parts;
    return parts;
}

}  // namespace ml
