#include "Split.h"

#include "Random.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ml {

IndexSplit shuffledSplit(Eigen::Index n, Eigen::Index testCount, std::uint64_t seed) {
    std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), Eigen::Index{0});
    Random rng(seed);
    rng.shuffle(std::span<Eigen::Index>(order));
    const auto cut = order.begin() + (n - std::clamp<Eigen::Index>(testCount, 0, n));
    return {std::vector<Eigen::Index>(order.begin(), cut), std::vector<Eigen::Index>(cut, order.end())};
}

IndexSplit stratifiedSplit(std::span<const int> labels, int numClasses, double testFraction, std::uint64_t seed) {
    std::vector<std::vector<Eigen::Index>> byClass(static_cast<std::size_t>(numClasses));
    for (std::size_t i = 0; i < labels.size(); ++i)
        byClass.at(static_cast<std::size_t>(labels[i])).push_back(static_cast<Eigen::Index>(i));
    Random rng(seed);
    IndexSplit split;
    for (auto& members : byClass) {
        rng.shuffle(std::span<Eigen::Index>(members));
        const auto testCount = static_cast<std::ptrdiff_t>(std::lround(members.size() * testFraction));
        const auto cut = members.end() - testCount;
        split.train.insert(split.train.end(), members.begin(), cut);
        split.test.insert(split.test.end(), cut, members.end());
    }
    std::sort(split.train.begin(), split.train.end());
    std::sort(split.test.begin(), split.test.end());
    return split;
}

}  // namespace ml
