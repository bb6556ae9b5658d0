#include "train/UpdateExplanation.h"

#include "optim/MomentumAggregation.h"

#include <cmath>
#include <cstdio>
#include <string_view>
#include <tuple>
#include <utility>

namespace ml {

namespace {

// What decides the recipe's numbers; the catalog's names map onto it.
enum class Kind {
    Sgd,
    HeavyBall,
    Nesterov,
    Ema,
    Adam,
    AdamW,
    RmsProp,
    Adagrad,
    Lars,
    Lamb,
    NovoGrad,
    Sm3,
    Adafactor,
    Nero,
    Unexplained
};

Kind kindOf(const std::string& name, const HyperParameters& hp) {
    if (name == "sgd") return Kind::Sgd;
    if (name == "momentum" || name == "neuron-mean") return hp.momentum > 0.0 ? Kind::HeavyBall : Kind::Sgd;
    if (name == "nesterov") return Kind::Nesterov;
    if (name == "sgdm-ema") return Kind::Ema;
    if (name == "adam") return Kind::Adam;
    if (name == "adamw" || name == "adam-mini") return Kind::AdamW;
    if (name == "rmsprop") return Kind::RmsProp;
    if (name == "adagrad") return Kind::Adagrad;
    if (name == "lars") return Kind::Lars;
    if (name == "lamb") return Kind::Lamb;
    if (name == "novograd") return Kind::NovoGrad;
    if (name == "sm3") return Kind::Sm3;
    if (name == "adafactor") return Kind::Adafactor;
    if (name == "nero") return Kind::Nero;
    return Kind::Unexplained;
}

std::string number(double value) {
    if (value == 0.0) value = 0.0;  // -0 (say wd*w with wd = 0 and w < 0) reads as 0
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", value);
    return text;
}

// Entry (row, column) of the rule's gradient (see the header), as Optimizer::ruleGradient builds
// it, read from the snapshot in place: the explainer copies no matrix.
float ruleGradientAt(const LayerSnapshot& layer, const HyperParameters& hp, double weightDecay, Eigen::Index row,
                     Eigen::Index column) {
    const float wd = static_cast<float>(weightDecay);
    const auto rowOf = layer.gradient.row(row) + wd * (layer.parameters.row(row) - layer.update.row(row));
    float value = rowOf(column);
    const Eigen::Index inputs = layer.gradient.cols() - 1;
    if (hp.gradientCentralization && column < inputs) value -= rowOf.head(inputs).mean();
    return value;
}

// The layer-wise rules' norms over a layer's weights (the bias column left out), read in place.
// ||W|| of the weights before the step.
float weightNormBefore(const LayerSnapshot& layer) {
    const Eigen::Index inputs = layer.parameters.cols() - 1;
    return (layer.parameters.leftCols(inputs) - layer.update.leftCols(inputs)).norm();
}

// ||G|| of the rule's gradient without decay (centred rows with --gradient-centralization).
float gradientNorm(const LayerSnapshot& layer, const HyperParameters& hp) {
    const Eigen::Index inputs = layer.gradient.cols() - 1;
    const auto g = layer.gradient.leftCols(inputs);
    if (!hp.gradientCentralization) return g.norm();
    float sum = 0.0f;
    for (Eigen::Index r = 0; r < g.rows(); ++r) sum += (g.row(r).array() - g.row(r).mean()).matrix().squaredNorm();
    return std::sqrt(sum);
}

// lamb's ||R||, r = m/(1-b1^t)/D + wd*w over the weights, as Lamb::update forms it.
float lambRNorm(const LayerSnapshot& layer, const HyperParameters& hp, float correction1, float sqrtCorrection2) {
    const Eigen::Index inputs = layer.parameters.cols() - 1;
    const auto m = layer.firstMoment.leftCols(inputs).array();
    const auto v = layer.secondMoment.leftCols(inputs).array();
    const auto w = (layer.parameters.leftCols(inputs) - layer.update.leftCols(inputs)).array();
    return ((m / correction1) / (v.sqrt() / sqrtCorrection2 + static_cast<float>(hp.eps)) +
            static_cast<float>(hp.weightDecay) * w)
        .matrix()
        .norm();
}

// adafactor's tensors: the weight matrix, or the bias vector (the last column).
// RMS of the tensor's weights before the step.
float rmsBefore(const LayerSnapshot& layer, bool bias) {
    const Eigen::Index inputs = layer.parameters.cols() - 1;
    const Eigen::Index first = bias ? inputs : 0, count = bias ? 1 : inputs;
    const auto w = layer.parameters.middleCols(first, count) - layer.update.middleCols(first, count);
    return std::sqrt(w.squaredNorm() / static_cast<float>(w.size()));
}

// RMS of the tensor's U = G/sqrt(V) (0 where V = 0) before clipping; G centred with
// --gradient-centralization (weights only).
float adafactorUpdateRms(const LayerSnapshot& layer, const HyperParameters& hp, bool bias) {
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

// One connection's M(a) and carried value C(a), read in place: entry (row, column) of
// MomentumAggregation::meanPerEntry and ::aggregate for `aggregation`'s settings, without copying
// the layer (test_explainer recombines every connection's recorded update from them, for every
// scope, bias mode, blend and statistic).
float groupValueAt(const MomentumAggregation& aggregation, const Matrix& a, Eigen::Index row, Eigen::Index column,
                   Eigen::Index columnsPerInput) {
    const Eigen::Index last = a.cols() - 1;
    const bool join = aggregation.bias() == BiasMode::Join;
    const auto block = a.leftCols(join ? a.cols() : last);
    const bool magnitude = aggregation.statistic() == MeanStatistic::SignedAbsMean;
    const auto statistic = [magnitude](const auto& entries) {
        return magnitude ? entries.cwiseAbs().mean() : entries.mean();
    };
    float group = 0.0f;
    switch (aggregation.scope()) {
    case MeanScope::None:  // meanPerEntry's fan-in
    case MeanScope::FanIn: group = statistic(block.row(row)); break;
    case MeanScope::FanOut:
        group = column == last
                    ? statistic(a.col(last))
                    : statistic(block.middleCols(column / columnsPerInput * columnsPerInput, columnsPerInput));
        break;
    case MeanScope::Layer: group = statistic(block); break;
    }
    const float entry = a(row, column);
    return magnitude ? static_cast<float>((entry > 0.0f) - (entry < 0.0f)) * group : group;
}

float meanAt(const MomentumAggregation& aggregation, const Matrix& a, Eigen::Index row, Eigen::Index column,
             Eigen::Index columnsPerInput) {
    const bool ownBias = column == a.cols() - 1 && aggregation.bias() == BiasMode::Own;
    return ownBias ? a(row, column) : groupValueAt(aggregation, a, row, column, columnsPerInput);
}

float carriedAt(const MomentumAggregation& aggregation, const Matrix& a, Eigen::Index row, Eigen::Index column,
                Eigen::Index columnsPerInput) {
    const float entry = a(row, column);
    const bool ownBias = column == a.cols() - 1 && aggregation.bias() == BiasMode::Own;
    const float blend = aggregation.blend();
    if (aggregation.scope() == MeanScope::None || blend == 0.0f || ownBias) return entry;
    const float shared = groupValueAt(aggregation, a, row, column, columnsPerInput);
    return blend == 1.0f ? shared : (1.0f - blend) * entry + blend * shared;
}

// What the carried first moment is called in the formula: the shared value, a blend, or a itself.
std::string carriedName(const HyperParameters& hp, const std::string& moment) {
    if (hp.momentumMean == MeanScope::None || hp.momentumMeanBlend == 0.0) return moment + "′";
    const std::string shared = (hp.momentumMeanStat == MeanStatistic::SignedAbsMean ? "S(" : "M(") + moment + "′)";
    if (hp.momentumMeanBlend == 1.0) return shared;
    return "(" + number(1.0 - hp.momentumMeanBlend) + "·" + moment + "′ + " + number(hp.momentumMeanBlend) + "·" +
           shared + ")";
}

// Why a rule is not taken apart.
std::string unexplainedReason(const std::string& name) {
    return name +
           " is not taken apart (the explainer knows the sgd, momentum, adam, rmsprop, adagrad families and "
           "lars, lamb, novograd, sm3, adafactor, nero)";
}

// A rule-state buffer the recipe needs (Snapshot.h's ruleState), or null with `out.reason` set.
const Matrix* ruleStateOf(const LayerSnapshot& layer, const char* name, UpdateExplanation& out) {
    const Matrix* buffer = layer.ruleStateBuffer(name);
    if (!buffer || buffer->size() == 0)
        out.reason = std::string("the snapshot keeps no ") + name +
                     " (recorded by live runs and by snapshots.bin from format 2 on)";
    return buffer;
}

// nero's projection of one weight row, in float and in the order Nero::update computes it (Eigen's
// sequential sums over a strided row): the row's stepped weights w~_j = start_j - scale*g_j/D_j
// (start: w_before, itself centred and normalised at step 1), then mu = mean(w~), rho = ||w~ - mu||.
struct NeroRow {
    const LayerSnapshot& layer;
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

// The rule's lines with this step's numbers (a' is the step before's first moment).
std::string formulaText(const UpdateExplanation& e, const RunSpec& spec, Kind kind) {
    const HyperParameters& hp = spec.hp;
    const bool adam = kind == Kind::Adam || kind == Kind::AdamW;
    const std::string m = kind == Kind::Ema || adam || kind == Kind::Lamb || kind == Kind::NovoGrad ||
                                  kind == Kind::Sm3 || kind == Kind::Adafactor
                              ? "m"
                              : "a";
    const bool decayInG = hp.weightDecay != 0.0 && kind != Kind::AdamW && kind != Kind::Lamb &&
                          kind != Kind::NovoGrad && kind != Kind::Sm3;
    const std::string g = decayInG ? "(g+wd·w)" : "g";
    std::string text;
    if (kind == Kind::Lars) text += "T = η·‖W‖/(‖G‖ + wd·‖W‖) (biases: 1) = " + number(e.trustRatio) + "\n";
    if (e.hasSecondMoment) {
        if (adam && hp.amsgrad)
            text += "v̂ = max(v̂′, v) = max(v̂′, " + number(e.secondMoment) + ") = " + number(e.maxSecondMoment) +
                    "\nD = √v̂/√(1−β2^t) + ε = √" + number(e.maxSecondMoment) + "/" +
                    number(std::sqrt(1.0 - std::pow(hp.beta2, static_cast<double>(e.step)))) + " + " + number(hp.eps) +
                    " = " + number(e.denominator) + "\n";
        else if (adam || kind == Kind::Lamb)
            text += "D = √v/√(1−β2^t) + ε = √" + number(e.secondMoment) + "/" +
                    number(std::sqrt(1.0 - std::pow(hp.beta2, static_cast<double>(e.step)))) + " + " + number(hp.eps) +
                    " = " + number(e.denominator) + "\n";
        else if (kind == Kind::Adafactor)
            text += "D = √V = √" + number(e.secondMoment) + " = " + number(e.denominator) +
                    "  (V = R·Cᵀ/ΣR of the factored row and column sums; biases: their own v)\n"
                    "U = g/D / c, c = max(1, RMS(g/D over the tensor)) = " +
                    number(e.clipFactor) +
                    ": U = " + number(e.denominator == 0.0 ? 0.0 : e.gradient / e.denominator / e.clipFactor) +
                    "\n"
                    "α = max(ε2, RMS(W before))·ρ = " +
                    number(e.scale) + "\n";
        else if (kind == Kind::Nero)
            text += "D = √(S/(1−β2^t)) = √(" + number(e.secondMoment) + "/" +
                    number(1.0 - std::pow(hp.beta2, static_cast<double>(e.step))) + ") = " + number(e.denominator) +
                    "  (S: the neuron's running mean of ‖g_i‖²; a bias: of g²)\n"
                    "scale = lr·s = " +
                    number(e.scale) + "  (s: the tensor's scale, fixed at step 1)\n";
        else if (kind == Kind::RmsProp && hp.centered)
            text += "c = α·c′ + (1−α)·g = " + number(e.centredMean) +
                    "  (the running mean of g)\nD = √(v − c²) + ε = √(" + number(e.secondMoment) + " − " +
                    number(e.centredMean) + "²) + " + number(hp.eps) + " = " + number(e.denominator) + "\n";
        else if (kind == Kind::Sm3)
            text += "D = √ν = √" + number(e.secondMoment) + " = " + number(e.denominator) +
                    "  (ν = min(μ_row, μ_col) + g²; the covers μ_row, μ_col are not recorded, ν is)\n";
        else
            text += std::string("D = √") + (kind == Kind::Adagrad ? "s" : "v") + " + ε = √" + number(e.secondMoment) +
                    " + " + number(hp.eps) + " = " + number(e.denominator) + "\n";
    }
    if (e.hasFirstMoment) {
        const std::string term = kind == Kind::Adafactor ? "U" : e.denominatorFirst ? g + "/D" : g;
        const double termValue = e.denominatorFirst ? e.gradient / e.denominator / e.clipFactor : e.gradient;
        const std::string carriedText = kind == Kind::Lars || kind == Kind::Lamb || kind == Kind::NovoGrad ||
                                                kind == Kind::Sm3 || kind == Kind::Adafactor
                                            ? m + "′"
                                            : carriedName(hp, m);
        const std::string gainText = kind == Kind::Lars ? "lr·T" : number(e.gain);
        text += m + " = " + number(e.decay) + "·" + carriedText + " + " + gainText + "·" + term +
                (kind == Kind::NovoGrad && hp.weightDecay != 0.0 ? " + wd·w" : "") + " = ";
        if (e.carriedInferred)
            text += number(e.carried) + " (inferred: step " + std::to_string(e.step - 1) + " not recorded)";
        else if (e.decay != 0.0) text += number(e.decay) + "×" + number(e.carried / e.decay);
        else text += "0";
        text += " + " + number(e.gain) + "×" + number(termValue);
        if (kind == Kind::NovoGrad && hp.weightDecay != 0.0) text += " + " + number(e.extra);
        text += " = " + number(e.firstMoment) + "\n";
    }
    if (kind == Kind::Nero && e.projected)
        text += "w̃ = w − scale·g/D = " + number(e.start) + " − " + number(e.scale) + "×" + number(e.gradient) + "/" +
                number(e.denominator) + " = " + number(e.stepped) +
                (e.step == 1 ? "  (w: the row centred and normalised first, step 1)" : "") + "\n";
    text += "Δw = ";
    switch (kind) {
    case Kind::Sgd: text += "−lr·" + g + " = −" + number(e.scale) + "×" + number(e.gradient); break;
    case Kind::Nesterov:
        text += "−lr·(" + g + " + μ·a) = −" + number(e.scale) + "×(" + number(e.gradient) + " + " +
                number(hp.momentum) + "×" + number(e.firstMoment) + ")";
        break;
    case Kind::HeavyBall:
    case Kind::Ema: text += "−lr·" + m + " = −" + number(e.scale) + "×" + number(e.firstMoment); break;
    case Kind::RmsProp:
    case Kind::Adagrad:
        if (e.hasFirstMoment) {
            text += "−lr·a = −" + number(e.scale) + "×" + number(e.firstMoment);
            break;
        }
        text += (kind == Kind::Adagrad && hp.lrDecay != 0.0 ? "−lr/(1+(t−1)·lr_decay)·" : "−lr·") + g + "/D = −" +
                number(e.scale) + "×" + number(e.gradient) + "/" + number(e.denominator);
        break;
    case Kind::Adam:
    case Kind::AdamW:
        text += "−lr/(1−β1^t)·m/D";
        if (e.decayTerm != 0.0) text += " − lr·wd·w";
        text += " = −" + number(e.scale) + "×" + number(e.firstMoment) + "/" + number(e.denominator);
        if (e.decayTerm != 0.0) text += " + " + number(e.decayTerm);
        break;
    case Kind::Lars: text += "−a = −" + number(e.firstMoment); break;
    case Kind::Adafactor:
        text += e.hasFirstMoment ? "−α·m = −" + number(e.scale) + "×" + number(e.firstMoment)
                                 : "−α·U = −" + number(e.scale) + "×" +
                                       number(e.denominator == 0.0 ? 0.0 : e.gradient / e.denominator / e.clipFactor);
        break;
    case Kind::Sm3:
        if (e.hasFirstMoment) text += "−lr·m = −" + number(e.scale) + "×" + number(e.firstMoment);
        else
            text += "−lr·g/D (0 where ν = 0) = −" + number(e.scale) + "×" + number(e.gradient) + "/" +
                    number(e.denominator);
        break;
    case Kind::NovoGrad: text += "−lr·m = −" + number(e.scale) + "×" + number(e.firstMoment); break;
    case Kind::Nero:
        if (e.projected)
            text += "(w̃ − μ)/ρ − w, μ = mean of the row's w̃ = " + number(e.rowMean) +
                    ", ρ = ‖w̃ − μ‖ = " + number(e.rowNorm) + ": (" + number(e.stepped) + " − " + number(e.rowMean) +
                    ")/" + number(e.rowNorm) + " − " + number(e.weightBefore);
        else
            text += "−scale·g/D (a bias: not projected) = −" + number(e.scale) + "×" + number(e.gradient) + "/" +
                    number(e.denominator);
        break;
    case Kind::Lamb:
        text += "−lr·T·(m/(1−β1^t)/D + wd·w) with T = ‖W‖/‖R‖ (biases: 1, no wd) = " + number(e.trustRatio) + ": −" +
                number(e.scale) + "×" + number(e.firstMoment) + "/" + number(e.denominator);
        if (e.decayTerm != 0.0) text += " + " + number(e.decayTerm);
        break;
    case Kind::Unexplained: break;
    }
    text += " = " + number(e.recombined) + "  (recorded " + number(e.update) + ")";
    return text;
}

}  // namespace

UpdateExplanation explainUpdate(const RunSpec& spec, const Snapshot& now, const Snapshot* before, int layer, int row,
                                int column) {
    UpdateExplanation out;
    out.step = now.step;
    const HyperParameters& hp = spec.hp;
    const Kind kind = kindOf(spec.optimizer, hp);
    if (kind == Kind::Unexplained) {
        out.reason = unexplainedReason(spec.optimizer);
        return out;
    }
    if (layer < 0 || layer >= static_cast<int>(now.layers.size())) {
        out.reason = "no such layer";
        return out;
    }
    const LayerSnapshot& current = now.layers[static_cast<std::size_t>(layer)];
    if (current.gradient.size() == 0 || current.update.size() == 0 || row < 0 || row >= current.update.rows() ||
        column < 0 || column >= current.update.cols()) {
        out.reason = "the snapshot keeps no gradient or update here";
        return out;
    }
    const bool adam = kind == Kind::Adam || kind == Kind::AdamW;
    const bool adamDenominator = adam || kind == Kind::Lamb;  // D with adam's bias correction
    const double t = static_cast<double>(now.step);
    const bool bias = column == current.update.cols() - 1;
    out.hasFirstMoment = kind != Kind::Sgd && kind != Kind::Adagrad && kind != Kind::Nero &&
                         !((kind == Kind::RmsProp || kind == Kind::Sm3) && hp.momentum <= 0.0) &&
                         !(kind == Kind::Adafactor && hp.beta1 <= 0.0);
    out.hasSecondMoment = adamDenominator || kind == Kind::RmsProp || kind == Kind::Adagrad || kind == Kind::NovoGrad ||
                          kind == Kind::Sm3 || kind == Kind::Adafactor || kind == Kind::Nero;
    // b <- mu*b + g/D (rmsprop with momentum), m <- b1*m + g/D + wd*w (novograd), m <- mu*m + (1-mu)*g/D (sm3)
    out.denominatorFirst =
        ((kind == Kind::RmsProp || kind == Kind::Sm3 || kind == Kind::Adafactor) && out.hasFirstMoment) ||
        kind == Kind::NovoGrad;
    out.hasTrustRatio = kind == Kind::Lars || kind == Kind::Lamb;
    const float wBefore = current.parameters(row, column) - current.update(row, column);
    if ((out.hasTrustRatio || kind == Kind::NovoGrad || kind == Kind::Adafactor || kind == Kind::Nero) &&
        current.parameters.cols() != current.update.cols()) {
        out.reason = "the snapshot keeps no weights here";
        return out;
    }
    switch (kind) {
    case Kind::Sgd: out.scale = hp.lr; break;
    case Kind::HeavyBall:
    case Kind::Nesterov:
        out.decay = now.step == 1 ? 0.0 : hp.momentum;  // b_1 = g
        out.gain = now.step == 1 ? 1.0 : 1.0 - hp.dampening;
        out.scale = hp.lr;
        break;
    case Kind::Ema: out.decay = hp.momentum, out.gain = 1.0 - hp.momentum, out.scale = hp.lr; break;
    case Kind::Adam:
    case Kind::AdamW:
        out.decay = hp.beta1, out.gain = 1.0 - hp.beta1, out.scale = hp.lr / (1.0 - std::pow(hp.beta1, t));
        break;
    case Kind::RmsProp:
        if (out.hasFirstMoment) out.decay = hp.momentum, out.gain = 1.0;
        out.scale = hp.lr;
        break;
    case Kind::Adagrad: out.scale = hp.lr / (1.0 + (t - 1.0) * hp.lrDecay); break;
    case Kind::Lars: {
        // T and lr*T in float, as Lars::update; biases: T = 1.
        const float wd = static_cast<float>(hp.weightDecay);
        const float wNorm = weightNormBefore(current), gNorm = gradientNorm(current, hp);
        const float trust =
            bias || wNorm == 0.0f || gNorm == 0.0f ? 1.0f : static_cast<float>(hp.trust) * wNorm / (gNorm + wd * wNorm);
        out.trustRatio = trust;
        out.decay = hp.momentum, out.gain = static_cast<float>(hp.lr) * trust, out.scale = 1.0;
        break;
    }
    case Kind::Lamb: out.decay = hp.beta1, out.gain = 1.0 - hp.beta1, out.scale = hp.lr; break;
    case Kind::NovoGrad:
        out.decay = now.step == 1 ? 0.0 : hp.beta1, out.gain = 1.0, out.scale = hp.lr;
        out.extra = static_cast<float>(hp.weightDecay) * wBefore;
        break;
    case Kind::Sm3:
        if (out.hasFirstMoment) out.decay = hp.momentum, out.gain = 1.0 - hp.momentum;
        out.scale = hp.lr;
        break;
    case Kind::Adafactor: {
        // alpha = max(eps2, RMS(W))*rho of this connection's tensor, in float as Adafactor::update.
        const float rho = static_cast<float>(hp.lr > 0.0 ? hp.lr : std::min(1e-2, 1.0 / std::sqrt(t)));
        out.scale = std::max(1e-3f, rmsBefore(current, bias)) * rho;
        if (out.hasFirstMoment) out.decay = hp.beta1, out.gain = 1.0 - hp.beta1;
        break;
    }
    case Kind::Nero: {
        const Matrix* scales = ruleStateOf(current, "tensor_scales", out);
        if (!scales) return out;
        out.scale = static_cast<float>(hp.lr) * (*scales)(bias ? 1 : 0);  // lr*s in float, as Nero::update
        break;
    }
    case Kind::Unexplained: break;
    }

    // The rules with decoupled or layer-wise decay take g without it; lars adds wd*w after centring.
    const bool coupledDecay = kind != Kind::AdamW && kind != Kind::Lars && kind != Kind::Lamb &&
                              kind != Kind::NovoGrad && kind != Kind::Sm3 && kind != Kind::Adafactor &&
                              kind != Kind::Nero;
    float gf = ruleGradientAt(current, hp, coupledDecay ? hp.weightDecay : 0.0, row, column);
    if (kind == Kind::Lars && !bias) gf += static_cast<float>(hp.weightDecay) * wBefore;
    out.gradient = gf;
    out.update = current.update(row, column);
    if (out.hasSecondMoment) {
        if (current.secondMoment.size() == 0) {
            out.reason = "the snapshot keeps no second moment";
            return out;
        }
        out.secondMoment = current.secondMoment(row, column);
        // What D takes of the second moment: v, amsgrad's v_hat, centered rmsprop's v - c^2.
        float v = current.secondMoment(row, column);
        if (adam && hp.amsgrad) {
            const Matrix* maximum = ruleStateOf(current, "max_second_moment", out);
            if (!maximum) return out;
            v = (*maximum)(row, column);
            out.maxSecondMoment = v;
        } else if (kind == Kind::RmsProp && hp.centered) {
            const Matrix* mean = ruleStateOf(current, "centred_mean", out);
            if (!mean) return out;
            const float c = (*mean)(row, column);
            out.centredMean = c;
            v = v - c * c;
        }
        const float root = std::sqrt(v);
        const float correction = adamDenominator ? static_cast<float>(std::sqrt(1.0 - std::pow(hp.beta2, t))) : 1.0f;
        // sm3, adafactor, nero: no eps (g/D = 0 where D = 0, below).
        const bool noEps = kind == Kind::Sm3 || kind == Kind::Adafactor || kind == Kind::Nero;
        out.denominator = (adamDenominator ? root / correction : root) + (noEps ? 0.0f : static_cast<float>(hp.eps));
        if (kind == Kind::Nero)  // sqrt(S/(1-b2^t)), in float as Nero::update
            out.denominator = std::sqrt(v / static_cast<float>(1.0 - std::pow(hp.beta2, t)));
        if (kind == Kind::Adafactor) out.clipFactor = std::max(1.0f, adafactorUpdateRms(current, hp, bias) / 1.0f);
        if (kind == Kind::AdamW && hp.weightDecay != 0.0)
            out.decayTerm = -static_cast<float>(hp.lr * hp.weightDecay) * wBefore;
    }
    const float gain = static_cast<float>(out.gain), decay = static_cast<float>(out.decay);
    const float denominatorValue = static_cast<float>(out.denominator);
    const auto divided = [denominatorValue](float value) {
        return denominatorValue == 0.0f ? 0.0f : value / denominatorValue;
    };
    const float clip = static_cast<float>(out.clipFactor);  // 1 but for adafactor
    const float gradientTerm = gain * (out.denominatorFirst ? divided(gf) / clip : gf);
    if (out.hasFirstMoment) {
        if (current.firstMoment.size() == 0) {
            out.reason = "the snapshot keeps no first moment";
            return out;
        }
        out.recordedFirstMoment = current.firstMoment(row, column);
        // Only the sgd and adam families share the first moment: the others carry a itself.
        const bool shares = kind != Kind::RmsProp && kind != Kind::Lars && kind != Kind::Lamb &&
                            kind != Kind::NovoGrad && kind != Kind::Sm3 && kind != Kind::Adafactor;
        const MomentumAggregation aggregation =
            !shares ? MomentumAggregation()
                    : MomentumAggregation(hp.momentumMean, hp.bias, hp.momentumMeanBlend, hp.momentumMeanStat);
        const LayerSnapshot* previous =
            before && before->step == now.step - 1 && static_cast<int>(before->layers.size()) > layer
                ? &before->layers[static_cast<std::size_t>(layer)]
                : nullptr;
        if (now.step == 1 || (previous && previous->firstMoment.size() == current.firstMoment.size())) {
            // a_0 = 0 before the first step (every rule here starts from zero or from g).
            if (now.step > 1) {
                const Matrix& a = previous->firstMoment;
                out.ownMomentum = a(row, column);
                out.neuronMean = meanAt(aggregation, a, row, column, current.columnsPerInput);
                out.carried = decay * carriedAt(aggregation, a, row, column, current.columnsPerInput);
            } else {
                out.ownMomentum = out.neuronMean = 0.0;
                out.carried = 0.0;
            }
            out.firstMoment = static_cast<float>(out.carried) + gradientTerm + static_cast<float>(out.extra);
        } else {
            out.carriedInferred = true;
            out.firstMoment = out.recordedFirstMoment;
            out.carried = current.firstMoment(row, column) - gradientTerm - static_cast<float>(out.extra);
        }
    }

    if (kind == Kind::Lamb) {
        // r = m/(1-b1^t)/D + wd*w, T = ||W||/||R|| over the layer's weights; biases: r = m_hat/D, T = 1.
        const float correction1 = static_cast<float>(1.0 - std::pow(hp.beta1, t));
        const float sqrtCorrection2 = static_cast<float>(std::sqrt(1.0 - std::pow(hp.beta2, t)));
        const float wd = bias ? 0.0f : static_cast<float>(hp.weightDecay);
        const float r =
            static_cast<float>(out.firstMoment) / correction1 / static_cast<float>(out.denominator) + wd * wBefore;
        float trust = 1.0f;
        if (!bias) {
            const float wNorm = weightNormBefore(current), rNorm = lambRNorm(current, hp, correction1, sqrtCorrection2);
            trust = wNorm == 0.0f || rNorm == 0.0f ? 1.0f : wNorm / rNorm;
        }
        const float stepSize = -static_cast<float>(hp.lr) * trust;
        out.trustRatio = trust;
        out.scale = -stepSize / correction1;  // the formula's lr*T/(1-b1^t) on m/D
        out.decayTerm = stepSize * (wd * wBefore);
        out.recombined = stepSize * r;
        out.explained = true;
        out.formula = formulaText(out, spec, kind);
        return out;
    }

    // The direction and the step, in float as the rules compute them.
    const float a = static_cast<float>(out.firstMoment);
    const float direction = !out.hasFirstMoment      ? gf
                            : kind == Kind::Nesterov ? gf + static_cast<float>(hp.momentum) * a
                                                     : a;
    const float scaled = out.denominatorFirst || !out.hasSecondMoment ? direction : divided(direction) / clip;
    out.recombined = kind == Kind::Adafactor
                         ? -(scaled * static_cast<float>(out.scale))  // as Adafactor::update
                         : -static_cast<float>(out.scale) * scaled + static_cast<float>(out.decayTerm);
    if (kind == Kind::Nero && !bias) {
        // The stepped row w~ is centred and normalised: dw = (w~ - mu)/rho - w_before.
        NeroRow nero{current,
                     hp,
                     row,
                     current.update.cols() - 1,
                     static_cast<float>(out.scale),
                     static_cast<float>(1.0 - std::pow(hp.beta2, t)),
                     now.step == 1};
        nero.prepare();
        const auto [mean, norm] =
            NeroRow::meanAndNorm(nero.inputs, [&nero](Eigen::Index j) { return nero.stepped(j); });
        const float stepped = nero.stepped(column), centred = stepped - mean;
        out.projected = true;
        out.weightBefore = wBefore;
        out.start = nero.start(column);
        out.stepped = stepped;
        out.rowMean = mean;
        out.rowNorm = norm;
        out.recombined = (norm > 0.0f ? centred / norm : centred) - wBefore;
    }
    out.explained = true;

    out.formula = formulaText(out, spec, kind);
    return out;
}

}  // namespace ml
