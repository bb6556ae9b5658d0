#pragma once
// One optimizer's curve over several seeds, as bands: at each step the median with the
// interquartile range, and the mean with its bootstrap confidence interval. Curves are aligned by
// step; a seed that stopped early (diverged, stopped) simply contributes to fewer steps, and each
// band point says how many seeds it summarises.
#include "stats/Bootstrap.h"

#include <vector>

namespace ml::stats {

struct Curve {
    std::vector<long> steps;     // increasing
    std::vector<double> values;  // same length
};

struct BandPoint {
    long step = 0;
    int seeds = 0;  // how many curves have a value at this step
    double median = 0.0, lowerQuartile = 0.0, upperQuartile = 0.0;
    Interval mean;
};

// One point per step that at least `minimumSeeds` curves contain, in step order.
std::vector<BandPoint> seedBands(const std::vector<Curve>& curves, int minimumSeeds = 1,
                                 const BootstrapOptions& options = {});

}  // namespace ml::stats
