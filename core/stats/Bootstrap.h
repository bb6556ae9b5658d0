#pragma once
// Percentile bootstrap (Efron & Tibshirani 1993, ch. 13): resample the seeds with replacement,
// recompute the statistic, take the (1-level)/2 and (1+level)/2 quantiles. Seeded, so a report's
// intervals are the same every time it is made.
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

namespace ml::stats {

struct BootstrapOptions {
    double level = 0.95;
    int resamples = 10000;
    std::uint64_t seed = 20240607;
};

struct Interval {
    double estimate = 0.0;  // the statistic on the sample itself
    double low = 0.0;
    double high = 0.0;
};

// Mean of `values` with its bootstrap confidence interval. NaN bounds for an empty sample.
Interval bootstrapMean(std::span<const double> values, const BootstrapOptions& options = {});

// Two optimizers run on the same seeds (lockstep pairing: same initial weights and batches), a
// metric per seed where lower is better (a loss, steps to a target; infinity = never reached).
struct PairedComparison {
    Interval meanDifference;    // mean of a_s - b_s with its bootstrap interval (NaN if infinite)
    double probabilityABetter;  // fraction of seeds with a_s < b_s, ties counting one half
};
// Throws std::invalid_argument when the two samples differ in length.
PairedComparison comparePaired(std::span<const double> a, std::span<const double> b,
                               const BootstrapOptions& options = {});

// One optimizer's metric per seed (lower is better; infinity = diverged or never reached; no NaN).
struct SeededValues {
    std::vector<std::uint64_t> seeds;
    std::vector<double> values;  // values[i] belongs to seeds[i]
};

// The probability that a seed of A beats a seed of B (ties count one half). Paired by seed over the
// seeds both have (lockstep pairing: the same seed means the same initial weights and batches);
// when they share no seed, over all |A| x |B| pairs (the common-language effect size, McGraw &
// Wong 1992). NaN when either is empty. Throws std::invalid_argument when seeds and values differ in length.
struct BetterProbability {
    double probability = NAN;
    int pairs = 0;        // the comparisons counted
    bool paired = false;  // true: over common seeds; false: all pairs
};
BetterProbability probabilityBetter(const SeededValues& a, const SeededValues& b);

}  // namespace ml::stats
