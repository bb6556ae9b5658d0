#include "stats/TimeToTarget.h"

#include <cmath>

namespace ml::stats {

TimeToTarget timeToTarget(std::span<const long> steps, std::span<const double> values, std::span<const double> wallMs,
                          double target) {
    for (std::size_t i = 0; i < steps.size() && i < values.size(); ++i) {
        if (std::isnan(values[i]) || values[i] > target) continue;
        return {static_cast<double>(steps[i]), i < wallMs.size() ? wallMs[i] : kNeverReached};
    }
    return {};
}

}  // namespace ml::stats
