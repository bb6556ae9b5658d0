#include "session/SnapshotDiagnostics.h"

#include "runfolder/RunFolderLayout.h"

#include <QDir>
#include <QFileInfo>

namespace ml {

SnapshotDiagnostics::SnapshotDiagnostics(const RunFolder& folder) {
    // Snapshots may arrive later than the folder was opened (while following it).
    for (const RunRecord& run : folder.runs)
        derived_.push_back(!QFileInfo::exists(QDir(run.directory).filePath(runfolder::kDiagnostics)));
    steps_.resize(folder.runs.size());
}

std::optional<DiagnosticsRecord> SnapshotDiagnostics::recordOf(const Snapshot& snapshot) {
    const auto run = static_cast<std::size_t>(snapshot.run);
    if (snapshot.run < 0 || run >= derived_.size() || !derived_[run] || snapshot.weightsOnly) return std::nullopt;
    if (!steps_[run]) {
        Parameters shapes;
        for (const LayerSnapshot& layer : snapshot.layers)
            shapes.push_back(Matrix(layer.parameters.rows(), layer.parameters.cols()));
        steps_[run] = std::make_unique<StepDiagnostics>(shapes);
    }
    if (!steps_[run]->compute(snapshot, snapshot.initialParameters.get())) return std::nullopt;
    return ml::recordOf(snapshot.step, *steps_[run]);
}

}  // namespace ml
