#pragma once
// What runs on the training thread (TrainingSession's std::thread, one per training). For each
// train() call it loads the data, owns a LockstepTrainer for the length of the run and blocks in
// LockstepTrainer::run() until the runs are done or the RunControl asks to stop. It talks to the
// GUI only through the TrainingFeed mailbox, so it never waits for the GUI.
#include "session/TrainingFeed.h"
#include "experiment/Experiment.h"
#include "train/RunControl.h"

#include <QCoreApplication>

#include <memory>

namespace ml {

class LockstepTrainer;

// A training that continues a saved state (twin runs): LockstepTrainer::resumeFrom's arguments.
struct ForkStart {
    TrainingState state;
    std::vector<bool> continueOptimizer;  // per run
};

class TrainingWorker {
    Q_DECLARE_TR_FUNCTIONS(TrainingWorker)
public:
    TrainingWorker();
    ~TrainingWorker();

    // Runs on the training thread, one call at a time. Ends with feed->end(...) in every case.
    // With `fork`, the runs continue its state instead of starting at step 0. The end carries
    // every run's final state (TrainingEnd::states), captured here on the worker thread.
    void train(const Experiment& experiment, std::shared_ptr<RunControl> control, std::shared_ptr<TrainingFeed> feed,
               std::shared_ptr<const ForkStart> fork = nullptr);

private:
    void addSpectra(TrainingEnd& end) const;
    std::unique_ptr<LockstepTrainer> trainer_;
};

}  // namespace ml
