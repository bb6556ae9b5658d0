#include "Random.h"

#include <cmath>
#include <numbers>
#include <sstream>

namespace ml {

float Random::normal() {
    const float u1 = 1.0f - uniform();  // (0, 1]: log is finite
    const float u2 = uniform();
    return std::sqrt(-2.0f * std::log(u1)) * std::cos(2.0f * std::numbers::pi_v<float> * u2);
}

std::string Random::state() const {
    std::ostringstream text;
    text << engine_;
    return text.str();
}

bool Random::setState(const std::string& text) {
    std::istringstream in(text);
    std::mt19937_64 engine;
    in >> engine;
    if (in.fail()) return false;
    in >> std::ws;
    if (!in.eof()) return false;  // trailing text: not one engine state
    engine_ = engine;
    return true;
}

}  // namespace ml
