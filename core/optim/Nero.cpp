#include "optim/Nero.h"

#include "optim/UpdateRecipe.h"

#include <cmath>
#include <limits>
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
// Whether centring and normalising `row` would only round it: it already is centred and of unit
// length (or zero), so constraining constrained weights changes nothing.
template <typename Row>
bool isCentredUnitRow(const Row& row) {
    const float tolerance = 8.0f * std::numeric_limits<float>::epsilon();
    const float norm = row.norm();
    return std::abs(row.mean()) <= tolerance && (norm == 0.0f || std::abs(norm - 1.0f) <= tolerance * 4.0f);
}
float scaleOr(float scale) { return scale == 0.0f ? 0.01f : scale; }
}  // namespace

Nero::Nero(std::string name, const HyperParameters& hp) : Optimizer(std::move(name), hp) {}

bool Nero::constrainInitialParameters(Parameters& parameters) const {
    bool changed = false;
    for (Matrix& layer : parameters) {
        auto w = weightsOf(layer);
        for (Eigen::Index i = 0; i < w.rows(); ++i) {
            if (isCentredUnitRow(w.row(i))) continue;
            centreAndNormaliseRows(w.middleRows(i, 1));
            changed = true;
        }
    }
    return changed;
}

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
    if (stepCount() == 1) {  // the rows were projected before the first forward pass
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
// sequential sums over a strided row): the row's stepped weights w~_j = w_j - scale*g_j/D_j, then
// mu = mean(w~), rho = ||w~ - mu||.
struct NeroRow {
    const LayerRecord& layer;
    const HyperParameters& hp;
    Eigen::Index row, inputs;
    float scale, correction;

    float before(Eigen::Index j) const { return layer.parameters(row, j) - layer.update(row, j); }
    float stepped(Eigen::Index j) const {
        const float g = ruleGradientAt(layer, hp, 0.0, row, j);
        const float s = layer.secondMoment(row, j);
        return before(j) - scale * (s > 0.0f ? g / std::sqrt(s / correction) : 0.0f);
    }
    // mean and norm after centring of the stepped row, as Eigen's row.mean() and row.norm().
    std::pair<float, float> meanAndNorm() const {
        float sum = stepped(0);
        for (Eigen::Index j = 1; j < inputs; ++j) sum += stepped(j);
        const float mean = sum / static_cast<float>(inputs);
        float squares = (stepped(0) - mean) * (stepped(0) - mean);
        for (Eigen::Index j = 1; j < inputs; ++j) squares += (stepped(j) - mean) * (stepped(j) - mean);
        return {mean, std::sqrt(squares)};
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
        const NeroRow nero{c.layer,
                           c.hp,
                           c.row,
                           c.layer.update.cols() - 1,
                           static_cast<float>(out.scale),
                           static_cast<float>(1.0 - std::pow(c.hp.beta2, c.t()))};
        const auto [mean, norm] = nero.meanAndNorm();
        const float stepped = nero.stepped(c.column), centred = stepped - mean;
        out.projected = true;
        out.weightBefore = c.weightBefore;
        out.start = c.weightBefore;
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
               formulaNumber(e.gradient) + "/" + formulaNumber(e.denominator) + " = " + formulaNumber(e.stepped) + "\n";
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
