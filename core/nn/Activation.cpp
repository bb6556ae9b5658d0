#include "nn/Activation.h"

#include "InputError.h"
#include "TinyLoops.h"

#include <algorithm>

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
    if (out.rows() != z.rows() || out.cols() != z.cols())
        out.resize(z.rows(), z.cols());  // resize divides (overflow check)
    applyActivation(activation, z.data(), out.data(), z.size());
}

void multiplyByDerivative(Activation activation, const BatchMatrix& z, const BatchMatrix& a, BatchMatrix& delta) {
    multiplyByDerivative(activation, z.data(), activation == Activation::Identity ? nullptr : a.data(), delta.data(),
                         delta.size());
}

namespace {
// a = f(z) on n values. Eigen vectorises a dynamic-size array only in whole packets; the values past
// the last whole block (all of them in a tiny layer: 1-2-2-1 has two) would each take an
// out-of-line scalar call of tanh or exp. They go through one zero-padded fixed-size block instead,
// which Eigen evaluates in packets (same approximation as the scalar call).
template <typename F>
ML_TINY_LOOPS void mapValues(const float* z, float* a, Eigen::Index n, F f) {
    constexpr Eigen::Index kBlock = 8;  // one AVX packet (half an AVX-512 one)
    using Block = Eigen::Array<float, kBlock, 1>;
    const Eigen::Index whole = n - n % kBlock;
    if (whole > 0) Eigen::Map<Eigen::ArrayXf>(a, whole) = f(Eigen::Map<const Eigen::ArrayXf>(z, whole));
    if (whole == n) return;
    Block in = Block::Zero();
    for (Eigen::Index i = whole; i < n; ++i) in[i - whole] = z[i];
    const Block out = f(in);
    for (Eigen::Index i = whole; i < n; ++i) a[i] = out[i - whole];
}
}  // namespace

void applyActivation(Activation activation, const float* z, float* a, Eigen::Index n) {
    switch (activation) {
    case Activation::Identity: std::copy_n(z, n, a); break;
    case Activation::Sigmoid: mapValues(z, a, n, [](const auto& in) { return (1.0f + (-in).exp()).inverse(); }); break;
    case Activation::Tanh: mapValues(z, a, n, [](const auto& in) { return in.tanh(); }); break;
    case Activation::Relu: mapValues(z, a, n, [](const auto& in) { return in.max(0.0f); }); break;
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
