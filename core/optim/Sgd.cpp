#include "optim/Sgd.h"

#include "optim/UpdateRecipe.h"

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

namespace {

// sgd, and momentum / neuron-mean / nesterov with momentum 0: dw = -lr*g.
class PlainSgdParts final : public UpdateRecipe {
public:
    PlainSgdParts() : UpdateRecipe({.firstMoment = false}) {}

private:
    bool numbers(const ExplainedConnection& c, UpdateExplanation& out) const override {
        out.scale = c.hp.lr;
        return true;
    }
    std::string updateText(const FormulaNames& names, const UpdateExplanation& e,
                           const HyperParameters&) const override {
        return "−lr·" + names.g + " = " + minusProduct(e.scale, e.gradient);
    }
};

// momentum, neuron-mean, nesterov: (decay, gain, scale) = (mu, 1-tau, lr), step 1: (0, 1) (a_1 = g).
class MomentumParts final : public UpdateRecipe {
public:
    explicit MomentumParts(bool nesterov) : UpdateRecipe({.sharesFirstMoment = true}), nesterov_(nesterov) {}

private:
    bool numbers(const ExplainedConnection& c, UpdateExplanation& out) const override {
        out.decay = c.step == 1 ? 0.0 : c.hp.momentum;
        out.gain = c.step == 1 ? 1.0 : 1.0 - c.hp.dampening;
        out.scale = c.hp.lr;
        return true;
    }
    float direction(const ExplainedConnection& c, float g, float a) const override {
        return nesterov_ ? g + static_cast<float>(c.hp.momentum) * a : a;
    }
    std::string updateText(const FormulaNames& names, const UpdateExplanation& e,
                           const HyperParameters& hp) const override {
        if (!nesterov_) return "−lr·" + names.m + " = " + minusProduct(e.scale, e.firstMoment);
        return "−lr·(" + names.g + " + μ·a) = −" + formulaNumber(e.scale) + "×(" + formulaNumber(e.gradient) + " + " +
               formulaNumber(hp.momentum) + "×" + formulaNumber(e.firstMoment) + ")";
    }
    bool nesterov_;
};

}  // namespace

const UpdateRecipe& Sgd::explanation(const HyperParameters& hp, Momentum momentum) {
    static const PlainSgdParts plain;
    static const MomentumParts classic(false), nesterov(true);
    if (momentum == Momentum::None || hp.momentum <= 0.0) return plain;
    return momentum == Momentum::Nesterov ? nesterov : classic;
}

}  // namespace ml
