#include "optim/Lamb.h"

#include "optim/UpdateRecipe.h"

#include <cmath>

namespace ml {

Lamb::Lamb(std::string name, const HyperParameters& hp) : Optimizer(std::move(name), hp) {}

void Lamb::allocate(const Matrix& parameters, LayerState& state) const {
    state.firstMoment = Matrix::Zero(parameters.rows(), parameters.cols());
    state.secondMoment = Matrix::Zero(parameters.rows(), parameters.cols());
}

void Lamb::update(const Matrix& parameters, const Matrix& gradient, LayerState& state) {
    const HyperParameters& hp = hyperParameters();
    const Matrix& g = ruleGradient(gradient, parameters, state, 0.0);
    state.firstMoment = static_cast<float>(hp.beta1) * state.firstMoment + static_cast<float>(1.0 - hp.beta1) * g;
    state.secondMoment =
        static_cast<float>(hp.beta2) * state.secondMoment + static_cast<float>(1.0 - hp.beta2) * g.cwiseAbs2();
    const double t = static_cast<double>(stepCount());
    const float correction1 = static_cast<float>(1.0 - std::pow(hp.beta1, t));
    const float sqrtCorrection2 = static_cast<float>(std::sqrt(1.0 - std::pow(hp.beta2, t)));
    // state.update holds r, then the step.
    state.update = ((state.firstMoment.array() / correction1) /
                    (state.secondMoment.array().sqrt() / sqrtCorrection2 + static_cast<float>(hp.eps)))
                       .matrix();
    auto r = weightsOf(state.update);
    r += static_cast<float>(hp.weightDecay) * weightsOf(parameters);
    const float lr = static_cast<float>(hp.lr);
    const float weightNorm = weightsOf(parameters).norm(), rNorm = r.norm();
    const float trust = weightNorm == 0.0f || rNorm == 0.0f ? 1.0f : weightNorm / rNorm;
    r *= -lr * trust;
    biasOf(state.update) *= -lr;
}

namespace {

// ||R||, r = m/(1-b1^t)/D + wd*w over the weights, as Lamb::update forms it, in place.
float lambRNorm(const LayerRecord& layer, const HyperParameters& hp, float correction1, float sqrtCorrection2) {
    const Eigen::Index inputs = layer.parameters.cols() - 1;
    const auto m = layer.firstMoment.leftCols(inputs).array();
    const auto v = layer.secondMoment.leftCols(inputs).array();
    const auto w = (layer.parameters.leftCols(inputs) - layer.update.leftCols(inputs)).array();
    return ((m / correction1) / (v.sqrt() / sqrtCorrection2 + static_cast<float>(hp.eps)) +
            static_cast<float>(hp.weightDecay) * w)
        .matrix()
        .norm();
}

// adam's m and D; dw = -lr*T*r with r = m/(1-b1^t)/D + wd*w, T = ||W||/||R|| over the layer's
// weights; biases: r = m_hat/D, T = 1.
class LambParts final : public UpdateRecipe {
public:
    LambParts()
        : UpdateRecipe({.moment = "m",
                        .secondMoment = true,
                        .trustRatio = true,
                        .needsWeights = true,
                        .decay = Decay::Elsewhere}) {}

private:
    bool numbers(const ExplainedConnection& c, UpdateExplanation& out) const override {
        out.decay = c.hp.beta1, out.gain = 1.0 - c.hp.beta1, out.scale = c.hp.lr;
        return true;
    }
    void denominator(const ExplainedConnection& c, float v, UpdateExplanation& out) const override {
        out.denominator = biasCorrectedDenominator(c, v);
    }
    void recombine(const ExplainedConnection& c, float, UpdateExplanation& out) const override {
        const HyperParameters& hp = c.hp;
        const float correction1 = static_cast<float>(1.0 - std::pow(hp.beta1, c.t()));
        const float sqrtCorrection2 = static_cast<float>(std::sqrt(1.0 - std::pow(hp.beta2, c.t())));
        const float wd = c.bias ? 0.0f : static_cast<float>(hp.weightDecay);
        const float r = static_cast<float>(out.firstMoment) / correction1 / static_cast<float>(out.denominator) +
                        wd * c.weightBefore;
        float trust = 1.0f;
        if (!c.bias) {
            const float wNorm = weightNormBefore(c.layer);
            const float rNorm = lambRNorm(c.layer, hp, correction1, sqrtCorrection2);
            trust = wNorm == 0.0f || rNorm == 0.0f ? 1.0f : wNorm / rNorm;
        }
        const float stepSize = -static_cast<float>(hp.lr) * trust;
        out.trustRatio = trust;
        out.scale = -stepSize / correction1;  // the formula's lr*T/(1-b1^t) on m/D
        out.decayTerm = stepSize * (wd * c.weightBefore);
        out.recombined = stepSize * r;
    }
    std::string denominatorLines(const UpdateExplanation& e, const HyperParameters& hp) const override {
        return biasCorrectedDenominatorLine(e, hp);
    }
    std::string updateText(const FormulaNames&, const UpdateExplanation& e, const HyperParameters&) const override {
        return "−lr·T·(m/(1−β1^t)/D + wd·w) with T = ‖W‖/‖R‖ (biases: 1, no wd) = " + formulaNumber(e.trustRatio) +
               ": " + minusProduct(e.scale, e.firstMoment) + "/" + formulaNumber(e.denominator) +
               (e.decayTerm != 0.0 ? " + " + formulaNumber(e.decayTerm) : "");
    }
};

}  // namespace

const UpdateRecipe& Lamb::explanation(const HyperParameters&) {
    static const LambParts parts;
    return parts;
}

}  // namespace ml
