#include "study/SelectionFragility.h"

#include "Random.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

namespace ml {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The trials of one hyper-parameter point, their scores in the order of their tuning seeds.
struct PointScores {
    stats::TrialPoint point;
    std::vector<std::pair<std::uint64_t, double>> bySeed;
    int diverged = 0;
    // At least half of its seeds diverged: the point counts as diverged (its median is infinite).
    bool divergedPoint() const { return 2 * diverged >= static_cast<int>(bySeed.size()); }
};

double statisticOf(std::vector<double> values, SeedStatistic statistic) {
    if (values.empty()) return kInfinity;
    if (statistic == SeedStatistic::Mean) {
        double sum = 0;
        for (const double v : values) sum += v;
        return sum / static_cast<double>(values.size());
    }
    std::sort(values.begin(), values.end());  // infinity sorts last
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double scoreOf(const PointScores& p, SeedStatistic statistic) {
    std::vector<double> values;
    for (const auto& [seed, score] : p.bySeed) values.push_back(score);
    return statisticOf(std::move(values), statistic);
}

// The lowest score wins; a tie goes to the earlier point.
std::size_t winnerOf(const std::vector<double>& scores) {
    std::size_t best = 0;
    for (std::size_t i = 1; i < scores.size(); ++i)
        if (scores[i] < scores[best]) best = i;
    return best;
}

bool sameExcept(const stats::TrialPoint& a, const stats::TrialPoint& b, std::size_t dimension) {
    for (std::size_t d = 0; d < a.size(); ++d)
        if (d != dimension && a[d] != b[d]) return false;
    return true;
}

// One searched value along a parameter: its best score and whether every point there diverged.
struct ValueScore {
    double score = kInfinity;
    bool diverged = true;
};

ParameterFragility assessParameter(const SearchedKey& key, std::size_t d, const std::vector<PointScores>& points,
                                   const std::vector<double>& scores, std::size_t chosen) {
    ParameterFragility p;
    p.key = key.key;
    p.value = points[chosen].point[d];
    // The line through the chosen point when the search has one (a grid); else every point.
    std::vector<std::size_t> line;
    std::set<double> lineValues, allValues;
    for (std::size_t i = 0; i < points.size(); ++i) {
        allValues.insert(points[i].point[d]);
        if (sameExcept(points[i].point, points[chosen].point, d)) {
            line.push_back(i);
            lineValues.insert(points[i].point[d]);
        }
    }
    p.searchedLow = *allValues.begin();
    p.searchedHigh = *allValues.rbegin();
    if (lineValues.size() < 2) {
        line.resize(points.size());
        for (std::size_t i = 0; i < points.size(); ++i) line[i] = i;
    }
    std::map<double, ValueScore> along;
    for (const std::size_t i : line) {
        ValueScore& v = along[points[i].point[d]];
        v.score = std::min(v.score, scores[i]);
        v.diverged = v.diverged && points[i].divergedPoint();
    }
    const auto at = along.find(p.value);
    const auto side = [&](auto neighbour, bool exists, NeighbourScore& into, double bound) {
        if (!exists) return p.value == bound ? EdgeSide::Bound : EdgeSide::Edge;
        into = {neighbour->first, neighbour->second.score};
        return neighbour->second.diverged ? EdgeSide::Diverged : EdgeSide::Searched;
    };
    p.below = side(std::prev(at == along.begin() ? along.end() : at), at != along.begin(), p.lower, key.lowest);
    p.above = side(std::next(at), std::next(at) != along.end(), p.upper, key.highest);
    return p;
}

}  // namespace

std::string toString(EdgeSide side) {
    switch (side) {
    case EdgeSide::Searched: return "searched";
    case EdgeSide::Edge: return "edge";
    case EdgeSide::Diverged: return "diverged";
    case EdgeSide::Bound: return "bound";
    }
    return "searched";
}

std::string ParameterFragility::edgeName() const {
    const bool low = below == EdgeSide::Edge, high = above == EdgeSide::Edge;
    return low && high ? "both edges" : low ? "lower edge" : high ? "upper edge" : "";
}

bool SelectionFragility::onEdge() const {
    return std::any_of(parameters.begin(), parameters.end(), [](const ParameterFragility& p) { return p.onEdge(); });
}

SelectionFragility assessSelection(const std::vector<SearchedKey>& keys, const std::vector<TuningScore>& trials,
                                   const stats::TrialPoint& chosen, const FragilityOptions& options) {
    SelectionFragility result;
    std::vector<PointScores> points;
    for (const TuningScore& t : trials) {
        auto it = std::find_if(points.begin(), points.end(), [&](const PointScores& p) { return p.point == t.point; });
        if (it == points.end()) it = points.insert(points.end(), PointScores{t.point, {}, 0});
        // The same point on the same seed twice (the defaults among the grid's values) is one run.
        if (std::any_of(it->bySeed.begin(), it->bySeed.end(), [&](const auto& s) { return s.first == t.seed; }))
            continue;
        it->bySeed.emplace_back(t.seed, t.score);
        it->diverged += t.diverged ? 1 : 0;
    }
    const auto chosenAt =
        std::find_if(points.begin(), points.end(), [&](const PointScores& p) { return p.point == chosen; });
    if (chosenAt == points.end()) return result;
    const std::size_t chosenIndex = static_cast<std::size_t>(chosenAt - points.begin());
    std::size_t seeds = 0;
    for (PointScores& p : points) {
        std::sort(p.bySeed.begin(), p.bySeed.end());
        seeds = std::max(seeds, p.bySeed.size());
    }
    std::vector<double> scores;
    for (const PointScores& p : points) scores.push_back(scoreOf(p, options.statistic));
    result.chosenScore = scores[chosenIndex];
    result.tuningSeeds = static_cast<int>(seeds);

    for (std::size_t d = 0; d < keys.size() && d < chosen.size(); ++d) {
        std::set<double> values;
        for (const PointScores& p : points) values.insert(p.point[d]);
        if (values.size() >= 2) result.parameters.push_back(assessParameter(keys[d], d, points, scores, chosenIndex));
    }

    // Resample the tuning seeds, the same draw for every point (they ran on the same seeds); a
    // point with fewer seeds than the others takes its scores in turn.
    if (seeds >= 2 && options.resamples > 0) {
        Random random(options.seed);
        int wins = 0;
        std::vector<std::size_t> draw(seeds);
        std::vector<double> resampled(points.size()), values;
        for (int r = 0; r < options.resamples; ++r) {
            for (std::size_t& i : draw) i = random.below(seeds);
            for (std::size_t p = 0; p < points.size(); ++p) {
                values.clear();
                for (const std::size_t i : draw) values.push_back(points[p].bySeed[i % points[p].bySeed.size()].second);
                resampled[p] = statisticOf(values, options.statistic);
            }
            wins += winnerOf(resampled) == chosenIndex ? 1 : 0;
        }
        result.resamples = options.resamples;
        result.stability = static_cast<double>(wins) / options.resamples;
    }
    return result;
}

}  // namespace ml
