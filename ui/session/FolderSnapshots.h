#pragma once
// A CLI run folder's snapshots for the snapshot views, into the same RunSelection as a live
// training:
//  - snapshots.bin (train --snapshots-every N): every saved step, all quantities;
//  - weights_final.json: the final weights only (Snapshot::weightsOnly, so views say "not saved
//    in this folder"), used where a run saved no snapshot at or after its last step;
//  each carrying the run's weights_initial.json as Snapshot::initialParameters (as a live
//  training's do), so "weight − initial weight" is there wherever the weights are.
// Runs without weights_final.json (e.g. an interrupted training) or with unreadable ones
// (RunRecord::problem says why) have no final snapshot.
#include "runfolder/RunFolderReader.h"
#include "train/Snapshot.h"

#include <functional>
#include <string>
#include <vector>

namespace ml {

// The weights before step 1 of `run` (weights_initial.json, as Snapshot::initialParameters: what
// "weight − initial weight" subtracts), or null when the run has none. Throws InputError naming the
// file when it cannot be read.
std::shared_ptr<const Parameters> initialWeights(const RunFolder& folder, const RunRecord& run);

// Every run's final weights (Snapshot::weightsOnly), with its initial weights where readable.
std::vector<SharedSnapshot> finalSnapshots(const RunFolder& folder);

// Streams every run's snapshots.bin, then the final weights where they are later than the last
// saved snapshot, to `deliver` (the views' RunSelection::deliver) in batches (never a whole file in
// memory). Returns "LABEL: reason" for each snapshot file that could not be read to its end (what
// was read is shown).
using SnapshotDelivery = std::function<void(const std::vector<SharedSnapshot>& batch)>;
std::vector<std::string> deliverFolderSnapshots(const RunFolder& folder, const SnapshotDelivery& deliver);

}  // namespace ml
