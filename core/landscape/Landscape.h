#pragma once
// The whole landscape of a comparison in one call, as the CLI and the app compute it: the plane
// through the mean of the runs' final weights (LandscapePlane.h), every trajectory projected on it,
// the loss on a G x G grid over their extent plus 20 % (LossGrid.h) and, with two runs or more, the
// slice between the first two runs' final weights (LossSlice.h), on the first `examples` training
// examples. Progress counts the grid's points and then the slice's; a cancel ends it early
// (complete = false).
#include "landscape/LossGrid.h"
#include "landscape/LossSlice.h"

#include <optional>

namespace ml {

inline constexpr int kDefaultLandscapeGrid = 51;  // points per side: 2,601 losses

struct LandscapeRequest {
    PlaneDirections directions = PlaneDirections::Principal;
    int gridSize = kDefaultLandscapeGrid;
    std::uint64_t seed = 1;
    long examples = kDefaultLandscapeExamples;
};

struct Landscape {
    std::vector<std::vector<Eigen::Vector2d>> projected;  // per trajectory, per recorded point
    LossGrid grid;
    std::optional<LossSlice> slice;  // with two trajectories or more
    long examples = 0;               // the examples the loss was taken on
    Eigen::Index weights = 0;        // the plane's dimension
    bool complete = false;
};

// Throws InputError (no trajectory, trajectories of another network, a bad grid size).
Landscape computeLandscape(const NetworkSpec& network, const Dataset& trainingData,
                           const std::vector<Trajectory>& trajectories, const LandscapeRequest& request,
                           const LandscapeControl& control = {});

}  // namespace ml
