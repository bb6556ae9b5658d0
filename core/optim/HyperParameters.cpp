#include "optim/HyperParameters.h"

#include "InputError.h"

#include <cmath>
#include <limits>
#include <sstream>
#include <type_traits>

namespace ml {

namespace {

// Rules compute in float: a larger value would become inf (--lr 1e39 passed ">= 0" before).
constexpr double kFloatMax = std::numeric_limits<float>::max();

// A field of the kind its slot's type implies (double: Real, bool: Flag, enum: Choice).
ParameterField field(std::string key, ParameterField::Slot slot, std::string help) {
    using Kind = ParameterField::Kind;
    ParameterField described;
    described.key = std::move(key);
    described.help = std::move(help);
    described.slot = slot;
    described.kind = std::visit(
        [](auto member) {
            using T = std::remove_reference_t<decltype(HyperParameters{}.*member)>;
            return std::is_same_v<T, double> ? Kind::Real : std::is_same_v<T, bool> ? Kind::Flag : Kind::Choice;
        },
        slot);
    return described;
}

ParameterField real(std::string key, double HyperParameters::*slot, std::string help, double minimum, double maximum,
                    bool maximumExclusive = false) {
    ParameterField described = field(std::move(key), slot, std::move(help));
    described.minimum = minimum;
    described.maximum = maximum;
    described.maximumExclusive = maximumExclusive;
    return described;
}

template <typename Enum>  // choices[i] names Enum value i
ParameterField choice(std::string key, Enum HyperParameters::*slot, std::string help,
                      std::vector<std::string> choices) {
    ParameterField described = field(std::move(key), slot, std::move(help));
    described.choices = std::move(choices);
    return described;
}

std::string formatReal(double value, int digits = std::numeric_limits<double>::max_digits10 - 2) {
    std::ostringstream out;
    out.precision(digits);
    out << value;
    return out.str();
}

// The member behind a Real or Flag field (const or not, as `hp`).
template <typename T, typename HP>
auto& member(const ParameterField& field, HP& hp) {
    return hp.*std::get<T HyperParameters::*>(field.slot);
}

// A Choice field's value as an index into its choices, and back.
std::size_t choiceIndex(const ParameterField& field, const HyperParameters& hp) {
    return std::visit([&](auto slot) { return static_cast<std::size_t>(hp.*slot); }, field.slot);
}
void setChoiceIndex(const ParameterField& field, HyperParameters& hp, std::size_t index) {
    std::visit([&](auto slot) { hp.*slot = static_cast<std::remove_reference_t<decltype(hp.*slot)>>(index); },
               field.slot);
}

}  // namespace

const std::vector<ParameterField>& parameterFields() {
    static const std::vector<ParameterField> fields = {
        real("lr", &HyperParameters::lr, "learning rate", 0.0, kFloatMax),
        real("momentum", &HyperParameters::momentum, "momentum factor μ (sgdm-ema: the EMA factor)", 0.0, 1.0, true),
        real("dampening", &HyperParameters::dampening, "dampening: a <- μ*a + (1-dampening)*g", 0.0, 1.0),
        real("weight-decay", &HyperParameters::weightDecay, "L2 penalty (adamw: decoupled decay)", 0.0, kFloatMax),
        real("beta1", &HyperParameters::beta1, "first-moment decay", 0.0, 1.0, true),
        real("beta2", &HyperParameters::beta2, "second-moment decay", 0.0, 1.0, true),
        real("eps", &HyperParameters::eps, "term added to the denominator", 0.0, kFloatMax),
        real("alpha", &HyperParameters::alpha, "smoothing constant of the squared-gradient average", 0.0, 1.0),
        real("initial-accumulator", &HyperParameters::initialAccumulator,
             "starting value of the sum of squared gradients", 0.0, kFloatMax),
        real("lr-decay", &HyperParameters::lrDecay, "learning-rate decay: lr / (1 + (t-1)*lr_decay)", 0.0, kFloatMax),
        field("centered", &HyperParameters::centered, "normalise by the estimated gradient variance"),
        field("amsgrad", &HyperParameters::amsgrad, "use the running maximum of the second moment"),
        choice("momentum-mean", &HyperParameters::momentumMean,
               "average the first moment over: none, fan-in (a neuron's incoming connections), fan-out (an "
               "input's outgoing connections), layer",
               {"none", "fan-in", "fan-out", "layer"}),
        choice("bias", &HyperParameters::bias,
               "own: biases keep ordinary momentum; join: a bias counts as one more connection", {"own", "join"}),
        real("trust", &HyperParameters::trust, "trust coefficient eta of the layer-wise learning rate (lars)", 0.0,
             kFloatMax),
        real("momentum-mean-blend", &HyperParameters::momentumMeanBlend,
             "λ: the first moment becomes (1-λ)*a + λ*M(a) before it decays (0: ordinary momentum, "
             "1: the full group mean)",
             0.0, 1.0),
        choice("momentum-mean-stat", &HyperParameters::momentumMeanStat,
               "what a group shares: mean, or signed-abs-mean (each entry keeps its sign, the group shares the mean "
               "magnitude)",
               {"mean", "signed-abs-mean"}),
        field("gradient-centralization", &HyperParameters::gradientCentralization,
              "subtract each weight row's mean from its gradient (after coupled weight decay; biases untouched)"),
        choice("second-moment-mean", &HyperParameters::secondMomentMean,
               "after its update the second moment becomes its group's mean: none, fan-in, fan-out, layer, or "
               "factored (rowmean(v)_i * colmean(v)_j / mean(v))",
               {"none", "fan-in", "fan-out", "layer", "factored"}),
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
    case Kind::Real: return formatReal(member<double>(*this, hp));
    case Kind::Flag: return member<bool>(*this, hp) ? "true" : "false";
    case Kind::Choice: return choices.at(choiceIndex(*this, hp));
    }
    return {};
}

double ParameterField::getReal(const HyperParameters& hp) const {
    if (kind == Kind::Real) return member<double>(*this, hp);
    if (kind == Kind::Flag) return member<bool>(*this, hp) ? 1.0 : 0.0;
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
    if (maximum == kFloatMax)
        return "a number >= " + formatReal(minimum) + " that a float can hold (at most about " +
               formatReal(maximum, 2) + ")";
    return "a number in [" + formatReal(minimum) + ", " + formatReal(maximum) + (maximumExclusive ? ")" : "]");
}

void ParameterField::checkRange(const HyperParameters& hp, const std::string& context) const {
    if (kind != Kind::Real) return;
    const double value = getReal(hp);
    const bool ok = std::isfinite(value) && value >= minimum && (maximumExclusive ? value < maximum : value <= maximum);
    if (!ok) throw InputError(context + ": " + formatReal(value) + " is out of range; expected " + rangeText());
}

void ParameterField::setReal(HyperParameters& hp, double value, const std::string& context) const {
    if (kind == Kind::Flag) {
        member<bool>(*this, hp) = value != 0.0;
        return;
    }
    if (kind != Kind::Real) throw InputError(context + ": expected " + rangeText());
    member<double>(*this, hp) = value;
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
        if (text == "true" || text == "1" || text == "yes" || text.empty()) member<bool>(*this, hp) = true;
        else if (text == "false" || text == "0" || text == "no") member<bool>(*this, hp) = false;
        else throw InputError(context + ": '" + text + "' is not a flag value; expected true or false");
        return;
    case Kind::Choice: {
        for (std::size_t i = 0; i < choices.size(); ++i) {
            if (choices[i] != text) continue;
            setChoiceIndex(*this, hp, i);
            return;
        }
        throw InputError(context + ": '" + text + "' is not valid; expected " + rangeText());
    }
    }
}

}  // namespace ml
