#pragma once
// The recorded snapshots of every run on screen: one SnapshotArchive per run (the current
// comparison's runs first, then those of past comparisons overlaid on it). Archives are shared
// (std::shared_ptr) with the run history, so keeping or overlaying a comparison copies nothing.
// The memory budget of a new archive is kTotalBudget split over the comparison's runs (at least
// kMinimumRunBudget each), so nine runs cost no more than two.
#include "model/SnapshotArchive.h"

#include <memory>
#include <vector>

namespace ml {

class RunSnapshots {
public:
    using ArchivePtr = std::shared_ptr<SnapshotArchive>;
    static constexpr std::size_t kTotalBudget = std::size_t(256) << 20;
    static constexpr std::size_t kMinimumRunBudget = std::size_t(16) << 20;

    // Forgets every run and prepares `runCount` empty archives.
    void reset(int runCount);
    // Appends runs recorded elsewhere (shared, not copied); returns the index of the first.
    int append(const std::vector<ArchivePtr>& archives);
    // Archives `snapshot` as run `run` (an index of this store; archives grow as needed).
    SnapshotArchive::Offer offer(int run, const SharedSnapshot& snapshot);

    int runCount() const { return static_cast<int>(archives_.size()); }
    const SnapshotArchive* archive(int run) const;
    const Snapshot* latest(int run) const;
    SharedSnapshot at(int run, long step) const;  // step < 0: the latest
    // Every archived step of the given runs, ascending, without repeats.
    std::vector<long> steps(const std::vector<int>& runs) const;
    // The first `count` archives (the current comparison's, for the run history).
    std::vector<ArchivePtr> archives(int count) const;

private:
    ArchivePtr makeArchive(int runCount) const;
    std::vector<ArchivePtr> archives_;
};

}  // namespace ml
