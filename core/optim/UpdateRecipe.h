#pragma once
// The one recipe the update explainer (UpdateExplanation.h) takes every rule's update apart with,
// and the parts a rule fills in: which moments it keeps, its (decay, gain, scale) at the step, its
// denominator, its direction and its formula lines. Each rule's parts live beside its class
// (e.g. Nero.cpp) and its catalog row names them (OptimizerCatalog.h's `explanation`).
#include "optim/UpdateExplanation.h"

#include <string>

namespace ml {

// The connection being explained, as every part reads it.
struct ExplainedConnection {
    const HyperParameters& hp;
    const LayerRecord& layer;  // the step's record of the connection's layer
    long step;                 // t, 1-based
    Eigen::Index row, column;
    bool bias;           // the bias column
    float weightBefore;  // w_before = w - dw
    double t() const { return static_cast<double>(step); }
};

// The lines of the formula are written with these names.
struct FormulaNames {
    std::string g;  // the rule's gradient: "g" or "(g+wd·w)"
    std::string m;  // the first moment: "a" or "m"
};

class UpdateRecipe {
public:
    // Where weight decay enters the rule's gradient g.
    enum class Decay {
        Coupled,        // g + wd*w, then centred (Optimizer::ruleGradient)
        AfterCentring,  // lars: centred g, then + wd*w on the weights
        Elsewhere,      // decoupled, inside the rule's own terms, or not read at all
    };
    // What does not depend on the step's numbers.
    struct Traits {
        const char* moment = "a";            // the first moment's name
        const char* secondMomentName = "v";  // in D's line
        bool firstMoment = true;             // keeps one (keepsFirstMoment may say otherwise per settings)
        bool secondMoment = false;           // divides by D
        bool denominatorFirst = false;       // g/D (not g) enters the first moment
        bool sharesFirstMoment = false;      // carries M(a) by the run's MomentumAggregation
        bool trustRatio = false;             // a layer-wise T
        bool needsWeights = false;           // reads the weights before the step (norms, projection)
        Decay decay = Decay::Coupled;
    };

    explicit UpdateRecipe(Traits traits) : traits_(traits) {}
    virtual ~UpdateRecipe() = default;
    UpdateRecipe(const UpdateRecipe&) = delete;
    UpdateRecipe& operator=(const UpdateRecipe&) = delete;

    // The whole recipe for one connection: fills `out` (explained, or the reason why not).
    // `previous` is the layer's record of the step before, or null.
    void explain(const ExplainedConnection& c, const LayerRecord* previous, UpdateExplanation& out) const;

protected:
    // ---- the numbers
    virtual bool keepsFirstMoment(const HyperParameters&) const { return traits_.firstMoment; }
    // Sets decay, gain, scale (and extra, trustRatio where the rule has them); false with out.reason
    // set when the record lacks what they need.
    virtual bool numbers(const ExplainedConnection& c, UpdateExplanation& out) const = 0;
    // What D takes of the second moment (amsgrad's v_hat, centered rmsprop's v - c^2); v is the
    // recorded second moment on entry. False with out.reason set when the record lacks it.
    virtual bool secondMomentUsed(const ExplainedConnection&, UpdateExplanation&, float&) const { return true; }
    // Sets out.denominator from v (and what comes with it: adafactor's clipping, adamw's decay).
    virtual void denominator(const ExplainedConnection& c, float v, UpdateExplanation& out) const;
    // The direction d from g and the new first moment a (nesterov: g + mu*a).
    virtual float direction(const ExplainedConnection&, float, float a) const { return a; }
    // Sets out.recombined, dw from the parts.
    virtual void recombine(const ExplainedConnection& c, float g, UpdateExplanation& out) const;

    // ---- the formula's lines, with this step's numbers
    virtual std::string leadingLines(const UpdateExplanation&, const HyperParameters&) const { return {}; }
    // The lines that define D (when the rule keeps a second moment).
    virtual std::string denominatorLines(const UpdateExplanation& e, const HyperParameters& hp) const;
    // How the gain on g is written in the first moment's line.
    virtual std::string gainText(const UpdateExplanation& e) const;
    // What enters the first moment: g, g/D, or adafactor's U.
    virtual std::string firstMomentTerm(const FormulaNames& names, const UpdateExplanation& e) const;
    // A term that joins the first moment besides gain*g (novograd's "wd·w"), or "".
    virtual std::string extraTerm(const HyperParameters&) const { return {}; }
    // Lines between the first moment and the update (nero's stepped weight).
    virtual std::string steppedLines(const UpdateExplanation&) const { return {}; }
    // The update's right-hand side, before " = dw": e.g. "−lr·m = −0.1×0.5".
    virtual std::string updateText(const FormulaNames& names, const UpdateExplanation& e,
                                   const HyperParameters& hp) const = 0;

    // ---- shared pieces for the parts
    // d/D divided as the rules do (0 where D = 0), then by adafactor's clipping.
    static float scaled(float d, const UpdateExplanation& e);
    // The direction divided by D where the rule divides it last: what scale multiplies.
    float scaledDirection(const ExplainedConnection& c, float g, const UpdateExplanation& e) const;
    // D = sqrt(v)/sqrt(1-b2^t) + eps (the adam family and lamb), in float as the rules compute it.
    static float biasCorrectedDenominator(const ExplainedConnection& c, float v);
    static std::string biasCorrectedDenominatorLine(const UpdateExplanation& e, const HyperParameters& hp);
    // The carried first moment's name (M(a′), a blend, or a′).
    std::string carriedText(const FormulaNames& names, const HyperParameters& hp) const;

private:
    void firstMoment(const ExplainedConnection& c, const LayerRecord* previous, float g, UpdateExplanation& out) const;
    std::string formula(const UpdateExplanation& e, const HyperParameters& hp) const;
    Traits traits_;
};

// ---- in-place reads of a layer record, for the parts
// A number as the formula writes it (%.4g; -0 as 0).
std::string formulaNumber(double value);
// "−A×B".
std::string minusProduct(double a, double b);
// Entry (row, column) of the rule's gradient with coupled decay `weightDecay`, as
// Optimizer::ruleGradient builds it.
float ruleGradientAt(const LayerRecord& layer, const HyperParameters& hp, double weightDecay, Eigen::Index row,
                     Eigen::Index column);
// ||W|| of the weights (the bias column left out) before the step.
float weightNormBefore(const LayerRecord& layer);
// A rule-state buffer the parts need, or null with `out.reason` set.
const Matrix* ruleStateOf(const LayerRecord& layer, const char* name, UpdateExplanation& out);

}  // namespace ml
