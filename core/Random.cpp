#include "Random.h"

#include <cmath>
#include <numbers>

namespace ml {

float Random::normal() {
    const float u1 = 1.0f - uniform();  // (0, 1]: log is finite
    const float u2 = uniform();
    return std::sqrt(-2.0f * std::log(u1)) * std::cos(2.0f * std::numbers::pi_v<float> * u2);
}

}  // namespace ml
