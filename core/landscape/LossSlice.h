#pragma once
// The loss along the straight line through two weight vectors a and b (two runs' final weights):
// w(t) = a + t (b - a) for t from -0.25 to 1.25, so that both ends and a stretch beyond each are
// seen (a barrier between the runs shows as a bump between t = 0 and t = 1).
#include "landscape/LossProbe.h"

#include <vector>

namespace ml {

struct LossSlice {
    static constexpr double kFrom = -0.25;
    static constexpr double kTo = 1.25;
    static constexpr int kDefaultPoints = 61;  // t every 0.025

    std::vector<double> t;
    std::vector<float> loss;  // loss[i] at t[i]; shorter than t when cancelled
    bool complete = false;

    // Throws InputError for fewer than 2 points or vectors of another size than the network's.
    static LossSlice compute(LossProbe& probe, const Eigen::VectorXf& from, const Eigen::VectorXf& to,
                             int points = kDefaultPoints, const LandscapeControl& control = {});
};

}  // namespace ml
