#pragma once
// The update explainer on a run's snapshots: explainConnection (optim/UpdateExplanation.h, where
// the recipe is described) on the snapshot's layer and on the step before's, where recorded.
#include "experiment/Experiment.h"
#include "optim/UpdateExplanation.h"
#include "train/Snapshot.h"

namespace ml {

// Explains the update of connection (row, column) of `layer` at `now`'s step for the run `spec`
// (its optimizer and hyper-parameters); `before` is the run's snapshot of the step before, or null.
UpdateExplanation explainUpdate(const RunSpec& spec, const Snapshot& now, const Snapshot* before, int layer, int row,
                                int column);

}  // namespace ml
