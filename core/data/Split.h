#pragma once
// Deterministic train/test splits of sample indices.
#include <Eigen/Core>

#include <cstdint>
#include <span>
#include <vector>

namespace ml {

// Seed of every split of real (file or bundled) data: fixed, so that all experiments, whatever
// their own seed, are evaluated on the same test samples.
inline constexpr std::uint64_t kFixedSplitSeed = 20240607;

struct IndexSplit {
    std::vector<Eigen::Index> train;
    std::vector<Eigen::Index> test;
};

// Shuffles 0..n-1 with Random(seed); the first n - testCount indices (in shuffled order) are
// the training split, the last testCount the test split.
IndexSplit shuffledSplit(Eigen::Index n, Eigen::Index testCount, std::uint64_t seed);

// Stratified: the samples of each class are shuffled with Random(seed) (one generator, classes
// in increasing order) and the last round(count * testFraction) of each class go to the test
// split. Both splits are returned in increasing index order.
IndexSplit stratifiedSplit(std::span<const int> labels, int numClasses, double testFraction, std::uint64_t seed);

}  // namespace ml
