#include "nn/Activation.h"

#include "InputError.h"

namespace ml {

namespace {
struct NamedActivation {
    Activation value;
    const char* name;
};
constexpr NamedActivation kActivations[] = {
    {Activation::Identity, "identity"},
    {Activation::Sigmoid, "sigmoid"},
    {Activation::Tanh, "tanh"},
    {Activation::Relu, "relu"},
};
}  // namespace

std::string toString(Activation activation) {
    for (const auto& entry : kActivations)
        if (entry.value == activation) return entry.name;
    return "identity";
}

std::vector<std::string> activationNames() {
    std::vector<std::string> names;
    for (const auto& entry : kActivations) names.emplace_back(entry.name);
    return names;
}

Activation activationFromString(const std::string& name) {
    for (const auto& entry : kActivations)
        if (name == entry.name) return entry.value;
    throw InputError("activation: unknown '" + name + "'; expected identity, sigmoid, tanh or relu");
}

void applyActivation(Activation activation, const BatchMatrix& z, BatchMatrix& out) {
    switch (activation) {
    case Activation::Identity: out = z; break;
    case Activation::Sigmoid: out = (1.0f + (-z.array()).exp()).inverse().matrix(); break;
    case Activation::Tanh: out = z.array().tanh().matrix(); break;
    case Activation::Relu: out = z.cwiseMax(0.0f); break;
    }
}

void multiplyByDerivative(Activation activation, const BatchMatrix& z, const BatchMatrix& a,
                          BatchMatrix& delta) {
    switch (activation) {
    case Activation::Identity: break;
    case Activation::Sigmoid: delta.array() *= a.array() * (1.0f - a.array()); break;
    case Activation::Tanh: delta.array() *= 1.0f - a.array().square(); break;
    case Activation::Relu: delta.array() *= (z.array() > 0.0f).cast<float>(); break;
    }
}

}  // namespace ml
