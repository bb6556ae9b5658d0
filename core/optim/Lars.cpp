#include "optim/Lars.h"

#include "optim/UpdateRecipe.h"

#include <cmath>

namespace ml {

Lars::Lars(std::string name, const HyperParameters& hp) : Optimizer(std::move(name), hp) {}

void Lars::allocate(const Matrix& parameters, LayerState& state) const {
    state.firstMoment = Matrix::Zero(parameters.rows(), parameters.cols());
}

void Lars::update(const Matrix& parameters, const Matrix& gradient, LayerState& state) {
    const HyperParameters& hp = hyperParameters();
    const Matrix& g = ruleGradient(gradient, parameters, state, 0.0);
    const float wd = static_cast<float>(hp.weightDecay);
    const float weightNorm = weightsOf(parameters).norm(), gradientNorm = weightsOf(g).norm();
    const float localLr = weightNorm == 0.0f || gradientNorm == 0.0f
                              ? 1.0f
                              : static_cast<float>(hp.trust) * weightNorm / (gradientNorm + wd * weightNorm);
    const float lr = static_cast<float>(hp.lr), mu = static_cast<float>(hp.momentum);
    Matrix& u = state.firstMoment;
    weightsOf(u) = mu * weightsOf(u) + (lr * localLr) * (weightsOf(g) + wd * weightsOf(parameters));
    biasOf(u) = mu * biasOf(u) + lr * biasOf(g);
    state.update = -u;
}

namespace {

// ||G|| of the rule's gradient without decay (centred rows with --gradient-centralization), in place.
float gradientNorm(const LayerRecord& layer, const HyperParameters& hp) {
    const Eigen::Index inputs = layer.gradient.cols() - 1;
    const auto g = layer.gradient.leftCols(inputs);
    if (!hp.gradientCentralization) return g.norm();
    float sum = 0.0f;
    for (Eigen::Index r = 0; r < g.rows(); ++r) sum += (g.row(r).array() - g.row(r).mean()).matrix().squaredNorm();
    return std::sqrt(sum);
}

// (decay, gain, scale) = (mu, lr*T, 1) on g + wd*w; T and lr*T in float, as Lars::update; biases: T = 1.
class LarsParts final : public UpdateRecipe {
public:
    LarsParts() : UpdateRecipe({.trustRatio = true, .needsWeights = true, .decay = Decay::AfterCentring}) {}

private:
    bool numbers(const ExplainedConnection& c, UpdateExplanation& out) const override {
        const float wd = static_cast<float>(c.hp.weightDecay);
        const float wNorm = weightNormBefore(c.layer), gNorm = gradientNorm(c.layer, c.hp);
        const float trust = c.bias || wNorm == 0.0f || gNorm == 0.0f
                                ? 1.0f
                                : static_cast<float>(c.hp.trust) * wNorm / (gNorm + wd * wNorm);
        out.trustRatio = trust;
        out.decay = c.hp.momentum, out.gain = static_cast<float>(c.hp.lr) * trust, out.scale = 1.0;
        return true;
    }
    std::string leadingLines(const UpdateExplanation& e, const HyperParameters&) const override {
        return "T = η·‖W‖/(‖G‖ + wd·‖W‖) (biases: 1) = " + formulaNumber(e.trustRatio) + "\n";
    }
    std::string gainText(const UpdateExplanation&) const override { return "lr·T"; }
    std::string updateText(const FormulaNames&, const UpdateExplanation& e, const HyperParameters&) const override {
        return "−a = −" + formulaNumber(e.firstMoment);
    }
};

}  // namespace

const UpdateRecipe& Lars::explanation(const HyperParameters&) {
    static const LarsParts parts;
    return parts;
}

}  // namespace ml
