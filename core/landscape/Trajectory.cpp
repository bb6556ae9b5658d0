#include "landscape/Trajectory.h"

#include "InputError.h"
#include "nn/FlatParameters.h"

namespace ml {

void Trajectory::append(long step, const Parameters& weights) {
    if (!steps.empty() && step <= steps.back()) return;
    Eigen::VectorXf flat(parameterCount(weights));
    flattenInto(weights, flat);
    steps.push_back(step);
    points.push_back(std::move(flat));
}

Parameters snapshotWeights(const Snapshot& snapshot) {
    Parameters weights;
    for (const LayerSnapshot& layer : snapshot.layers) {
        if (layer.parameters.size() == 0) return {};
        weights.push_back(layer.parameters);
    }
    return weights;
}

Eigen::VectorXd meanOfFinalWeights(const std::vector<Trajectory>& trajectories) {
    if (trajectories.empty()) throw InputError("the loss landscape needs at least one recorded run");
    Eigen::VectorXd sum;
    for (const Trajectory& trajectory : trajectories) {
        if (trajectory.points.empty()) throw InputError("run " + trajectory.label + ": no recorded weights");
        if (sum.size() == 0) sum = Eigen::VectorXd::Zero(trajectory.finalWeights().size());
        if (trajectory.finalWeights().size() != sum.size())
            throw InputError("run " + trajectory.label + ": " + std::to_string(trajectory.finalWeights().size()) +
                             " weights, expected " + std::to_string(sum.size()) +
                             " like the first run (the same network)");
        sum += trajectory.finalWeights().cast<double>();
    }
    return sum / double(trajectories.size());
}

}  // namespace ml
