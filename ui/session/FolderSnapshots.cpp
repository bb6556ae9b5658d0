#include "session/FolderSnapshots.h"

#include "InputError.h"
#include "nn/Network.h"
#include "runfolder/RunFolderLayout.h"
#include "runfolder/SnapshotFile.h"
#include "runfolder/WeightsFile.h"

#include <QDir>
#include <QFileInfo>

#include <cstddef>

namespace ml {

namespace {

// One delivery's memory: views that draw one moment redraw once per batch, not per snapshot.
constexpr std::size_t kBatchBytes = std::size_t(32) << 20;

std::size_t bytesOf(const Snapshot& snapshot) {
    std::size_t floats = 0;
    for (const LayerSnapshot& layer : snapshot.layers) floats += layer.floatCount();
    return floats * sizeof(float);
}

long finalStep(const RunRecord& run) {
    const std::optional<StepMetrics>& last = run.metrics.last();
    return last ? last->step : run.result.steps;
}

SharedSnapshot finalSnapshot(const RunRecord& run, int index, const std::vector<Eigen::Index>& columnsPerInput,
                             std::shared_ptr<const Parameters> initial) {
    Snapshot snapshot;
    snapshot.run = index;
    snapshot.label = run.spec.label;
    const std::optional<StepMetrics>& last = run.metrics.last();
    snapshot.step = finalStep(run);
    snapshot.epoch = last ? last->epoch : 0;
    snapshot.batchLoss = last ? last->trainLoss : NAN;
    snapshot.scope = run.spec.hp.momentumMean;
    snapshot.bias = run.spec.hp.bias;
    snapshot.statistic = run.spec.hp.momentumMeanStat;
    snapshot.secondMomentScope = run.spec.hp.secondMomentMean;
    snapshot.weightsOnly = true;
    snapshot.initialParameters = std::move(initial);  // "weight − initial weight" needs no snapshots.bin
    for (const Matrix& layer : run.finalWeights) {
        LayerSnapshot layerSnapshot;
        layerSnapshot.parameters = layer;
        if (snapshot.layers.size() < columnsPerInput.size())
            layerSnapshot.columnsPerInput = columnsPerInput[snapshot.layers.size()];
        snapshot.layers.push_back(std::move(layerSnapshot));
    }
    return std::make_shared<const Snapshot>(std::move(snapshot));
}

// Weight columns per input, as the trainer's snapshots carry them (k*k for a conv kernel):
// the per-channel shared momentum and the conv views group by it.
std::vector<Eigen::Index> weightColumnsPerInput(const RunFolder& folder) {
    return layerColumnsPerInput(folder.experiment);
}

}  // namespace

std::shared_ptr<const Parameters> initialWeights(const RunFolder& folder, const RunRecord& run) {
    const QString file = QDir(run.directory).filePath(runfolder::kInitialWeights);
    if (!QFileInfo(file).isFile()) return nullptr;
    return std::make_shared<const Parameters>(loadWeightsFile(file, folder.experiment));
}

namespace {

// Unreadable initial weights leave the final weights shown, without their change.
std::shared_ptr<const Parameters> readableInitialWeights(const RunFolder& folder, const RunRecord& run) {
    try {
        return initialWeights(folder, run);
    } catch (const InputError&) {
        return nullptr;
    }
}

}  // namespace

std::vector<SharedSnapshot> finalSnapshots(const RunFolder& folder) {
    std::vector<SharedSnapshot> snapshots;
    const std::vector<Eigen::Index> columnsPerInput = weightColumnsPerInput(folder);
    for (std::size_t i = 0; i < folder.runs.size(); ++i) {
        const RunRecord& run = folder.runs[i];
        if (!run.finalWeights.empty())
            snapshots.push_back(finalSnapshot(run, int(i), columnsPerInput, readableInitialWeights(folder, run)));
    }
    return snapshots;
}

std::vector<std::string> deliverFolderSnapshots(const RunFolder& folder, const SnapshotDelivery& deliver) {
    std::vector<std::string> problems;
    const std::vector<Eigen::Index> columnsPerInput = weightColumnsPerInput(folder);
    std::vector<SharedSnapshot> batch;
    std::size_t batchBytes = 0;
    auto flush = [&] {
        if (!batch.empty()) deliver(batch);
        batch.clear();
        batchBytes = 0;
    };
    for (std::size_t i = 0; i < folder.runs.size(); ++i) {
        const RunRecord& run = folder.runs[i];
        long lastSaved = 0;
        std::shared_ptr<const Parameters> initial;
        if (!run.snapshotsFile.isEmpty()) {
            try {
                // The weights before step 1 ride along, as in a live training ("weight minus initial
                // weight", the landscape's step 0).
                initial = initialWeights(folder, run);
                SnapshotFileReader reader(run.snapshotsFile, int(i));
                while (std::optional<Snapshot> snapshot = reader.next()) {
                    snapshot->initialParameters = initial;
                    lastSaved = snapshot->step;
                    batchBytes += bytesOf(*snapshot);
                    batch.push_back(std::make_shared<const Snapshot>(std::move(*snapshot)));
                    if (batchBytes >= kBatchBytes) flush();
                }
                if (reader.truncated()) problems.push_back(run.spec.label + ": " + reader.truncationText());
            } catch (const InputError& error) {
                problems.push_back(run.spec.label + ": " + error.what());
            }
        }
        if (!run.finalWeights.empty() && finalStep(run) > lastSaved)
            batch.push_back(finalSnapshot(run, int(i), columnsPerInput,
                                          run.snapshotsFile.isEmpty() ? readableInitialWeights(folder, run) : initial));
        flush();  // one run at a time
    }
    return problems;
}

}  // namespace ml
