#pragma once
// Every optimizer hyper-parameter the app knows, in one value type, and a table describing each
// one (key = CLI flag name = JSON key = GUI form label source). Which optimizer uses which
// parameter, and its defaults, is in OptimizerCatalog.
#include <string>
#include <variant>
#include <vector>

namespace ml {

// Which first-moment entries are averaged together before each update (see MomentumAggregation).
enum class MeanScope { None, FanIn, FanOut, Layer };
// own: biases keep ordinary momentum; join: the bias counts as one more connection.
enum class BiasMode { Own, Join };
// What a group shares of the first moment: its mean, or (signed-abs-mean) the mean magnitude,
// each entry keeping its own sign.
enum class MeanStatistic { Mean, SignedAbsMean };
// Which second-moment entries share their value (SecondMomentSharing): the scopes of MeanScope
// (same order) plus factored, Adafactor's rank-1 estimate.
enum class SecondMomentScope { None, FanIn, FanOut, Layer, Factored };

struct HyperParameters {
    double lr = 0.01;
    double momentum = 0.9;  // μ (sgdm-ema: the EMA factor; rmsprop: its optional momentum)
    double dampening = 0.0;
    double weightDecay = 0.0;
    double beta1 = 0.9;
    double beta2 = 0.999;
    double eps = 1e-8;
    double alpha = 0.99;
    double initialAccumulator = 0.0;
    double lrDecay = 0.0;
    bool centered = false;
    bool amsgrad = false;
    MeanScope momentumMean = MeanScope::None;
    BiasMode bias = BiasMode::Own;
    double trust = 0.001;            // lars: trust coefficient eta
    double momentumMeanBlend = 1.0;  // λ: a <- (1-λ)*a + λ*M(a); 1 = the full group mean
    MeanStatistic momentumMeanStat = MeanStatistic::Mean;
    bool gradientCentralization = false;
    SecondMomentScope secondMomentMean = SecondMomentScope::None;

    bool operator==(const HyperParameters&) const = default;
};

// Describes one hyper-parameter: its key, what it means, where it lives in HyperParameters, its
// kind and its valid range.
struct ParameterField {
    enum class Kind { Real, Flag, Choice };
    // The member the field reads and writes: a double (Real), a bool (Flag) or an enum (Choice,
    // whose value i is choices[i]).
    using Slot = std::variant<double HyperParameters::*, bool HyperParameters::*, MeanScope HyperParameters::*,
                              BiasMode HyperParameters::*, MeanStatistic HyperParameters::*,
                              SecondMomentScope HyperParameters::*>;
    std::string key;  // "lr", "weight-decay", "momentum-mean", ...
    std::string help;
    Kind kind = Kind::Real;  // follows from the slot's type (set by the table's constructors)
    Slot slot;
    double minimum = 0.0;
    double maximum = 0.0;              // Real: upper bound ...
    bool maximumExclusive = false;     // ... excluded (e.g. momentum < 1)
    std::vector<std::string> choices;  // Choice only

    // Value as text ("0.01", "true", "fan-in").
    std::string get(const HyperParameters& hp) const;
    double getReal(const HyperParameters& hp) const;
    // Parses and range-checks `text`; throws InputError naming `context` (e.g. "--lr").
    void set(HyperParameters& hp, const std::string& text, const std::string& context) const;
    void setReal(HyperParameters& hp, double value, const std::string& context) const;
    // Throws InputError naming `context` when the current value is out of range.
    void checkRange(const HyperParameters& hp, const std::string& context) const;
    std::string rangeText() const;
};

const std::vector<ParameterField>& parameterFields();
// nullptr when `key` is no hyper-parameter.
const ParameterField* findParameterField(const std::string& key);

}  // namespace ml
