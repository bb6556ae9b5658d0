#pragma once
// The recorded trajectories of a run folder (train --snapshots-every N): each run's weights at
// step 0 (weights_initial.json, when present) and at every step of its snapshots.bin, streamed
// record by record. Runs without snapshots are skipped and named; a folder where no run has any
// is refused ("run train with --snapshots-every N").
#include "landscape/Trajectory.h"
#include "runfolder/RunFolderReader.h"

#include <string>
#include <vector>

namespace ml {

struct RecordedTrajectories {
    std::vector<Trajectory> trajectories;  // in the folder's run order
    std::vector<std::string> skipped;      // "LABEL: why" for each run left out
};

// Throws InputError naming the folder when no run has snapshots, or a file cannot be read.
RecordedTrajectories readTrajectories(const RunFolder& folder);

}  // namespace ml
