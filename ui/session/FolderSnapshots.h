#pragma once
// The final weights of each run of a CLI run folder as snapshots, so that the network diagram and
// the heat-map can show a finished run. A folder keeps no gradients or optimizer state: only
// LayerSnapshot::parameters is filled (views show "weight"). Runs without weights_final.json
// (e.g. an interrupted training) are skipped.
#include "train/RunFolder.h"
#include "train/Snapshot.h"

#include <vector>

namespace ml {

// Throws InputError naming the file when a weights file exists but cannot be read.
std::vector<Snapshot> finalSnapshots(const RunFolder& folder);

}  // namespace ml
