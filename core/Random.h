#pragma once
// Seeded randomness with results that do not depend on the standard library's distributions
// (whose algorithms are implementation-defined): the same seed gives the same numbers everywhere.
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <utility>

namespace ml {

class Random {
public:
    explicit Random(std::uint64_t seed) : engine_(seed) {}

    // Uniform float in [0, 1) with 24 random bits.
    float uniform() { return static_cast<float>(engine_() >> 40) * (1.0f / 16777216.0f); }
    float uniform(float low, float high) { return low + (high - low) * uniform(); }
    // Standard normal (Box-Muller on two uniforms).
    float normal();
    // Uniform integer in [0, n).
    std::uint64_t below(std::uint64_t n) { return engine_() % n; }

    template <typename T>
    void shuffle(std::span<T> values) {
        for (std::size_t i = values.size(); i > 1; --i) std::swap(values[i - 1], values[below(i)]);
    }

    // The engine's whole state as text (the standard's stream form of mt19937_64: 312 words and a
    // position), for training-state files; setState returns false for text that is not one.
    std::string state() const;
    bool setState(const std::string& text);

private:
    std::mt19937_64 engine_;
};

}  // namespace ml
