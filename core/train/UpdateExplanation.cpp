#include "train/UpdateExplanation.h"

#include "optim/MomentumAggregation.h"

#include <cmath>
#include <cstdio>
#include <string_view>

namespace ml {

namespace {

// What decides the recipe's numbers; the catalog's names map onto it.
enum class Kind { Sgd, HeavyBall, Nesterov, Ema, Adam, AdamW, Unexplained };

Kind kindOf(const std::string& name, const HyperParameters& hp) {
    if (name == "sgd") return Kind::Sgd;
    if (name == "momentum" || name == "neuron-mean") return hp.momentum > 0.0 ? Kind::HeavyBall : Kind::Sgd;
    if (name == "nesterov") return Kind::Nesterov;
    if (name == "sgdm-ema") return Kind::Ema;
    if (name == "adam") return Kind::Adam;
    if (name == "adamw" || name == "adam-mini") return Kind::AdamW;
    return Kind::Unexplained;
}

std::string number(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", value);
    return text;
}

// The rule's gradient matrix of one layer (see the header): what Optimizer::ruleGradient builds.
Matrix ruleGradient(const LayerSnapshot& layer, const HyperParameters& hp, double weightDecay) {
    Matrix g = layer.gradient;
    if (weightDecay != 0.0) g += static_cast<float>(weightDecay) * (layer.parameters - layer.update);
    if (hp.gradientCentralization) {
        auto weights = weightsOf(g);
        const Vector means = weights.rowwise().mean();
        weights.colwise() -= means;
    }
    return g;
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
    if (e.hasFirstMoment) {
        text += m + " = " + number(e.decay) + "·" + carriedName(hp, m) + " + " + number(e.gain) + "·" + g + " = ";
        if (e.carriedInferred) text += number(e.carried) + " (inferred: step " + std::to_string(e.step - 1) + " not recorded)";
        else if (e.decay != 0.0) text += number(e.decay) + "×" + number(e.carried / e.decay);
        else text += "0";
        text += " + " + number(e.gain) + "×" + number(e.gradient) + " = " + number(e.firstMoment) + "\n";
    }
    if (adam)
        text += "D = √v/√(1−β2^t) + ε = √" + number(e.secondMoment) + "/" +
                number(std::sqrt(1.0 - std::pow(hp.beta2, static_cast<double>(e.step)))) + " + " + number(hp.eps) + " = " +
                number(e.denominator) + "\n";
    text += "Δw = ";
    switch (kind) {
    case Kind::Sgd: text += "−lr·" + g + " = −" + number(e.scale) + "×" + number(e.gradient); break;
    case Kind::Nesterov:
        text += "−lr·(" + g + " + μ·a) = −" + number(e.scale) + "×(" + number(e.gradient) + " + " +
                number(hp.momentum) + "×" + number(e.firstMoment) + ")";
        break;
    case Kind::HeavyBall:
    case Kind::Ema: text += "−lr·" + m + " = −" + number(e.scale) + "×" + number(e.firstMoment); break;
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
        out.reason = spec.optimizer + " is not taken apart (the explainer knows the sgd, momentum and adam families)";
        return out;
    }
    if (hp.amsgrad && (kind == Kind::Adam || kind == Kind::AdamW)) {
        out.reason = "amsgrad's running maximum of v is not recorded";
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
    out.hasFirstMoment = kind != Kind::Sgd;
    out.hasSecondMoment = adam;
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
    case Kind::Unexplained: break;
    }

    const Matrix g = ruleGradient(current, hp, kind == Kind::AdamW ? 0.0 : hp.weightDecay);
    out.gradient = g(row, column);
    out.update = current.update(row, column);
    const float gain = static_cast<float>(out.gain), decay = static_cast<float>(out.decay);
    const float gradientTerm = gain * g(row, column);
    if (out.hasFirstMoment) {
        if (current.firstMoment.size() == 0) {
            out.explained = false;
            out.reason = "the snapshot keeps no first moment";
            return out;
        }
        out.recordedFirstMoment = current.firstMoment(row, column);
        const MomentumAggregation aggregation(hp.momentumMean, hp.bias, hp.momentumMeanBlend, hp.momentumMeanStat);
        const LayerSnapshot* previous =
            before && before->step == now.step - 1 && static_cast<int>(before->layers.size()) > layer
                ? &before->layers[static_cast<std::size_t>(layer)]
                : nullptr;
        if (now.step == 1 || (previous && previous->firstMoment.size() == current.firstMoment.size())) {
            // a_0 = 0 before the first step (every rule here starts from zero or from g).
            if (now.step > 1) {
                Matrix carried = previous->firstMoment, mean;
                aggregation.aggregate(carried, current.columnsPerInput);
                aggregation.meanPerEntry(previous->firstMoment, mean, current.columnsPerInput);
                out.ownMomentum = previous->firstMoment(row, column);
                out.neuronMean = mean(row, column);
                out.carried = decay * carried(row, column);
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
    const float a = static_cast<float>(out.firstMoment), gf = g(row, column);
    float direction = kind == Kind::Sgd ? gf : kind == Kind::Nesterov ? gf + static_cast<float>(hp.momentum) * a : a;
    if (adam) {
        if (current.secondMoment.size() == 0) {
            out.reason = "the snapshot keeps no second moment";
            return out;
        }
        out.secondMoment = current.secondMoment(row, column);
        const float correction = static_cast<float>(std::sqrt(1.0 - std::pow(hp.beta2, t)));
        out.denominator = std::sqrt(static_cast<float>(out.secondMoment)) / correction + static_cast<float>(hp.eps);
        if (kind == Kind::AdamW && hp.weightDecay != 0.0) {
            const float wBefore = current.parameters(row, column) - current.update(row, column);
            out.decayTerm = -static_cast<float>(hp.lr * hp.weightDecay) * wBefore;
        }
    }
    out.recombined = -static_cast<float>(out.scale) * (direction / static_cast<float>(out.denominator)) +
                     static_cast<float>(out.decayTerm);
    out.explained = true;

    out.formula = formulaText(out, spec, kind);
    return out;
}

}  // namespace ml
