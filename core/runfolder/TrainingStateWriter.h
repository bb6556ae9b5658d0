#pragma once
// Saves each run's training state every N steps into its run folder (RUN/state/step-K.json.gz,
// runfolder/RunFolderLayout.h), for `train --fork-from`. A run that diverged at step K gets no state
// for K (its state is not meant to continue). Add it as an observer before run().
#include "train/LockstepTrainer.h"
#include "runfolder/RunFolderLayout.h"
#include "train/TrainingObserver.h"

namespace ml {

class TrainingStateWriter : public TrainingObserver {
public:
    // Creates the state folders. Throws FileError naming a folder that cannot be created.
    TrainingStateWriter(const RunFolderLayout& layout, const LockstepTrainer& trainer, long every);
    void stepFinished(const StepMetrics& metrics) override;

private:
    const RunFolderLayout& layout_;
    const LockstepTrainer& trainer_;
    long every_;
};

}  // namespace ml
