#include "stats/ExpectedBest.h"

#include <algorithm>
#include <cmath>

namespace ml::stats {

double expectedBestOf(std::span<const double> trialResults, int k) {
    if (trialResults.empty() || k < 1) return NAN;
    std::vector<double> sorted(trialResults.begin(), trialResults.end());
    std::sort(sorted.begin(), sorted.end());
    const double n = static_cast<double>(sorted.size());
    double expected = 0.0;
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        // P(the best of k draws is the (i+1)-th smallest) = P(all >= it) - P(all > it).
        const double atLeast = std::pow((n - static_cast<double>(i)) / n, k);
        const double above = std::pow((n - static_cast<double>(i) - 1.0) / n, k);
        const double probability = atLeast - above;
        if (probability > 0.0) expected += sorted[i] * probability;  // an infinite result with p = 0 adds nothing
    }
    return expected;
}

std::vector<double> expectedBestCurve(std::span<const double> trialResults, int maxTrials) {
    std::vector<double> curve;
    for (int k = 1; k <= maxTrials; ++k) curve.push_back(expectedBestOf(trialResults, k));
    return curve;
}

}  // namespace ml::stats
