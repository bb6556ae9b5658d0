#include "stats/Bootstrap.h"

#include "Random.h"
#include "stats/Descriptive.h"

#include <cmath>
#include <stdexcept>
#include <vector>

namespace ml::stats {

namespace {

// One comparison of "lower is better": a win 1, a tie one half, a loss 0.
double winShare(double a, double b) { return a < b ? 1.0 : a == b ? 0.5 : 0.0; }

}  // namespace

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

PairedComparison comparePaired(std::span<const double> a, std::span<const double> b, const BootstrapOptions& options) {
    if (a.size() != b.size()) throw std::invalid_argument("comparePaired: samples of different lengths");
    std::vector<double> differences;
    double wins = 0.0;
    bool finite = true;
    for (std::size_t s = 0; s < a.size(); ++s) {
        wins += winShare(a[s], b[s]);
        finite = finite && std::isfinite(a[s]) && std::isfinite(b[s]);
        differences.push_back(a[s] - b[s]);
    }
    PairedComparison result;
    result.probabilityABetter = a.empty() ? NAN : wins / static_cast<double>(a.size());
    result.meanDifference = finite ? bootstrapMean(differences, options) : Interval{NAN, NAN, NAN};
    return result;
}

BetterProbability probabilityBetter(const SeededValues& a, const SeededValues& b) {
    if (a.seeds.size() != a.values.size() || b.seeds.size() != b.values.size())
        throw std::invalid_argument("probabilityBetter: one value per seed expected");
    BetterProbability result;
    double wins = 0.0;
    for (std::size_t i = 0; i < a.seeds.size(); ++i)
        for (std::size_t j = 0; j < b.seeds.size(); ++j)
            if (a.seeds[i] == b.seeds[j]) {
                wins += winShare(a.values[i], b.values[j]);
                ++result.pairs;
            }
    result.paired = result.pairs > 0;
    if (!result.paired)
        for (const double x : a.values)
            for (const double y : b.values) {
                wins += winShare(x, y);
                ++result.pairs;
            }
    if (result.pairs > 0) result.probability = wins / result.pairs;
    return result;
}

}  // namespace ml::stats
