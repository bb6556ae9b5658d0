#pragma once
// How much a comparison depends on the tuning budget: the expected best result of k trials drawn
// at random (with replacement) from the n trials that were run (Dodge et al. 2019, "Show your
// work", expected validation performance). For a lower-is-better metric with sorted results
// v_(1) <= ... <= v_(n): E[min of k] = sum_i v_(i) * (((n-i+1)/n)^k - ((n-i)/n)^k).
// A failed trial (infinity) makes every E[min of k] infinite (all k draws can fail): give failures
// a finite worst value (e.g. the loss at initialisation) where a finite curve is wanted.
#include <span>
#include <vector>

namespace ml::stats {

double expectedBestOf(std::span<const double> trialResults, int k);
// expectedBestOf for k = 1 .. maxTrials.
std::vector<double> expectedBestCurve(std::span<const double> trialResults, int maxTrials);

}  // namespace ml::stats
