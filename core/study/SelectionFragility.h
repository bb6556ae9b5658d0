#pragma once
// How far a study's choice can be trusted, from the tuning trials of one optimizer on one task:
// whether the chosen value of each searched hyper-parameter sits on an edge of what was searched
// (a better value may lie beyond it), how often the same point wins when the tuning seeds are
// resampled, and the validation scores of the values next to it. The trials are grouped by their
// hyper-parameter point; each point has one score per tuning seed it ran on.
#include "stats/SearchSpace.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ml {

// One finished tuning trial: its full point (the defaults' values for the untuned trial), the
// tuning seed it ran on, its selection score (lower is better) and whether it diverged.
struct TuningScore {
    stats::TrialPoint point;
    std::uint64_t seed = 0;
    double score = INFINITY;
    bool diverged = false;
};

// What lies beyond the chosen value on one side of a parameter.
enum class EdgeSide {
    Searched,  // a searched value beyond it that did not diverge
    Edge,      // nothing was searched beyond it: the optimum may lie outside (fragile)
    Diverged,  // the next searched value beyond it diverged: the edge of what diverges (not fragile)
    Bound,     // the hyper-parameter's own bound (momentum 0): nothing can lie beyond it (not fragile)
};
std::string toString(EdgeSide side);  // "searched", "edge", "diverged", "bound"

// A searched key and the values it can take at all (inclusive; infinite: unbounded).
struct SearchedKey {
    SearchedKey(std::string name, double lowest = -INFINITY, double highest = INFINITY)
        : key(std::move(name)), lowest(lowest), highest(highest) {}
    SearchedKey(const char* name) : SearchedKey(std::string(name)) {}
    std::string key;
    double lowest, highest;
};

struct NeighbourScore {
    double value = NAN;  // NaN: no searched value on this side
    double score = NAN;  // the point's score over its seeds (infinity: diverged)
};

struct ParameterFragility {
    std::string key;
    double value = 0;                          // the chosen value
    double searchedLow = 0, searchedHigh = 0;  // the lowest and highest value searched
    EdgeSide below = EdgeSide::Searched, above = EdgeSide::Searched;
    // The nearest searched values on each side: along the line through the chosen point (the other
    // keys at their chosen values) where the search has one, as a grid does; else among all trials.
    NeighbourScore lower, upper;
    bool onEdge() const { return below == EdgeSide::Edge || above == EdgeSide::Edge; }
    std::string edgeName() const;  // "lower edge", "upper edge", "both edges", "" when on neither
};

// How a point's scores over its tuning seeds make its score.
enum class SeedStatistic { Median, Mean };

struct SelectionFragility {
    double chosenScore = NAN;                    // the chosen point's score over its seeds
    std::vector<ParameterFragility> parameters;  // the searched keys with at least two values tried
    int tuningSeeds = 1;                         // scores per point (the most any point has)
    // The fraction of bootstrap resamples of the tuning seeds in which the chosen point still wins;
    // NaN with one tuning seed, where it cannot be measured.
    double stability = NAN;
    int resamples = 0;
    bool measurable() const { return !std::isnan(stability); }
    bool onEdge() const;  // any parameter on an edge of what was searched
};

struct FragilityOptions {
    SeedStatistic statistic = SeedStatistic::Median;
    int resamples = 1000;
    std::uint64_t seed = 20240607;  // the resampling's RNG: the same trials give the same stability
};

// `keys`: the searched keys with their bounds, in the order of each point's values; `trials`: the finished tuning
// trials, in plan order (a tie goes to the earlier point, as in selection); `chosen`: the selected
// point. Points are paired by tuning seed when resampled (each point ran on the same seeds); a
// point tried twice on the same seed (the defaults equal to a searched value) counts once.
SelectionFragility assessSelection(const std::vector<SearchedKey>& keys, const std::vector<TuningScore>& trials,
                                   const stats::TrialPoint& chosen, const FragilityOptions& options = {});

}  // namespace ml
