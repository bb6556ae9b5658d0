#pragma once
// Observers sit outside the training loop (like ensmallen's callbacks): the trainer knows
// nothing about files or Qt widgets. All calls come from the training thread.
#include "nn/Network.h"
#include "optim/Optimizer.h"
#include "experiment/Experiment.h"
#include "train/Snapshot.h"

namespace ml {

// A run's state right after a successful step, by reference (valid only during the call): for
// observers that compute from the matrices themselves (core/diagnostics) without a snapshot's
// copies. Read-only: the trajectory is the same whether anyone looks or not.
struct StepState {
    int run = 0;
    long step = 0;
    const RunSpec& spec;
    const NetworkSpec& network;
    const Parameters& parameters;         // after the update
    const Parameters& gradients;          // this step's batch gradient (before the update)
    const Optimizer& optimizer;           // layerState(l): first moment, the update just applied
    const Parameters& initialParameters;  // before step 1
    const Network& model;                 // its training buffers still hold this step's batch pass
};

class TrainingObserver {
public:
    virtual ~TrainingObserver() = default;
    // Every step of every run (cheap scalars).
    virtual void stepFinished(const StepMetrics&) {}
    // Asked after every step of every run; a snapshot (copies of all matrices) is built only
    // when some observer answers true, so observers that never ask cost nothing.
    virtual bool wantsSnapshot(int /*run*/, long /*step*/) { return false; }
    virtual void snapshotTaken(const SharedSnapshot&) {}
    // The same for the live state: stepStateReady reaches every observer when any of them answered
    // true (each checks its own schedule); observers that never ask cost one virtual call a step.
    // Asked before the step is taken (the optimizer then collects the diagnostics' sums on its way,
    // Optimizer::collectStepSums): the answer may depend on the run and step number only.
    virtual bool wantsStepState(int /*run*/, long /*step*/) { return false; }
    virtual void stepStateReady(const StepState&) {}
    virtual void runFinished(int /*run*/, const RunResult&) {}
};

}  // namespace ml
