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
    out.resize(z.rows(), z.cols());
    applyActivation(activation, z.data(), out.data(), z.size());
}

void multiplyByDerivative(Activation activation, const BatchMatrix& z, const BatchMatrix& a,
                          BatchMatrix& delta) {
    multiplyByDerivative(activation, z.data(), activation == Activation::Identity ? nullptr : a.data(), delta.data(),
                         delta.size());
}

void applyActivation(Activation activation, const float* z, float* a, Eigen::Index n) {
    using Values = Eigen::Map<const Eigen::ArrayXf>;
    Eigen::Map<Eigen::ArrayXf> out(a, n);
    const Values in(z, n);
    switch (activation) {
    case Activation::Identity: out = in; break;
    case Activation::Sigmoid: out = (1.0f + (-in).exp()).inverse(); break;
    case Activation::Tanh: out = in.tanh(); break;
    case Activation::Relu: out = in.max(0.0f); break;
    }
}

void multiplyByDerivative(Activation activation, const float* z, const float* a, float* delta, Eigen::Index n) {
    using Values = Eigen::Map<const Eigen::ArrayXf>;
    Eigen::Map<Eigen::ArrayXf> d(delta, n);
    switch (activation) {
    case Activation::Identity: break;
    case Activation::Sigmoid: d *= Values(a, n) * (1.0f - Values(a, n)); break;
    case Activation::Tanh: d *= 1.0f - Values(a, n).square(); break;
    case Activation::Relu:  // a select the compiler vectorises (Eigen 3.4's bool comparison stays scalar)
        for (Eigen::Index i = 0; i < n; ++i) delta[i] = z[i] > 0.0f ? delta[i] : 0.0f;
        break;
    }
}

}  // namespace ml
