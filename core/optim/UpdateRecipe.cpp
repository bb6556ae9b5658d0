#include "optim/UpdateRecipe.h"

#include "optim/MomentumAggregation.h"

#include <cmath>
#include <cstdio>

namespace ml {

std::string formulaNumber(double value) {
    if (value == 0.0) value = 0.0;  // -0 (say wd*w with wd = 0 and w < 0) reads as 0
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", value);
    return text;
}

std::string minusProduct(double a, double b) { return "−" + formulaNumber(a) + "×" + formulaNumber(b); }

// Read from the record in place: the explainer copies no matrix.
float ruleGradientAt(const LayerRecord& layer, const HyperParameters& hp, double weightDecay, Eigen::Index row,
                     Eigen::Index column) {
    const float wd = static_cast<float>(weightDecay);
    const auto rowOf = layer.gradient.row(row) + wd * (layer.parameters.row(row) - layer.update.row(row));
    float value = rowOf(column);
    const Eigen::Index inputs = layer.gradient.cols() - 1;
    if (hp.gradientCentralization && column < inputs) value -= rowOf.head(inputs).mean();
    return value;
}

float weightNormBefore(const LayerRecord& layer) {
    const Eigen::Index inputs = layer.parameters.cols() - 1;
    return (layer.parameters.leftCols(inputs) - layer.update.leftCols(inputs)).norm();
}

const Matrix* ruleStateOf(const LayerRecord& layer, const char* name, UpdateExplanation& out) {
    const Matrix* buffer = layer.ruleStateBuffer(name);
    if (!buffer || buffer->size() == 0)
        out.reason = std::string("the snapshot keeps no ") + name +
                     " (recorded by live runs and by snapshots.bin from format 2 on)";
    return buffer;
}

namespace {

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

}  // namespace

void UpdateRecipe::explain(const ExplainedConnection& c, const LayerRecord* previous, UpdateExplanation& out) const {
    const HyperParameters& hp = c.hp;
    const LayerRecord& current = c.layer;
    out.hasFirstMoment = keepsFirstMoment(hp);
    out.hasSecondMoment = traits_.secondMoment;
    out.denominatorFirst = traits_.denominatorFirst && out.hasFirstMoment;
    out.hasTrustRatio = traits_.trustRatio;
    if (traits_.needsWeights && current.parameters.cols() != current.update.cols()) {
        out.reason = "the snapshot keeps no weights here";
        return;
    }
    if (!numbers(c, out)) return;

    float g = ruleGradientAt(current, hp, traits_.decay == Decay::Coupled ? hp.weightDecay : 0.0, c.row, c.column);
    if (traits_.decay == Decay::AfterCentring && !c.bias) g += static_cast<float>(hp.weightDecay) * c.weightBefore;
    out.gradient = g;
    out.update = current.update(c.row, c.column);
    if (out.hasSecondMoment) {
        if (current.secondMoment.size() == 0) {
            out.reason = "the snapshot keeps no second moment";
            return;
        }
        out.secondMoment = current.secondMoment(c.row, c.column);
        float v = current.secondMoment(c.row, c.column);
        if (!secondMomentUsed(c, out, v)) return;
        denominator(c, v, out);
    }
    if (out.hasFirstMoment) {
        if (current.firstMoment.size() == 0) {
            out.reason = "the snapshot keeps no first moment";
            return;
        }
        firstMoment(c, previous, g, out);
    }
    recombine(c, g, out);
    out.explained = true;
    out.formula = formula(out, hp);
}

// a_t = decay*C(a_{t-1}) + gain*term + extra, from the step before's record where there is one.
void UpdateRecipe::firstMoment(const ExplainedConnection& c, const LayerRecord* previous, float g,
                               UpdateExplanation& out) const {
    const HyperParameters& hp = c.hp;
    const LayerRecord& current = c.layer;
    const float gain = static_cast<float>(out.gain), decay = static_cast<float>(out.decay);
    const float gradientTerm = gain * (out.denominatorFirst ? scaled(g, out) : g);
    out.recordedFirstMoment = current.firstMoment(c.row, c.column);
    // Only the sgd and adam families share the first moment: the others carry a itself.
    const MomentumAggregation aggregation =
        !traits_.sharesFirstMoment
            ? MomentumAggregation()
            : MomentumAggregation(hp.momentumMean, hp.bias, hp.momentumMeanBlend, hp.momentumMeanStat);
    if (c.step == 1 || (previous && previous->firstMoment.size() == current.firstMoment.size())) {
        // a_0 = 0 before the first step (every rule here starts from zero or from g).
        if (c.step > 1) {
            const Matrix& a = previous->firstMoment;
            out.ownMomentum = a(c.row, c.column);
            out.neuronMean = meanAt(aggregation, a, c.row, c.column, current.columnsPerInput);
            out.carried = decay * carriedAt(aggregation, a, c.row, c.column, current.columnsPerInput);
        } else {
            out.ownMomentum = out.neuronMean = 0.0;
            out.carried = 0.0;
        }
        out.firstMoment = static_cast<float>(out.carried) + gradientTerm + static_cast<float>(out.extra);
    } else {
        out.carriedInferred = true;
        out.firstMoment = out.recordedFirstMoment;
        out.carried = current.firstMoment(c.row, c.column) - gradientTerm - static_cast<float>(out.extra);
    }
}

void UpdateRecipe::denominator(const ExplainedConnection& c, float v, UpdateExplanation& out) const {
    out.denominator = std::sqrt(v) + static_cast<float>(c.hp.eps);
}

float UpdateRecipe::biasCorrectedDenominator(const ExplainedConnection& c, float v) {
    const float correction = static_cast<float>(std::sqrt(1.0 - std::pow(c.hp.beta2, c.t())));
    return std::sqrt(v) / correction + static_cast<float>(c.hp.eps);
}

float UpdateRecipe::scaled(float d, const UpdateExplanation& e) {
    const float denominatorValue = static_cast<float>(e.denominator);
    return (denominatorValue == 0.0f ? 0.0f : d / denominatorValue) / static_cast<float>(e.clipFactor);
}

float UpdateRecipe::scaledDirection(const ExplainedConnection& c, float g, const UpdateExplanation& e) const {
    const float d = e.hasFirstMoment ? direction(c, g, static_cast<float>(e.firstMoment)) : g;
    return e.denominatorFirst || !e.hasSecondMoment ? d : scaled(d, e);
}

void UpdateRecipe::recombine(const ExplainedConnection& c, float g, UpdateExplanation& out) const {
    out.recombined = -static_cast<float>(out.scale) * scaledDirection(c, g, out) + static_cast<float>(out.decayTerm);
}

std::string UpdateRecipe::denominatorLines(const UpdateExplanation& e, const HyperParameters& hp) const {
    return std::string("D = √") + traits_.secondMomentName + " + ε = √" + formulaNumber(e.secondMoment) + " + " +
           formulaNumber(hp.eps) + " = " + formulaNumber(e.denominator) + "\n";
}

std::string UpdateRecipe::biasCorrectedDenominatorLine(const UpdateExplanation& e, const HyperParameters& hp) {
    return "D = √v/√(1−β2^t) + ε = √" + formulaNumber(e.secondMoment) + "/" +
           formulaNumber(std::sqrt(1.0 - std::pow(hp.beta2, static_cast<double>(e.step)))) + " + " +
           formulaNumber(hp.eps) + " = " + formulaNumber(e.denominator) + "\n";
}

std::string UpdateRecipe::gainText(const UpdateExplanation& e) const { return formulaNumber(e.gain); }

std::string UpdateRecipe::firstMomentTerm(const FormulaNames& names, const UpdateExplanation& e) const {
    return e.denominatorFirst ? names.g + "/D" : names.g;
}

std::string UpdateRecipe::carriedText(const FormulaNames& names, const HyperParameters& hp) const {
    const std::string& m = names.m;
    if (!traits_.sharesFirstMoment || hp.momentumMean == MeanScope::None || hp.momentumMeanBlend == 0.0) return m + "′";
    const std::string shared = (hp.momentumMeanStat == MeanStatistic::SignedAbsMean ? "S(" : "M(") + m + "′)";
    if (hp.momentumMeanBlend == 1.0) return shared;
    return "(" + formulaNumber(1.0 - hp.momentumMeanBlend) + "·" + m + "′ + " + formulaNumber(hp.momentumMeanBlend) +
           "·" + shared + ")";
}

// The rule's lines with this step's numbers (a' is the step before's first moment).
std::string UpdateRecipe::formula(const UpdateExplanation& e, const HyperParameters& hp) const {
    const bool decayInG = hp.weightDecay != 0.0 && traits_.decay != Decay::Elsewhere;
    const FormulaNames names{decayInG ? "(g+wd·w)" : "g", traits_.moment};
    std::string text = leadingLines(e, hp);
    if (e.hasSecondMoment) text += denominatorLines(e, hp);
    if (e.hasFirstMoment) {
        const double termValue = e.denominatorFirst ? e.gradient / e.denominator / e.clipFactor : e.gradient;
        const std::string extra = extraTerm(hp);
        text += names.m + " = " + formulaNumber(e.decay) + "·" + carriedText(names, hp) + " + " + gainText(e) + "·" +
                firstMomentTerm(names, e) + (extra.empty() ? "" : " + " + extra) + " = ";
        if (e.carriedInferred)
            text += formulaNumber(e.carried) + " (inferred: step " + std::to_string(e.step - 1) + " not recorded)";
        else if (e.decay != 0.0) text += formulaNumber(e.decay) + "×" + formulaNumber(e.carried / e.decay);
        else text += "0";
        text += " + " + formulaNumber(e.gain) + "×" + formulaNumber(termValue);
        if (!extra.empty()) text += " + " + formulaNumber(e.extra);
        text += " = " + formulaNumber(e.firstMoment) + "\n";
    }
    text += steppedLines(e);
    text += "Δw = " + updateText(names, e, hp) + " = " + formulaNumber(e.recombined) + "  (recorded " +
            formulaNumber(e.update) + ")";
    return text;
}

}  // namespace ml
