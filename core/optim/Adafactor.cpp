#include "optim/Adafactor.h"

#include "optim/UpdateRecipe.h"

#include <algorithm>
#include <cmath>

namespace ml {

namespace {
constexpr float kEps1 = 1e-30f;  // added to G^2
constexpr float kEps2 = 1e-3f;   // smallest RMS of the weights the step is relative to
constexpr float kClip = 1.0f;    // d: the largest RMS of an update before it is scaled down

template <typename Block>
float rms(const Block& block) {
    return std::sqrt(block.squaredNorm() / static_cast<float>(block.size()));
}
}  // namespace

Adafactor::Adafactor(std::string name, const HyperParameters& hp) : Optimizer(std::move(name), hp) {}

void Adafactor::allocate(const Matrix& parameters, LayerState& state) const {
    state.secondMoment = Matrix::Zero(parameters.rows(), parameters.cols());
    state.rowSecondMoment = Vector::Zero(parameters.rows());
    state.columnSecondMoment = Vector::Zero(parameters.cols() - 1);
    if (hyperParameters().beta1 > 0.0) state.firstMoment = Matrix::Zero(parameters.rows(), parameters.cols());
}

void Adafactor::update(const Matrix& parameters, const Matrix& gradient, LayerState& state) {
    const HyperParameters& hp = hyperParameters();
    const Matrix& g = ruleGradient(gradient, parameters, state, 0.0);
    const double t = static_cast<double>(stepCount());
    const float decay = static_cast<float>(1.0 - std::pow(t, -0.8));
    const float gain = static_cast<float>(std::pow(t, -0.8));  // 1 - decay, formed in double
    const float rho = static_cast<float>(hp.lr > 0.0 ? hp.lr : std::min(1e-2, 1.0 / std::sqrt(t)));

    // Second moments: R and C of the weights (state.update holds G^2 + eps1 meanwhile), v of the bias.
    state.update = (g.array().square() + kEps1).matrix();
    state.rowSecondMoment = decay * state.rowSecondMoment + gain * weightsOf(state.update).rowwise().sum();
    state.columnSecondMoment =
        decay * state.columnSecondMoment + gain * weightsOf(state.update).colwise().sum().transpose();
    auto factored = weightsOf(state.secondMoment);
    const float rowTotal = state.rowSecondMoment.sum();
    for (Eigen::Index j = 0; j < factored.cols(); ++j)
        factored.col(j) = state.rowSecondMoment * (state.columnSecondMoment(j) / rowTotal);
    biasOf(state.secondMoment) = decay * biasOf(state.secondMoment) + gain * biasOf(state.update);

    // U = G/sqrt(V), clipped tensor by tensor; with b1 > 0 averaged into m; then scaled by alpha.
    // In float, V underflows to 0 where a row and a column without gradient meet (G = 0 there): U = 0.
    const auto v = state.secondMoment.array();
    state.update = (v > 0.0f).select(g.array() / v.sqrt(), 0.0f).matrix();
    auto clip = [](auto u) { u /= std::max(1.0f, rms(u) / kClip); };
    clip(weightsOf(state.update));
    clip(biasOf(state.update));
    if (hp.beta1 > 0.0) {
        state.firstMoment =
            static_cast<float>(hp.beta1) * state.firstMoment + static_cast<float>(1.0 - hp.beta1) * state.update;
        state.update = state.firstMoment;
    }
    weightsOf(state.update) *= std::max(kEps2, rms(weightsOf(parameters))) * rho;
    biasOf(state.update) *= std::max(kEps2, rms(biasOf(parameters))) * rho;
    state.update = -state.update;
}

namespace {

// The tensor of a connection: the weight matrix, or the bias vector (the last column).
// RMS of the tensor's weights before the step, in place.
float rmsBefore(const LayerRecord& layer, bool bias) {
    const Eigen::Index inputs = layer.parameters.cols() - 1;
    const Eigen::Index first = bias ? inputs : 0, count = bias ? 1 : inputs;
    const auto w = layer.parameters.middleCols(first, count) - layer.update.middleCols(first, count);
    return std::sqrt(w.squaredNorm() / static_cast<float>(w.size()));
}

// RMS of the tensor's U = G/sqrt(V) (0 where V = 0) before clipping; G centred with
// --gradient-centralization (weights only).
float updateRms(const LayerRecord& layer, const HyperParameters& hp, bool bias) {
    const Eigen::Index inputs = layer.gradient.cols() - 1;
    const Eigen::Index first = bias ? inputs : 0, count = bias ? 1 : inputs;
    float sum = 0.0f;
    for (Eigen::Index r = 0; r < layer.gradient.rows(); ++r) {
        const float mean = hp.gradientCentralization && !bias ? layer.gradient.row(r).head(inputs).mean() : 0.0f;
        for (Eigen::Index c = first; c < first + count; ++c) {
            const float v = layer.secondMoment(r, c);
            const float u = v > 0.0f ? (layer.gradient(r, c) - mean) / std::sqrt(v) : 0.0f;
            sum += u * u;
        }
    }
    return std::sqrt(sum / static_cast<float>(layer.gradient.rows() * count));
}

// D = sqrt(V), U = g/D/c; (b1, 1-b1) on U; scale alpha = max(eps2, RMS(W))*rho of the tensor, in
// float as Adafactor::update.
class AdafactorParts final : public UpdateRecipe {
public:
    AdafactorParts()
        : UpdateRecipe({.moment = "m",
                        .secondMoment = true,
                        .denominatorFirst = true,
                        .needsWeights = true,
                        .decay = Decay::Elsewhere}) {}

private:
    bool keepsFirstMoment(const HyperParameters& hp) const override { return hp.beta1 > 0.0; }
    bool numbers(const ExplainedConnection& c, UpdateExplanation& out) const override {
        const float rho = static_cast<float>(c.hp.lr > 0.0 ? c.hp.lr : std::min(1e-2, 1.0 / std::sqrt(c.t())));
        out.scale = std::max(kEps2, rmsBefore(c.layer, c.bias)) * rho;
        if (out.hasFirstMoment) out.decay = c.hp.beta1, out.gain = 1.0 - c.hp.beta1;
        return true;
    }
    void denominator(const ExplainedConnection& c, float v, UpdateExplanation& out) const override {
        out.denominator = std::sqrt(v) + 0.0f;
        out.clipFactor = std::max(1.0f, updateRms(c.layer, c.hp, c.bias) / kClip);
    }
    void recombine(const ExplainedConnection& c, float g, UpdateExplanation& out) const override {
        out.recombined = -(scaledDirection(c, g, out) * static_cast<float>(out.scale));  // as Adafactor::update
    }
    std::string denominatorLines(const UpdateExplanation& e, const HyperParameters&) const override {
        return "D = √V = √" + formulaNumber(e.secondMoment) + " = " + formulaNumber(e.denominator) +
               "  (V = R·Cᵀ/ΣR of the factored row and column sums; biases: their own v)\n"
               "U = g/D / c, c = max(1, RMS(g/D over the tensor)) = " +
               formulaNumber(e.clipFactor) + ": U = " + formulaNumber(clipped(e)) +
               "\n"
               "α = max(ε2, RMS(W before))·ρ = " +
               formulaNumber(e.scale) + "\n";
    }
    std::string firstMomentTerm(const FormulaNames&, const UpdateExplanation&) const override { return "U"; }
    std::string updateText(const FormulaNames&, const UpdateExplanation& e, const HyperParameters&) const override {
        return e.hasFirstMoment ? "−α·m = " + minusProduct(e.scale, e.firstMoment)
                                : "−α·U = " + minusProduct(e.scale, clipped(e));
    }
    static double clipped(const UpdateExplanation& e) {
        return e.denominator == 0.0 ? 0.0 : e.gradient / e.denominator / e.clipFactor;
    }
};

}  // namespace

const UpdateRecipe& Adafactor::explanation(const HyperParameters&) {
    static const AdafactorParts parts;
    return parts;
}

}  // namespace ml
