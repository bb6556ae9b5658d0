#include "session/FolderSnapshots.h"


namespace ml {

std::vector<Snapshot> finalSnapshots(const RunFolder& folder) {
    std::vector<Snapshot> snapshots;
    for (std::size_t i = 0; i < folder.runs.size(); ++i) {
        const RunRecord& run = folder.runs[i];
        if (run.finalWeights.empty()) continue;
        Snapshot snapshot;
        snapshot.run = static_cast<int>(i);
        snapshot.label = run.spec.label;
        snapshot.step = run.metrics.empty() ? run.result.steps : run.metrics.back().step;
        snapshot.epoch = run.metrics.empty() ? 0 : run.metrics.back().epoch;
        snapshot.batchLoss = run.metrics.empty() ? NAN : run.metrics.back().trainLoss;
        snapshot.scope = run.spec.hp.momentumMean;
        snapshot.bias = run.spec.hp.bias;
        snapshot.statistic = run.spec.hp.momentumMeanStat;
        snapshot.secondMomentScope = run.spec.hp.secondMomentMean;
        for (const Matrix& layer : run.finalWeights) {
            LayerSnapshot layerSnapshot;
            layerSnapshot.parameters = layer;
            snapshot.layers.push_back(std::move(layerSnapshot));
        }
        snapshots.push_back(std::move(snapshot));
    }
    return snapshots;
}

}  // namespace ml
