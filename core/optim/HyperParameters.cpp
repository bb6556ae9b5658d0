#include "optim/HyperParameters.h"

#include "InputError.h"

#include <cmath>
#include <limits>
#include <sstream>

namespace ml {

std::string toString(MeanScope scope) {
    switch (scope) {
    case MeanScope::None: return "none";
    case MeanScope::FanIn: return "fan-in";
    case MeanScope::FanOut: return "fan-out";
    case MeanScope::Layer: return "layer";
    }
    return "none";
}

std::string toString(BiasMode mode) { return mode == BiasMode::Own ? "own" : "join"; }

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Where each field lives in HyperParameters. Kept beside the table so the two stay in step.
template <typename HP>  // HyperParameters or const HyperParameters
auto realSlot(HP& hp, const std::string& key) -> decltype(&hp.lr) {
    if (key == "lr") return &hp.lr;
    if (key == "momentum") return &hp.momentum;
    if (key == "dampening") return &hp.dampening;
    if (key == "weight-decay") return &hp.weightDecay;
    if (key == "beta1") return &hp.beta1;
    if (key == "beta2") return &hp.beta2;
    if (key == "eps") return &hp.eps;
    if (key == "alpha") return &hp.alpha;
    if (key == "initial-accumulator") return &hp.initialAccumulator;
    if (key == "lr-decay") return &hp.lrDecay;
    return nullptr;
}

template <typename HP>
auto flagSlot(HP& hp, const std::string& key) -> decltype(&hp.centered) {
    if (key == "centered") return &hp.centered;
    if (key == "amsgrad") return &hp.amsgrad;
    return nullptr;
}

ParameterField real(std::string key, std::string help, double minimum, double maximum,
                    bool maximumExclusive = false) {
    ParameterField field;
    field.key = std::move(key);
    field.help = std::move(help);
    field.minimum = minimum;
    field.maximum = maximum;
    field.maximumExclusive = maximumExclusive;
    return field;
}

ParameterField flag(std::string key, std::string help) {
    ParameterField field;
    field.key = std::move(key);
    field.help = std::move(help);
    field.kind = ParameterField::Kind::Flag;
    return field;
}

ParameterField choice(std::string key, std::string help, std::vector<std::string> choices) {
    ParameterField field;
    field.key = std::move(key);
    field.help = std::move(help);
    field.kind = ParameterField::Kind::Choice;
    field.choices = std::move(choices);
    return field;
}

std::string formatReal(double value) {
    std::ostringstream out;
    out.precision(std::numeric_limits<double>::max_digits10 - 2);
    out << value;
    return out.str();
}

}  // namespace

const std::vector<ParameterField>& parameterFields() {
    static const std::vector<ParameterField> fields = {
        real("lr", "learning rate", 0.0, kInf),
        real("momentum", "momentum factor mu (sgdm-ema: the EMA factor beta)", 0.0, 1.0, true),
        real("dampening", "dampening tau: b <- mu*b + (1-tau)*g", 0.0, 1.0),
        real("weight-decay", "L2 penalty (adamw: decoupled decay)", 0.0, kInf),
        real("beta1", "first-moment decay", 0.0, 1.0, true),
        real("beta2", "second-moment decay", 0.0, 1.0, true),
        real("eps", "term added to the denominator", 0.0, kInf),
        real("alpha", "smoothing constant of the squared-gradient average", 0.0, 1.0),
        real("initial-accumulator", "starting value of the sum of squared gradients", 0.0, kInf),
        real("lr-decay", "learning-rate decay: lr / (1 + (t-1)*lr_decay)", 0.0, kInf),
        flag("centered", "normalise by the estimated gradient variance"),
        flag("amsgrad", "use the running maximum of the second moment"),
        choice("momentum-mean", "average the first moment over: none, fan-in (a neuron's incoming "
                                "connections), fan-out (an input's outgoing connections), layer",
               {"none", "fan-in", "fan-out", "layer"}),
        choice("bias", "own: biases keep ordinary momentum; join: a bias counts as one more connection",
               {"own", "join"}),
    };
    return fields;
}

const ParameterField* findParameterField(const std::string& key) {
    for (const ParameterField& field : parameterFields())
        if (field.key == key) return &field;
    return nullptr;
}

std::string ParameterField::get(const HyperParameters& hp) const {
    switch (kind) {
    case Kind::Real: return formatReal(*realSlot(hp, key));
    case Kind::Flag: return *flagSlot(hp, key) ? "true" : "false";
    case Kind::Choice: return key == "bias" ? toString(hp.bias) : toString(hp.momentumMean);
    }
    return {};
}

double ParameterField::getReal(const HyperParameters& hp) const {
    if (kind == Kind::Real) return *realSlot(hp, key);
    if (kind == Kind::Flag) return *flagSlot(hp, key) ? 1.0 : 0.0;
    return 0.0;
}

std::string ParameterField::rangeText() const {
    if (kind == Kind::Flag) return "true or false";
    if (kind == Kind::Choice) {
        std::string text;
        for (std::size_t i = 0; i < choices.size(); ++i)
            text += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
        return text;
    }
    if (std::isinf(maximum)) return "a number >= " + formatReal(minimum);
    return "a number in [" + formatReal(minimum) + ", " + formatReal(maximum) + (maximumExclusive ? ")" : "]");
}

void ParameterField::checkRange(const HyperParameters& hp, const std::string& context) const {
    if (kind != Kind::Real) return;
    const double value = getReal(hp);
    const bool ok = std::isfinite(value) && value >= minimum &&
                    (maximumExclusive ? value < maximum : value <= maximum);
    if (!ok)
        throw InputError(context + ": " + formatReal(value) + " is out of range; expected " + rangeText());
}

void ParameterField::setReal(HyperParameters& hp, double value, const std::string& context) const {
    if (kind == Kind::Flag) {
        *flagSlot(hp, key) = value != 0.0;
        return;
    }
    if (kind != Kind::Real) throw InputError(context + ": expected " + rangeText());
    *realSlot(hp, key) = value;
    checkRange(hp, context);
}

void ParameterField::set(HyperParameters& hp, const std::string& text, const std::string& context) const {
    switch (kind) {
    case Kind::Real: {
        std::size_t used = 0;
        double value = 0.0;
        try {
            value = std::stod(text, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (text.empty() || used != text.size())
            throw InputError(context + ": '" + text + "' is not a number; expected " + rangeText());
        setReal(hp, value, context);
        return;
    }
    case Kind::Flag:
        if (text == "true" || text == "1" || text == "yes" || text.empty()) *flagSlot(hp, key) = true;
        else if (text == "false" || text == "0" || text == "no") *flagSlot(hp, key) = false;
        else throw InputError(context + ": '" + text + "' is not a flag value; expected true or false");
        return;
    case Kind::Choice: {
        for (std::size_t i = 0; i < choices.size(); ++i) {
            if (choices[i] != text) continue;
            if (key == "bias") hp.bias = static_cast<BiasMode>(i);
            else hp.momentumMean = static_cast<MeanScope>(i);
            return;
        }
        throw InputError(context + ": '" + text + "' is not valid; expected " + rangeText());
    }
    }
}

}  // namespace ml
