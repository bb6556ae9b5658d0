#include "train/UpdateExplanation.h"

#include "optim/MomentumAggregation.h"

#include <cmath>
#include <cstdio>
#include <string_view>

namespace ml {

namespace {

// What decides the recipe's numbers; the catalog's names map onto it.
enum class Kind { Sgd, HeavyBall, Nesterov, Ema, Adam, AdamW, RmsProp, Adagrad, Unexplained };

Kind kindOf(const std::string& name, const HyperParameters& hp) {
    if (name == "sgd") return Kind::Sgd;
    if (name == "momentum" || name == "neuron-mean") return hp.momentum > 0.0 ? Kind::HeavyBall : Kind::Sgd;
    if (name == "nesterov") return Kind::Nesterov;
    if (name == "sgdm-ema") return Kind::Ema;
    if (name == "adam") return Kind::Adam;
    if (name == "adamw" || name == "adam-mini") return Kind::AdamW;
    if (name == "rmsprop") return Kind::RmsProp;
    if (name == "adagrad") return Kind::Adagrad;
    return Kind::Unexplained;
}

std::string number(double value) {
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
    const auto statistic = [magnitude](const auto& entries) { return magnitude ? entries.cwiseAbs().mean() : entries.mean(); };
    float group = 0.0f;
    switch (aggregation.scope()) {
    case MeanScope::None:  // meanPerEntry's fan-in
    case MeanScope::FanIn: group = statistic(block.row(row)); break;
    case MeanScope::FanOut:
        group = column == last ? statistic(a.col(last))
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

// The rule's lines with this step's numbers (a' is the step before's first moment).
std::string formulaText(const UpdateExplanation& e, const RunSpec& spec, Kind kind) {
    const HyperParameters& hp = spec.hp;
    const bool adam = kind == Kind::Adam || kind == Kind::AdamW;
    const std::string m = kind == Kind::Ema || adam ? "m" : "a";
    const std::string g = hp.weightDecay != 0.0 && kind != Kind::AdamW ? "(g+wd·w)" : "g";
    std::string text;
    if (e.hasSecondMoment) {
        if (adam)
            text += "D = √v/√(1−β2^t) + ε = √" + number(e.secondMoment) + "/" +
                    number(std::sqrt(1.0 - std::pow(hp.beta2, static_cast<double>(e.step)))) + " + " + number(hp.eps) +
                    " = " + number(e.denominator) + "\n";
        else
            text += std::string("D = √") + (kind == Kind::Adagrad ? "s" : "v") + " + ε = √" + number(e.secondMoment) +
                    " + " + number(hp.eps) + " = " + number(e.denominator) + "\n";
    }
    if (e.hasFirstMoment) {
        const std::string term = e.denominatorFirst ? g + "/D" : g;
        const double termValue = e.denominatorFirst ? e.gradient / e.denominator : e.gradient;
        text += m + " = " + number(e.decay) + "·" + carriedName(hp, m) + " + " + number(e.gain) + "·" + term + " = ";
        if (e.carriedInferred) text += number(e.carried) + " (inferred: step " + std::to_string(e.step - 1) + " not recorded)";
        else if (e.decay != 0.0) text += number(e.decay) + "×" + number(e.carried / e.decay);
        else text += "0";
        text += " + " + number(e.gain) + "×" + number(termValue) + " = " + number(e.firstMoment) + "\n";
    }
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
        out.reason = spec.optimizer + " is not taken apart (the explainer knows the sgd, momentum, adam, rmsprop and "
                                      "adagrad families)";
        return out;
    }
    if (hp.amsgrad && (kind == Kind::Adam || kind == Kind::AdamW)) {
        out.reason = "amsgrad's running maximum of v is not recorded";
        return out;
    }
    if (hp.centered && kind == Kind::RmsProp) {
        out.reason = "centered rmsprop's running mean of g is not recorded";
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
    const double t = static_cast<double>(now.step);
    out.hasFirstMoment = kind != Kind::Sgd && kind != Kind::Adagrad && !(kind == Kind::RmsProp && hp.momentum <= 0.0);
    out.hasSecondMoment = adam || kind == Kind::RmsProp || kind == Kind::Adagrad;
    out.denominatorFirst = kind == Kind::RmsProp && out.hasFirstMoment;  // b <- mu*b + g/D
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
    case Kind::Unexplained: break;
    }

    const float gf = ruleGradientAt(current, hp, kind == Kind::AdamW ? 0.0 : hp.weightDecay, row, column);
    out.gradient = gf;
    out.update = current.update(row, column);
    if (out.hasSecondMoment) {
        if (current.secondMoment.size() == 0) {
            out.reason = "the snapshot keeps no second moment";
            return out;
        }
        out.secondMoment = current.secondMoment(row, column);
        const float root = std::sqrt(static_cast<float>(out.secondMoment));
        const float correction = adam ? static_cast<float>(std::sqrt(1.0 - std::pow(hp.beta2, t))) : 1.0f;
        out.denominator = (adam ? root / correction : root) + static_cast<float>(hp.eps);
        if (kind == Kind::AdamW && hp.weightDecay != 0.0) {
            const float wBefore = current.parameters(row, column) - current.update(row, column);
            out.decayTerm = -static_cast<float>(hp.lr * hp.weightDecay) * wBefore;
        }
    }
    const float gain = static_cast<float>(out.gain), decay = static_cast<float>(out.decay);
    const float gradientTerm = gain * (out.denominatorFirst ? gf / static_cast<float>(out.denominator) : gf);
    if (out.hasFirstMoment) {
        if (current.firstMoment.size() == 0) {
            out.reason = "the snapshot keeps no first moment";
            return out;
        }
        out.recordedFirstMoment = current.firstMoment(row, column);
        // rmsprop shares no first moment: its carried part is b itself.
        const MomentumAggregation aggregation =
            kind == Kind::RmsProp ? MomentumAggregation()
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
            out.firstMoment = static_cast<float>(out.carried) + gradientTerm;
        } else {
            out.carriedInferred = true;
            out.firstMoment = out.recordedFirstMoment;
            out.carried = current.firstMoment(row, column) - gradientTerm;
        }
    }

    // The direction and the step, in float as the rules compute them.
    const float a = static_cast<float>(out.firstMoment);
    const float direction = !out.hasFirstMoment            ? gf
                            : kind == Kind::Nesterov       ? gf + static_cast<float>(hp.momentum) * a
                                                           : a;
    const float denominator = out.denominatorFirst ? 1.0f : static_cast<float>(out.denominator);
    out.recombined = -static_cast<float>(out.scale) * (direction / denominator) + static_cast<float>(out.decayTerm);
    out.explained = true;

    out.formula = formulaText(out, spec, kind);
    return out;
}

}  // namespace ml
