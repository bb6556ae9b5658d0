#pragma once
// The loss on a G x G grid over a landscape plane (LandscapePlane.h), and the range such a grid
// covers by default: the runs' projected trajectories plus a 20 % margin.
#include "landscape/LandscapePlane.h"
#include "landscape/LossProbe.h"
#include "landscape/Trajectory.h"

#include <vector>

namespace ml {

struct PlaneRange {
    double xMin = -1, xMax = 1, yMin = -1, yMax = 1;
};

// The projected extent of every point of `trajectories` (and the centre, (0, 0)), widened by
// `margin` of its width on each side; a flat extent (one point) becomes +-1 around it.
inline constexpr double kDefaultRangeMargin = 0.2;
PlaneRange trajectoryRange(const std::vector<std::vector<Eigen::Vector2d>>& projected,
                           double margin = kDefaultRangeMargin);

// Every point of each trajectory projected on the plane, in order.
std::vector<std::vector<Eigen::Vector2d>> projectTrajectories(const LandscapePlane& plane,
                                                              const std::vector<Trajectory>& trajectories);

struct LossGrid {
    static constexpr int kMinSize = 2;
    static constexpr int kMaxSize = 1000;

    PlaneRange range;
    int size = 0;           // G: grid points per side, the corners included
    Eigen::MatrixXf loss;   // [G x G]: loss(j, i) at (x(i), y(j)); NaN where not computed
    bool complete = false;  // false when cancelled

    double x(int i) const { return range.xMin + (range.xMax - range.xMin) * i / (size - 1); }
    double y(int j) const { return range.yMin + (range.yMax - range.yMin) * j / (size - 1); }

    // Row by row (y outer); stops at the first point after a cancel. Throws InputError for a size
    // outside [kMinSize, kMaxSize] or a plane of another network.
    static LossGrid compute(LossProbe& probe, const LandscapePlane& plane, const PlaneRange& range, int size,
                            const LandscapeControl& control = {});
};

}  // namespace ml
