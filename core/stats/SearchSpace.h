#pragma once
// A tuning search space and its trials, the same for every optimizer of a study so that each gets
// an equal budget (DeepOBS; Schmidt et al. 2021). A dimension is a grid of values, or a uniform or
// log-uniform range sampled quasi-randomly (an unscrambled Halton sequence, one prime base per
// dimension, starting after point `seed`): low-discrepancy like the quasi-random search that
// Bousquet et al. 2017 recommend, and the same trials on every machine.
#include <cstdint>
#include <string>
#include <vector>

namespace ml::stats {

struct SearchDimension {
    enum class Kind { Grid, Uniform, LogUniform };
    std::string key;  // a hyper-parameter key ("lr", "momentum", ...)
    Kind kind = Kind::Grid;
    std::vector<double> grid;      // Grid
    double low = 0.0, high = 0.0;  // Uniform / LogUniform (LogUniform: 0 < low < high)

    // Throws std::invalid_argument naming the key when the dimension is empty or its range invalid.
    void validate() const;
    // The value at quasi-random coordinate u in [0, 1): the grid entry floor(u * size), or the range point.
    double valueAt(double u) const;
};

// One trial: a value for each dimension, in the dimensions' order.
using TrialPoint = std::vector<double>;

// `budget` trials. All-grid spaces with at most `budget` points give the whole grid (row-major,
// first dimension slowest) — a grid is never subsampled silently: a larger grid is refused.
// Otherwise `budget` Halton points. Throws std::invalid_argument on an invalid space or budget < 1.
std::vector<TrialPoint> planTrials(const std::vector<SearchDimension>& space, int budget, std::uint64_t seed);

// The radical inverse of `index` in `base` (the Halton sequence's coordinate), in [0, 1).
double radicalInverse(std::uint64_t index, unsigned base);

}  // namespace ml::stats
