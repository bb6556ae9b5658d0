#include "stats/Descriptive.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace ml::stats {

double quantile(std::span<const double> values, double q) {
    if (values.empty()) return NAN;
    std::vector<double> sorted(values.begin(), values.end());
    std::sort(sorted.begin(), sorted.end());
    const double position = std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
    const auto below = static_cast<std::size_t>(std::floor(position));
    const std::size_t above = std::min(below + 1, sorted.size() - 1);
    const double fraction = position - static_cast<double>(below);
    return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

double median(std::span<const double> values) { return quantile(values, 0.5); }

double mean(std::span<const double> values) {
    if (values.empty()) return NAN;
    return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

Spread spreadOf(std::span<const double> values) {
    return {quantile(values, 0.5), quantile(values, 0.25), quantile(values, 0.75)};
}

double upperFence(std::span<const double> values) {
    const Spread s = spreadOf(values);
    return s.upperQuartile + 1.5 * (s.upperQuartile - s.lowerQuartile);
}

}  // namespace ml::stats
