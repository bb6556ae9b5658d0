#pragma once
// What runs on the training thread (TrainingSession's std::thread, one per training). For each
// train() call it puts the training together as the CLI does (instruments/TrainingJob.h: the
// experiment's instruments, and a run folder when one is given) and blocks in its run() until the
// runs are done or the RunControl asks to stop. It talks to the GUI only through the TrainingFeed
// mailbox (metrics, snapshots, and the instruments' records), so it never waits for the GUI.
#include "session/TrainingFeed.h"
#include "experiment/Experiment.h"
#include "train/RunControl.h"

#include <QCoreApplication>
#include <QString>

#include <memory>

namespace ml {

// A training that continues a saved state (twin runs): LockstepTrainer::resumeFrom's arguments.
struct ForkStart {
    TrainingState state;
    std::vector<bool> continueOptimizer;  // per run
};

class TrainingWorker {
    Q_DECLARE_TR_FUNCTIONS(TrainingWorker)
public:
    // Runs on the training thread, one call at a time. Ends with feed->end(...) in every case.
    // With a `runFolder`, the training is written there too (as `train --out` writes it); a folder
    // that cannot be written fails the training. With `fork`, the runs continue its state instead of
    // starting at step 0. The end carries every run's final state (TrainingEnd::states), captured
    // here on the worker thread.
    void train(const Experiment& experiment, const QString& runFolder, std::shared_ptr<RunControl> control,
               std::shared_ptr<TrainingFeed> feed, std::shared_ptr<const ForkStart> fork = nullptr);
};

}  // namespace ml
