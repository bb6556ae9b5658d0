#pragma once
// One run's recorded path through weight space: the weights at each recorded step, flattened
// (nn/FlatParameters.h). The loss landscape pools several of them (same network) on one plane.
#include "Tensor.h"
#include "train/Snapshot.h"

#include <string>
#include <vector>

namespace ml {

struct Trajectory {
    std::string label;
    std::vector<long> steps;              // ascending
    std::vector<Eigen::VectorXf> points;  // points[i]: the weights after steps[i]
    const Eigen::VectorXf& finalWeights() const { return points.back(); }
    // Appends the weights after `step`, flattened; a step not past the last one is ignored.
    void append(long step, const Parameters& weights);
};

// A snapshot's weights (empty when the snapshot did not keep them).
Parameters snapshotWeights(const Snapshot& snapshot);

// The default centre of a landscape: the mean of the runs' final weights (their last recorded
// points), so that no run is favoured and every run's end lies near the middle of the picture.
// Throws InputError when there is no trajectory, one is empty, or their sizes differ.
Eigen::VectorXd meanOfFinalWeights(const std::vector<Trajectory>& trajectories);

}  // namespace ml
