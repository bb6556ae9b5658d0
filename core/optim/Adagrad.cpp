#include "optim/Adagrad.h"

#include "optim/UpdateRecipe.h"

namespace ml {

Adagrad::Adagrad(std::string name, const HyperParameters& hp) : Optimizer(std::move(name), hp) {}

void Adagrad::allocate(const Matrix& parameters, LayerState& state) const {
    state.secondMoment = Matrix::Constant(parameters.rows(), parameters.cols(),
                                          static_cast<float>(hyperParameters().initialAccumulator));
}

void Adagrad::update(const Matrix& parameters, const Matrix& gradient, LayerState& state) {
    const HyperParameters& hp = hyperParameters();
    const Matrix& g = ruleGradient(gradient, parameters, state, hp.weightDecay);
    const float clr = static_cast<float>(hp.lr / (1.0 + static_cast<double>(stepCount() - 1) * hp.lrDecay));
    state.secondMoment.array() += g.array().square();
    shareSecondMoment(state);
    state.update = -clr * (g.array() / (state.secondMoment.array().sqrt() + static_cast<float>(hp.eps))).matrix();
}

namespace {

// scale = lr/(1+(t-1)*lr_decay); D = sqrt(s) + eps; no first moment.
class AdagradParts final : public UpdateRecipe {
public:
    AdagradParts() : UpdateRecipe({.secondMomentName = "s", .firstMoment = false, .secondMoment = true}) {}

private:
    bool numbers(const ExplainedConnection& c, UpdateExplanation& out) const override {
        out.scale = c.hp.lr / (1.0 + (c.t() - 1.0) * c.hp.lrDecay);
        return true;
    }
    std::string updateText(const FormulaNames& names, const UpdateExplanation& e,
                           const HyperParameters& hp) const override {
        return (hp.lrDecay != 0.0 ? "−lr/(1+(t−1)·lr_decay)·" : "−lr·") + names.g +
               "/D = " + minusProduct(e.scale, e.gradient) + "/" + formulaNumber(e.denominator);
    }
};

}  // namespace

const UpdateRecipe& Adagrad::explanation(const HyperParameters&) {
    static const AdagradParts parts;
    return parts;
}

}  // namespace ml
