#include "landscape/TrajectoryReader.h"

#include "InputError.h"
#include "io/MemoryBudget.h"
#include "runfolder/RunFolderLayout.h"
#include "runfolder/SnapshotFile.h"
#include "runfolder/WeightsFile.h"

#include <QDir>
#include <QFileInfo>

namespace ml {

namespace {

Trajectory readTrajectory(const RunRecord& run, const NetworkSpec& network, int index) {
    Trajectory trajectory;
    trajectory.label = run.spec.label;
    const QString initial = QDir(run.directory).filePath(runfolder::kInitialWeights);
    if (QFileInfo(initial).isFile()) trajectory.append(0, loadWeightsFile(initial, network));
    SnapshotFileReader reader(run.snapshotsFile, index);
    while (std::optional<Snapshot> snapshot = reader.next()) {
        const Parameters weights = snapshotWeights(*snapshot);
        if (!weights.empty()) trajectory.append(snapshot->step, weights);
    }
    return trajectory;
}

}  // namespace

RecordedTrajectories readTrajectories(const RunFolder& folder) {
    RecordedTrajectories result;
    // The weights are part of each snapshots.bin, so the files' sizes bound what is kept.
    std::uint64_t bytes = 0;
    for (const RunRecord& run : folder.runs)
        if (!run.snapshotsFile.isEmpty()) bytes += std::uint64_t(QFileInfo(run.snapshotsFile).size());
    requireWithinMemoryBudget(bytes, "the recorded trajectories of " + folder.directory.toStdString());
    for (std::size_t i = 0; i < folder.runs.size(); ++i) {
        const RunRecord& run = folder.runs[i];
        if (run.snapshotsFile.isEmpty()) {
            result.skipped.push_back(run.spec.label + ": " +
                                     (run.problem.empty() ? std::string("no ") + runfolder::kSnapshots : run.problem));
            continue;
        }
        Trajectory trajectory = readTrajectory(run, folder.experiment.network, int(i));
        if (trajectory.points.empty()) result.skipped.push_back(run.spec.label + ": no recorded weights");
        else result.trajectories.push_back(std::move(trajectory));
    }
    if (result.trajectories.empty())
        throw InputError(folder.directory.toStdString() + ": no run there has recorded weights (" +
                         runfolder::kSnapshots + "); run train with --snapshots-every N");
    return result;
}

}  // namespace ml
