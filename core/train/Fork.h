#pragma once
// Twin runs: the experiment whose runs ("branches") continue one run's saved state in lockstep.
// The CLI builds it from --fork-from RUN --at-step K; the desktop app from a paused or finished
// run's state (ui/session/TrainingSession.h, "Fork here").
#include "experiment/Experiment.h"
#include "train/TrainingState.h"

#include <string>
#include <vector>

namespace ml {

// "momentum@500→neuron-mean": the source run, the step and the branch's own label.
std::string forkLabel(const std::string& source, long step, const std::string& branch);

// `source`'s network, data, seed, batch and evaluation schedule, trained up to step `untilStep`
// (steps, not epochs) by `branches` labelled with forkLabel, forkedFrom set from `state` (and
// `folder`, where it was read from). Throws InputError when untilStep is not past state.step.
Experiment forkExperiment(const Experiment& source, const TrainingState& state, std::vector<RunSpec> branches,
                          long untilStep, const std::string& folder = {});

// Which runs take over the saved optimizer state: those with the saved rule (a continuation that
// is bit-identical to never having stopped); the others start their optimizer fresh.
std::vector<bool> continuesSavedState(const Experiment& experiment, const TrainingState& state);

}  // namespace ml
