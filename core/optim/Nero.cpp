#include "optim/Nero.h"

#include "optim/UpdateRecipe.h"

#include <cmath>
#include <tuple>
#include <utility>

namespace ml {

namespace {
// Each row centred and scaled to unit length (a row that centres to 0 stays 0).
template <typename Block>
void centreAndNormaliseRows(Block rows) {
    for (Eigen::Index i = 0; i < rows.rows(); ++i) {
        auto row = rows.row(i);
        row.array() -= row.mean();
        const float norm = row.norm();
        if (norm > 0.0f) row /= norm;
    }
}
float scaleOr(float scale) { return scale == 0.0f ? 0.01f : scale; }
}  // namespace

Nero::Nero(std::string name, const HyperParameters& hp) : Optimizer(std::move(name), hp) {}

void Nero::allocate(const Matrix& parameters, LayerState& state) const {
    state.secondMoment = Matrix::Zero(parameters.rows(), parameters.cols());
    state.rowSecondMoment = Vector::Zero(parameters.rows());
    state.tensorScales = Vector::Zero(2);
}

void Nero::update(const Matrix& parameters, const Matrix& gradient, LayerState& state) {
    const HyperParameters& hp = hyperParameters();
    const Matrix& g = ruleGradient(gradient, parameters, state, 0.0);
    state.update = parameters;  // the new parameters, until the last line
    auto w = weightsOf(state.update);
    if (stepCount() == 1) {
        centreAndNormaliseRows(w);
        state.tensorScales(0) = scaleOr(w.rowwise().norm().mean());
        state.tensorScales(1) = scaleOr(biasOf(parameters).cwiseAbs().mean());
    }
    const float beta = static_cast<float>(hp.beta2), gain = static_cast<float>(1.0 - hp.beta2);
    Vector& s = state.rowSecondMoment;
    s = beta * s + gain * weightsOf(g).rowwise().squaredNorm();
    weightsOf(state.secondMoment).colwise() = s;
    auto sBias = biasOf(state.secondMoment);
    sBias = beta * sBias + gain * biasOf(g).cwiseAbs2();

    const float correction = static_cast<float>(1.0 - std::pow(hp.beta2, static_cast<double>(stepCount())));
    const float lr = static_cast<float>(hp.lr);
    for (Eigen::Index j = 0; j < state.update.cols(); ++j) {
        const bool bias = j + 1 == state.update.cols();
        const auto sj = state.secondMoment.col(j).array();
        state.update.col(j) -= (lr * state.tensorScales(bias ? 1 : 0)) *
                               (sj > 0.0f).select(g.col(j).array() / (sj / correction).sqrt(), 0.0f).matrix();
    }
    centreAndNormaliseRows(w);
    state.update -= parameters;
}

namespace {

// nero's projection of one weight row, in float and in the order Nero::update computes it (Eigen's
// sequential sums over a strided row): the row's stepped weights w~_j = start_j - scale*g_j/D_j
// (start: w_before, itself centred and normalised at step 1), then mu = mean(w~), rho = ||w~ - mu||.
struct NeroRow {
    const LayerRecord& layer;
    const HyperParameters& hp;
    Eigen::Index row, inputs;
    float scale, correction;
    bool firstStep;
    float startMean = 0.0f, startNorm = 0.0f;

