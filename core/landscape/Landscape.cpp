#include "landscape/Landscape.h"

namespace ml {

Landscape computeLandscape(const NetworkSpec& network, const Dataset& trainingData,
                           const std::vector<Trajectory>& trajectories, const LandscapeRequest& request,
                           const LandscapeControl& control) {
    LossProbe probe(network, *firstExamples(trainingData, request.examples));
    const LandscapePlane plane =
        LandscapePlane::forTrajectories(trajectories, Network(network).parameters(), request.directions, request.seed);
    Landscape landscape;
    landscape.examples = long(probe.exampleCount());
    landscape.weights = plane.parameterCount();
    landscape.projected = projectTrajectories(plane, trajectories);
    const bool withSlice = trajectories.size() >= 2;
    const long gridPoints = long(request.gridSize) * request.gridSize;
    const long total = gridPoints + (withSlice ? LossSlice::kDefaultPoints : 0);
    // One count over both parts, so a progress bar runs once from 0 to total.
    auto partControl = [&](long offset) {
        LandscapeControl part{control.cancel, {}};
        if (control.progress)
            part.progress = [&control, offset, total](long done, long) { control.progress(offset + done, total); };
        return part;
    };
    landscape.grid =
        LossGrid::compute(probe, plane, trajectoryRange(landscape.projected), request.gridSize, partControl(0));
    if (!landscape.grid.complete) return landscape;
    if (withSlice) {
        landscape.slice = LossSlice::compute(probe, trajectories[0].finalWeights(), trajectories[1].finalWeights(),
                                             LossSlice::kDefaultPoints, partControl(gridPoints));
        if (!landscape.slice->complete) return landscape;
    }
    landscape.complete = true;
    return landscape;
}

}  // namespace ml
