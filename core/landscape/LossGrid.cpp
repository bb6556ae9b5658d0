#include "landscape/LossGrid.h"

#include "InputError.h"

#include <algorithm>
#include <limits>

namespace ml {

std::vector<std::vector<Eigen::Vector2d>> projectTrajectories(const LandscapePlane& plane,
                                                              const std::vector<Trajectory>& trajectories) {
    std::vector<std::vector<Eigen::Vector2d>> projected;
    for (const Trajectory& trajectory : trajectories) {
        std::vector<Eigen::Vector2d>& points = projected.emplace_back();
        for (const Eigen::VectorXf& point : trajectory.points) points.push_back(plane.project(point));
    }
    return projected;
}

PlaneRange trajectoryRange(const std::vector<std::vector<Eigen::Vector2d>>& projected, double margin) {
    Eigen::Vector2d low = Eigen::Vector2d::Zero(), high = Eigen::Vector2d::Zero();  // the centre is always in
    for (const auto& points : projected)
        for (const Eigen::Vector2d& point : points) {
            low = low.cwiseMin(point);
            high = high.cwiseMax(point);
        }
    Eigen::Vector2d pad = margin * (high - low);
    for (int k = 0; k < 2; ++k)
        if (!(pad[k] > 0)) pad[k] = 1.0;
    return {low.x() - pad.x(), high.x() + pad.x(), low.y() - pad.y(), high.y() + pad.y()};
}

LossGrid LossGrid::compute(LossProbe& probe, const LandscapePlane& plane, const PlaneRange& range, int size,
                           const LandscapeControl& control) {
    if (size < kMinSize || size > kMaxSize)
        throw InputError("grid size " + std::to_string(size) + ": expected " + std::to_string(kMinSize) + " to " +
                         std::to_string(kMaxSize) + " points per side");
    if (plane.parameterCount() != probe.parameterCount())
        throw InputError("loss landscape: the plane has " + std::to_string(plane.parameterCount()) +
                         " weights, the network " + std::to_string(probe.parameterCount()));
    LossGrid grid;
    grid.range = range;
    grid.size = size;
    grid.loss = Eigen::MatrixXf::Constant(size, size, std::numeric_limits<float>::quiet_NaN());
    Eigen::VectorXf weights(plane.parameterCount());
    const long total = long(size) * size;
    long done = 0;
    for (int j = 0; j < size; ++j)
        for (int i = 0; i < size; ++i) {
            if (control.cancelled()) return grid;
            plane.pointAt(grid.x(i), grid.y(j), weights);
            grid.loss(j, i) = probe.lossAt(weights);
            if (control.progress) control.progress(++done, total);
        }
    grid.complete = true;
    return grid;
}

}  // namespace ml
