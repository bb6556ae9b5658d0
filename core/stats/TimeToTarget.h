#pragma once
// Time to target: the first step (and the training time then) at which a curve reaches a target
// value of a lower-is-better metric. A run that never reaches it counts as infinitely slow, so
// medians and performance profiles rank it last instead of dropping it.
#include <limits>
#include <span>

namespace ml::stats {

inline constexpr double kNeverReached = std::numeric_limits<double>::infinity();

struct TimeToTarget {
    double steps = kNeverReached;
    double wallMs = kNeverReached;
    bool reached() const { return steps != kNeverReached; }
};

// `steps`, `values` and `wallMs` are parallel series (wallMs may be empty: its time stays infinite).
// NaN values (no evaluation at that step) are skipped.
TimeToTarget timeToTarget(std::span<const long> steps, std::span<const double> values, std::span<const double> wallMs,
                          double target);

}  // namespace ml::stats
