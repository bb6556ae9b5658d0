#include "optim/EmaMomentum.h"

#include "optim/UpdateRecipe.h"

namespace ml {

EmaMomentum::EmaMomentum(std::string name, const HyperParameters& hp, MomentumAggregation aggregation)
    : Optimizer(std::move(name), hp, aggregation) {}

void EmaMomentum::allocate(const Matrix& parameters, LayerState& state) const {
    state.firstMoment = Matrix::Zero(parameters.rows(), parameters.cols());
}

void EmaMomentum::update(const Matrix& parameters, const Matrix& gradient, LayerState& state) {
    const HyperParameters& hp = hyperParameters();
    const float beta = static_cast<float>(hp.momentum);
    const Matrix& g = ruleGradient(gradient, parameters, state, 0.0);
    aggregation().accumulate(state.firstMoment, g, beta, static_cast<float>(1.0 - hp.momentum), state.groupMeans,
                             state.columnsPerInput);
    state.update = -static_cast<float>(hp.lr) * state.firstMoment;
}

namespace {

// (decay, gain, scale) = (beta, 1-beta, lr).
class EmaParts final : public UpdateRecipe {
public:
    EmaParts() : UpdateRecipe({.moment = "m", .sharesFirstMoment = true}) {}

private:
    bool numbers(const ExplainedConnection& c, UpdateExplanation& out) const override {
        out.decay = c.hp.momentum, out.gain = 1.0 - c.hp.momentum, out.scale = c.hp.lr;
        return true;
    }
    std::string updateText(const FormulaNames& names, const UpdateExplanation& e,
                           const HyperParameters&) const override {
        return "−lr·" + names.m + " = " + minusProduct(e.scale, e.firstMoment);
    }
};

}  // namespace

const UpdateRecipe& EmaMomentum::explanation(const HyperParameters&) {
    static const EmaParts parts;
    return parts;
}

}  // namespace ml
