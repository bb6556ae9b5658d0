#include "stats/SearchSpace.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ml::stats {

namespace {
constexpr unsigned kPrimes[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
}

void SearchDimension::validate() const {
    const auto refuse = [&](const std::string& why) { return std::invalid_argument(key + ": " + why); };
    switch (kind) {
    case Kind::Grid:
        if (grid.empty()) throw refuse("a grid needs at least one value");
        return;
    case Kind::Uniform:
        if (!(low < high) || !std::isfinite(low) || !std::isfinite(high))
            throw refuse("a uniform range needs finite low < high");
        return;
    case Kind::LogUniform:
        if (!(0.0 < low && low < high) || !std::isfinite(high))
            throw refuse("a log-uniform range needs 0 < low < high");
        return;
    }
}

double SearchDimension::valueAt(double u) const {
    switch (kind) {
    case Kind::Grid: {
        const auto index = static_cast<std::size_t>(u * static_cast<double>(grid.size()));
        return grid[std::min(index, grid.size() - 1)];
    }
    case Kind::Uniform: return low + u * (high - low);
    case Kind::LogUniform: return std::exp(std::log(low) + u * (std::log(high) - std::log(low)));
    }
    return NAN;
}

double radicalInverse(std::uint64_t index, unsigned base) {
    double result = 0.0;
    double scale = 1.0 / base;
    for (; index > 0; index /= base, scale /= base) result += static_cast<double>(index % base) * scale;
    return result;
}

std::vector<TrialPoint> planTrials(const std::vector<SearchDimension>& space, int budget, std::uint64_t seed) {
    if (budget < 1) throw std::invalid_argument("the trial budget must be at least 1");
    if (space.size() > std::size(kPrimes)) throw std::invalid_argument("at most 12 searched hyper-parameters");
    for (const SearchDimension& dimension : space) dimension.validate();
    std::vector<TrialPoint> trials;
    const bool allGrid = std::all_of(space.begin(), space.end(),
                                     [](const SearchDimension& d) { return d.kind == SearchDimension::Kind::Grid; });
    if (allGrid) {
        std::size_t points = 1;
        for (const SearchDimension& dimension : space) points *= dimension.grid.size();
        if (points > static_cast<std::size_t>(budget))
            throw std::invalid_argument("the grid has " + std::to_string(points) + " points but the budget is " +
                                        std::to_string(budget) + " trials");
        for (std::size_t flat = 0; flat < points && !space.empty(); ++flat) {
            TrialPoint point(space.size());
            std::size_t rest = flat;
            for (std::size_t d = space.size(); d-- > 0;) {
                point[d] = space[d].grid[rest % space[d].grid.size()];
                rest /= space[d].grid.size();
            }
            trials.push_back(std::move(point));
        }
        return trials;
    }
    for (int t = 0; t < budget; ++t) {
        TrialPoint point;
        for (std::size_t d = 0; d < space.size(); ++d)
            point.push_back(space[d].valueAt(radicalInverse(seed + static_cast<std::uint64_t>(t) + 1, kPrimes[d])));
        trials.push_back(std::move(point));
    }
    return trials;
}

}  // namespace ml::stats
