#include "session/FolderSnapshots.h"


namespace ml {

std::vector<SharedSnapshot> finalSnapshots(const RunFolder& folder) {
    std::vector<SharedSnapshot> snapshots;
    for (std::size_t i = 0; i < folder.runs.size(); ++i) {
        const RunRecord& run = folder.runs[i];
        if (run.finalWeights.empty()) continue;
        Snapshot snapshot;
        snapshot.run = static_cast<int>(i);
        snapshot.label = run.spec.label;
        const std::optional<StepMetrics>& last = run.metrics.last();
        snapshot.step = last ? last->step : run.result.steps;
        snapshot.epoch = last ? last->epoch : 0;
        snapshot.batchLoss = last ? last->trainLoss : NAN;
        snapshot.scope = run.spec.hp.momentumMean;
        snapshot.bias = run.spec.hp.bias;
        snapshot.statistic = run.spec.hp.momentumMeanStat;
        snapshot.secondMomentScope = run.spec.hp.secondMomentMean;
        // Weight columns per input, as the trainer's snapshots carry them (k*k for a conv kernel):
        // the per-channel shared momentum and the conv views group by it.
        std::vector<Eigen::Index> columnsPerInput;
        for (const LayerToken& token : folder.experiment.network.layers)
            if (token.hasParameters()) columnsPerInput.push_back(token.kind == LayerToken::Kind::Conv ? Eigen::Index{token.kernel} * token.kernel : 1);
        for (const Matrix& layer : run.finalWeights) {
            LayerSnapshot layerSnapshot;
            layerSnapshot.parameters = layer;
            if (snapshot.layers.size() < columnsPerInput.size()) layerSnapshot.columnsPerInput = columnsPerInput[snapshot.layers.size()];
            snapshot.layers.push_back(std::move(layerSnapshot));
        }
        snapshots.push_back(std::make_shared<const Snapshot>(std::move(snapshot)));
    }
    return snapshots;
}

}  // namespace ml
