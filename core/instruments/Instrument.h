#pragma once
// An instrument measures or saves something beside training: snapshots, diagnostics, curvature,
// the Hessian spectrum, training states. Each one is made from a request (its `train` flags, or
// the experiment's keys: instruments/InstrumentCatalog.h), keeps its own schedule, and records
// through one interface into the outputs a TrainingJob gives it: a run folder's files (the CLI,
// studies and the app), the app's live mailbox, or both. Nothing of the trajectory depends on it.
#include "instruments/InstrumentRecords.h"
#include "runfolder/RunFolderLayout.h"
#include "train/LockstepTrainer.h"
#include "train/TrainingObserver.h"

#include <memory>
#include <string>

namespace ml {

// Where an instrument's records go; either may be absent.
struct InstrumentOutputs {
    const RunFolderLayout* folder = nullptr;  // its files beside each run's metrics.csv
    RecordMailbox* mailbox = nullptr;         // the app's live feed
};

class Instrument {
public:
    virtual ~Instrument() = default;
    // What it records and when, for messages ("diagnostics.csv every 10 steps").
    virtual std::string describe() const = 0;
    // Before anything is written: refuses what this trainer cannot do (InputError naming the flag).
    virtual void check(const LockstepTrainer& /*trainer*/) const {}
    // The observer that records while `trainer` runs (nullptr: nothing to record during training
    // into these outputs). Throws FileError naming a file it cannot create.
    virtual std::unique_ptr<TrainingObserver> start(const LockstepTrainer& trainer,
                                                    const InstrumentOutputs& outputs) = 0;
    // After training: what is recorded at the end (the spectra). Throws FileError naming the path.
    virtual void finish(const LockstepTrainer& /*trainer*/, const InstrumentOutputs& /*outputs*/) {}
};

}  // namespace ml
