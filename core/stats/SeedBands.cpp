#include "stats/SeedBands.h"

#include "stats/Descriptive.h"

#include <map>

namespace ml::stats {

std::vector<BandPoint> seedBands(const std::vector<Curve>& curves, int minimumSeeds, const BootstrapOptions& options) {
    std::map<long, std::vector<double>> valuesByStep;
    for (const Curve& curve : curves)
        for (std::size_t i = 0; i < curve.steps.size() && i < curve.values.size(); ++i)
            valuesByStep[curve.steps[i]].push_back(curve.values[i]);
    std::vector<BandPoint> bands;
    for (const auto& [step, values] : valuesByStep) {
        if (static_cast<int>(values.size()) < minimumSeeds) continue;
        const Spread spread = spreadOf(values);
        bands.push_back({step, static_cast<int>(values.size()), spread.median, spread.lowerQuartile,
                         spread.upperQuartile, bootstrapMean(values, options)});
    }
    return bands;
}

}  // namespace ml::stats
