#pragma once
// Diagnostics (diagnostics/StepDiagnostics.h) of the runs of a run folder that wrote no
// diagnostics.csv but saved snapshots (a recorded PyTorch run, a CLI run without
// --diagnostics-every), derived from each saved snapshot as it is read: its weights, gradient,
// update and first moment, and the run's initial weights. The gradient SNR needs per-sample
// gradients, which no snapshot holds: NaN.
#include "diagnostics/DiagnosticsRecords.h"
#include "runfolder/RunFolderReader.h"
#include "train/Snapshot.h"

#include <memory>
#include <optional>
#include <vector>

namespace ml {

class SnapshotDiagnostics {
public:
    explicit SnapshotDiagnostics(const RunFolder& folder);

    // The snapshot's record, or nothing: a run with its own diagnostics.csv, a snapshot of the
    // final weights only, or one whose shapes are not the run's.
    std::optional<DiagnosticsRecord> recordOf(const Snapshot& snapshot);

private:
    std::vector<bool> derived_;                            // per run
    std::vector<std::unique_ptr<StepDiagnostics>> steps_;  // per run, made at its first snapshot
};

}  // namespace ml
