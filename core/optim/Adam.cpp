#include "optim/Adam.h"

#include "optim/UpdateRecipe.h"

#include <cmath>

namespace ml {

Adam::Adam(std::string name, const HyperParameters& hp, WeightDecay weightDecay, MomentumAggregation aggregation)
    : Optimizer(std::move(name), hp, aggregation), decoupled_(weightDecay == WeightDecay::Decoupled) {}

void Adam::allocate(const Matrix& parameters, LayerState& state) const {
    state.firstMoment = Matrix::Zero(parameters.rows(), parameters.cols());
    state.secondMoment = Matrix::Zero(parameters.rows(), parameters.cols());
    if (hyperParameters().amsgrad) state.maxSecondMoment = Matrix::Zero(parameters.rows(), parameters.cols());
}

void Adam::update(const Matrix& parameters, const Matrix& gradient, LayerState& state) {
    const HyperParameters& hp = hyperParameters();
    const Matrix& g = ruleGradient(gradient, parameters, state, decoupled_ ? 0.0 : hp.weightDecay);
    const float beta1 = static_cast<float>(hp.beta1);
    const float beta2 = static_cast<float>(hp.beta2);
    // 1 - beta in double, then rounded (as torch.optim): 1 - 0.999f would lose four digits.
    aggregation().accumulate(state.firstMoment, g, beta1, static_cast<float>(1.0 - hp.beta1), state.groupMeans,
                             state.columnsPerInput);
    state.secondMoment = beta2 * state.secondMoment + static_cast<float>(1.0 - hp.beta2) * g.cwiseAbs2();
    shareSecondMoment(state);
    if (hp.amsgrad) state.maxSecondMoment = state.maxSecondMoment.cwiseMax(state.secondMoment);
    const Matrix& v = hp.amsgrad ? state.maxSecondMoment : state.secondMoment;

    const double t = static_cast<double>(stepCount());
    const float stepSize = static_cast<float>(hp.lr / (1.0 - std::pow(hp.beta1, t)));
    const float sqrtCorrection2 = static_cast<float>(std::sqrt(1.0 - std::pow(hp.beta2, t)));
    const float eps = static_cast<float>(hp.eps);
    state.update = -stepSize * (state.firstMoment.array() / (v.array().sqrt() / sqrtCorrection2 + eps)).matrix();
    if (decoupled_ && hp.weightDecay != 0.0) state.update -= static_cast<float>(hp.lr * hp.weightDecay) * parameters;
}

namespace {

// adam, adamw, adam-mini: (decay, gain, scale) = (b1, 1-b1, lr/(1-b1^t)); D bias-corrected, of
// v_hat with amsgrad; adamw's decay -lr*wd*w beside the step.
class AdamParts final : public UpdateRecipe {
public:
    explicit AdamParts(bool decoupled)
        : UpdateRecipe({.moment = "m",
                        .secondMoment = true,
                        .sharesFirstMoment = true,
                        .decay = decoupled ? Decay::Elsewhere : Decay::Coupled}),
          decoupled_(decoupled) {}

private:
    bool numbers(const ExplainedConnection& c, UpdateExplanation& out) const override {
        out.decay = c.hp.beta1, out.gain = 1.0 - c.hp.beta1, out.scale = c.hp.lr / (1.0 - std::pow(c.hp.beta1, c.t()));
        return true;
    }
    bool secondMomentUsed(const ExplainedConnection& c, UpdateExplanation& out, float& v) const override {
        if (!c.hp.amsgrad) return true;
        const Matrix* maximum = ruleStateOf(c.layer, "max_second_moment", out);
        if (!maximum) return false;
        v = (*maximum)(c.row, c.column);
        out.maxSecondMoment = v;
        return true;
    }
    void denominator(const ExplainedConnection& c, float v, UpdateExplanation& out) const override {
        out.denominator = biasCorrectedDenominator(c, v);
        if (decoupled_ && c.hp.weightDecay != 0.0)
            out.decayTerm = -static_cast<float>(c.hp.lr * c.hp.weightDecay) * c.weightBefore;
    }
    std::string denominatorLines(const UpdateExplanation& e, const HyperParameters& hp) const override {
        if (!hp.amsgrad) return biasCorrectedDenominatorLine(e, hp);
        return "v̂ = max(v̂′, v) = max(v̂′, " + formulaNumber(e.secondMoment) + ") = " + formulaNumber(e.maxSecondMoment) +
               "\nD = √v̂/√(1−β2^t) + ε = √" + formulaNumber(e.maxSecondMoment) + "/" +
               formulaNumber(std::sqrt(1.0 - std::pow(hp.beta2, static_cast<double>(e.step)))) + " + " +
               formulaNumber(hp.eps) + " = " + formulaNumber(e.denominator) + "\n";
    }
    std::string updateText(const FormulaNames&, const UpdateExplanation& e, const HyperParameters&) const override {
        const bool decay = e.decayTerm != 0.0;
        return std::string("−lr/(1−β1^t)·m/D") + (decay ? " − lr·wd·w" : "") + " = " +
               minusProduct(e.scale, e.firstMoment) + "/" + formulaNumber(e.denominator) +
               (decay ? " + " + formulaNumber(e.decayTerm) : "");
    }
    bool decoupled_;
};

}  // namespace

const UpdateRecipe& Adam::explanation(const HyperParameters&, WeightDecay weightDecay) {
    static const AdamParts coupled(false), decoupled(true);
    return weightDecay == WeightDecay::Decoupled ? decoupled : coupled;
}

}  // namespace ml
