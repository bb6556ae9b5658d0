#pragma once
// The final weights of each run of a CLI run folder as snapshots, so that the network diagram and
// the heat-map can show a finished run. A folder keeps no gradients or optimizer state: only
// LayerSnapshot::parameters is filled (views show "weight"). Runs without weights_final.json
// (e.g. an interrupted training) or with unreadable ones (RunRecord::problem says why) are skipped.
#include "train/RunFolderReader.h"
#include "train/Snapshot.h"

#include <vector>

namespace ml {

std::vector<SharedSnapshot> finalSnapshots(const RunFolder& folder);

}  // namespace ml
