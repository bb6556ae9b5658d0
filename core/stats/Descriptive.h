#pragma once
// Order statistics of a sample, the way the study reports summarise seeds.
#include <span>

namespace ml::stats {

// The q-quantile (q in [0, 1]) by linear interpolation between order statistics: Hyndman & Fan's
// type 7, numpy's and R's default, so figures can be checked with either. NaN for an empty sample.
double quantile(std::span<const double> values, double q);
double median(std::span<const double> values);
double mean(std::span<const double> values);

// Median with the interquartile range, the robust band drawn across seeds.
struct Spread {
    double median = 0.0;
    double lowerQuartile = 0.0;
    double upperQuartile = 0.0;
};
Spread spreadOf(std::span<const double> values);

// Tukey's upper fence, Q3 + 1.5 (Q3 - Q1): above it a value is an outlier. NaN for an empty sample.
double upperFence(std::span<const double> values);

}  // namespace ml::stats
