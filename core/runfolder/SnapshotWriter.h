#pragma once
// Writes each run's snapshots.bin (format: runfolder/SnapshotFile.h) while a LockstepTrainer runs:
// every `every`-th step and the last step. An observer beside RunFolderWriter (same layout).
// Size is bounded before anything is written: checkSnapshotBudget() refuses an interval whose
// files could exceed the budget, and names the smallest interval that fits.
#include "train/LockstepTrainer.h"
#include "runfolder/RunFolderLayout.h"
#include "runfolder/SnapshotFile.h"
#include "train/TrainingObserver.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace ml {

inline constexpr std::uint64_t kDefaultSnapshotBudgetMb = 1000;

// The most snapshots one run writes: every `every`-th step and the last.
long snapshotCount(long totalSteps, long every);
// Throws InputError naming --snapshots-every (and --snapshots-max-mb) when all runs' files
// together could exceed `budgetMb` megabytes (10^6 bytes).
void checkSnapshotBudget(const LockstepTrainer& trainer, long every, std::uint64_t budgetMb);

class SnapshotWriter : public TrainingObserver {
public:
    // Creates every run's file (the folders must exist: construct after RunFolderWriter).
    // Throws FileError naming the path.
    SnapshotWriter(const RunFolderLayout& layout, const LockstepTrainer& trainer, long every);

    bool wantsSnapshot(int run, long step) override;
    void snapshotTaken(const SharedSnapshot& snapshot) override;
    void runFinished(int run, const RunResult& result) override;

private:
    long every_;
    long lastStep_;
    std::vector<std::unique_ptr<SnapshotFileWriter>> files_;
};

}  // namespace ml
