#include "optim/NovoGrad.h"

#include "optim/UpdateRecipe.h"

#include <cmath>

namespace ml {

NovoGrad::NovoGrad(std::string name, const HyperParameters& hp) : Optimizer(std::move(name), hp) {}

void NovoGrad::allocate(const Matrix& parameters, LayerState& state) const {
    state.firstMoment = Matrix::Zero(parameters.rows(), parameters.cols());
    state.secondMoment = Matrix::Zero(parameters.rows(), parameters.cols());
}

void NovoGrad::update(const Matrix& parameters, const Matrix& gradient, LayerState& state) {
    const HyperParameters& hp = hyperParameters();
    const Matrix& g = ruleGradient(gradient, parameters, state, 0.0);
    const bool first = stepCount() == 1;
    const float beta1 = first ? 0.0f : static_cast<float>(hp.beta1);
    const float beta2 = first ? 0.0f : static_cast<float>(hp.beta2);
    const float gain2 = first ? 1.0f : static_cast<float>(1.0 - hp.beta2);
    const float wd = static_cast<float>(hp.weightDecay), eps = static_cast<float>(hp.eps);
    // The same step for each tensor: its v, then its m.
    auto tensorStep = [&](auto gT, auto wT, auto mT, auto vT) {
        const float v = beta2 * vT(0, 0) + gain2 * gT.squaredNorm();
        vT.setConstant(v);
        mT = beta1 * mT + gT / (std::sqrt(v) + eps) + wd * wT;
    };
    tensorStep(weightsOf(g), weightsOf(parameters), weightsOf(state.firstMoment), weightsOf(state.secondMoment));
    tensorStep(biasOf(g), biasOf(parameters), biasOf(state.firstMoment), biasOf(state.secondMoment));
    state.update = -static_cast<float>(hp.lr) * state.firstMoment;
}

namespace {

// (decay, gain, scale) = (b1, 1, lr) on g/D (step 1: decay 0), plus wd*w_before in the first moment.
class NovoGradParts final : public UpdateRecipe {
public:
    NovoGradParts()
        : UpdateRecipe({.moment = "m",
                        .secondMoment = true,
                        .denominatorFirst = true,
                        .needsWeights = true,
                        .decay = Decay::Elsewhere}) {}

private:
    bool numbers(const ExplainedConnection& c, UpdateExplanation& out) const override {
        out.decay = c.step == 1 ? 0.0 : c.hp.beta1, out.gain = 1.0, out.scale = c.hp.lr;
        out.extra = static_cast<float>(c.hp.weightDecay) * c.weightBefore;
        return true;
    }
    std::string extraTerm(const HyperParameters& hp) const override { return hp.weightDecay != 0.0 ? "wd·w" : ""; }
    std::string updateText(const FormulaNames&, const UpdateExplanation& e, const HyperParameters&) const override {
        return "−lr·m = " + minusProduct(e.scale, e.firstMoment);
    }
};

}  // namespace

const UpdateRecipe& NovoGrad::explanation(const HyperParameters&) {
    static const NovoGradParts parts;
    return parts;
}

}  // namespace ml
