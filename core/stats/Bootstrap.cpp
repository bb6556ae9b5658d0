#include "stats/Bootstrap.h"

#include "Random.h"
#include "stats/Descriptive.h"

#include <cmath>
#include <stdexcept>
#include <vector>

namespace ml::stats {

Interval bootstrapMean(std::span<const double> values, const BootstrapOptions& options) {
    Interval interval{mean(values), NAN, NAN};
    if (values.empty() || options.resamples <= 0) return interval;
    Random random(options.seed);
    std::vector<double> means(static_cast<std::size_t>(options.resamples));
    for (double& resampledMean : means) {
        double sum = 0.0;
        for (std::size_t i = 0; i < values.size(); ++i) sum += values[random.below(values.size())];
        resampledMean = sum / static_cast<double>(values.size());
    }
    interval.low = quantile(means, (1.0 - options.level) / 2.0);
    interval.high = quantile(means, (1.0 + options.level) / 2.0);
    return interval;
}

PairedComparison comparePaired(std::span<const double> a, std::span<const double> b,
                               const BootstrapOptions& options) {
    if (a.size() != b.size()) throw std::invalid_argument("comparePaired: samples of different lengths");
    std::vector<double> differences;
    double wins = 0.0;
    bool finite = true;
    for (std::size_t s = 0; s < a.size(); ++s) {
        wins += a[s] < b[s] ? 1.0 : a[s] == b[s] ? 0.5 : 0.0;
        finite = finite && std::isfinite(a[s]) && std::isfinite(b[s]);
        differences.push_back(a[s] - b[s]);
    }
    PairedComparison result;
    result.probabilityABetter = a.empty() ? NAN : wins / static_cast<double>(a.size());
    result.meanDifference = finite ? bootstrapMean(differences, options) : Interval{NAN, NAN, NAN};
    return result;
}

}  // namespace ml::stats