    float before(Eigen::Index j) const { return layer.parameters(row, j) - layer.update(row, j); }
    float start(Eigen::Index j) const {
        if (!firstStep) return before(j);
        const float centred = before(j) - startMean;
        return startNorm > 0.0f ? centred / startNorm : centred;
    }
    float stepped(Eigen::Index j) const {
        const float g = ruleGradientAt(layer, hp, 0.0, row, j);
        const float s = layer.secondMoment(row, j);
        return start(j) - scale * (s > 0.0f ? g / std::sqrt(s / correction) : 0.0f);
    }
    // mean and norm after centring of f(0..inputs-1), as Eigen's row.mean() and row.norm().
    template <typename F>
    static std::pair<float, float> meanAndNorm(Eigen::Index n, const F& f) {
        float sum = f(0);
        for (Eigen::Index j = 1; j < n; ++j) sum += f(j);
        const float mean = sum / static_cast<float>(n);
        float squares = (f(0) - mean) * (f(0) - mean);
        for (Eigen::Index j = 1; j < n; ++j) squares += (f(j) - mean) * (f(j) - mean);
        return {mean, std::sqrt(squares)};
    }
    void prepare() {
        if (firstStep)
            std::tie(startMean, startNorm) = meanAndNorm(inputs, [this](Eigen::Index j) { return before(j); });
    }
};

// D = sqrt(S/(1-b2^t)), scale = lr*s (the tensor's scale); a weight's stepped row is then centred
// and normalised: dw = (w~ - mu)/rho - w_before.
class NeroParts final : public UpdateRecipe {
public:
    NeroParts()
        : UpdateRecipe({.firstMoment = false, .secondMoment = true, .needsWeights = true, .decay = Decay::Elsewhere}) {}

private:
    bool numbers(const ExplainedConnection& c, UpdateExplanation& out) const override {
        const Matrix* scales = ruleStateOf(c.layer, "tensor_scales", out);
        if (!scales) return false;
        out.scale = static_cast<float>(c.hp.lr) * (*scales)(c.bias ? 1 : 0);  // lr*s in float, as Nero::update
        return true;
    }
    void denominator(const ExplainedConnection& c, float v, UpdateExplanation& out) const override {
        out.denominator = std::sqrt(v / static_cast<float>(1.0 - std::pow(c.hp.beta2, c.t())));
    }
    void recombine(const ExplainedConnection& c, float g, UpdateExplanation& out) const override {
        UpdateRecipe::recombine(c, g, out);
        if (c.bias) return;
        NeroRow nero{c.layer,
                     c.hp,
                     c.row,
                     c.layer.update.cols() - 1,
                     static_cast<float>(out.scale),
                     static_cast<float>(1.0 - std::pow(c.hp.beta2, c.t())),
                     c.step == 1};
        nero.prepare();
        const auto [mean, norm] =
            NeroRow::meanAndNorm(nero.inputs, [&nero](Eigen::Index j) { return nero.stepped(j); });
        const float stepped = nero.stepped(c.column), centred = stepped - mean;
        out.projected = true;
        out.weightBefore = c.weightBefore;
        out.start = nero.start(c.column);
        out.stepped = stepped;
        out.rowMean = mean;
        out.rowNorm = norm;
        out.recombined = (norm > 0.0f ? centred / norm : centred) - c.weightBefore;
    }
    std::string denominatorLines(const UpdateExplanation& e, const HyperParameters& hp) const override {
        return "D = √(S/(1−β2^t)) = √(" + formulaNumber(e.secondMoment) + "/" +
               formulaNumber(1.0 - std::pow(hp.beta2, static_cast<double>(e.step))) +
               ") = " + formulaNumber(e.denominator) +
               "  (S: the neuron's running mean of ‖g_i‖²; a bias: of g²)\n"
               "scale = lr·s = " +
               formulaNumber(e.scale) + "  (s: the tensor's scale, fixed at step 1)\n";
    }
    std::string steppedLines(const UpdateExplanation& e) const override {
        if (!e.projected) return {};
        return "w̃ = w − scale·g/D = " + formulaNumber(e.start) + " − " + formulaNumber(e.scale) + "×" +
               formulaNumber(e.gradient) + "/" + formulaNumber(e.denominator) + " = " + formulaNumber(e.stepped) +
               (e.step == 1 ? "  (w: the row centred and normalised first, step 1)" : "") + "\n";
    }
    std::string updateText(const FormulaNames&, const UpdateExplanation& e, const HyperParameters&) const override {
        if (!e.projected)
            return "−scale·g/D (a bias: not projected) = " + minusProduct(e.scale, e.gradient) + "/" +
                   formulaNumber(e.denominator);
        return "(w̃ − μ)/ρ − w, μ = mean of the row's w̃ = " + formulaNumber(e.rowMean) +
               ", ρ = ‖w̃ − μ‖ = " + formulaNumber(e.rowNorm) + ": (" + formulaNumber(e.stepped) + " − " +
               formulaNumber(e.rowMean) + ")/" + formulaNumber(e.rowNorm) + " − " + formulaNumber(e.weightBefore);
    }
};

}  // namespace

const UpdateRecipe& Nero::explanation(const HyperParameters&) {
    static const NeroParts parts;
    return parts;
}

}  // namespace ml
