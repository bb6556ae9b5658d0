#pragma once
// Observers sit outside the training loop (like ensmallen's callbacks): the trainer knows
// nothing about files or Qt widgets. All calls come from the training thread.
#include "train/Snapshot.h"

namespace ml {

class TrainingObserver {
public:
    virtual ~TrainingObserver() = default;
    // Every step of every run (cheap scalars).
    virtual void stepFinished(const StepMetrics&) {}
    // Asked after every step of every run; a snapshot (copies of all matrices) is built only
    // when some observer answers true, so observers that never ask cost nothing.
    virtual bool wantsSnapshot(int /*run*/, long /*step*/) { return false; }
    virtual void snapshotTaken(const SharedSnapshot&) {}
    virtual void runFinished(int /*run*/, const RunResult&) {}
};

}  // namespace ml
