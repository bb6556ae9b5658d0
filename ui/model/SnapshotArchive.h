#pragma once
// Copies of one run's snapshots (every matrix: the step scrubber replays any quantity), oldest
// first, within a memory budget, plus the newest snapshot offered (kept or not: views that show
// "now" use it). Its capacity is fixed by the first
// snapshot: min(maxSnapshots, max(16, budget / bytes of one archived snapshot)). When full, the
// DecimationStride policy (as DecimatingHistory) doubles the stride: only every second new
// snapshot is kept, and each one kept replaces one older snapshot that the doubled stride drops
// (every second one, oldest first). So once full the archive stays full - its memory is flat,
// not halved and refilled - and at the end of each round it holds every (2 x stride)-th snapshot
// again: the whole run at an even, coarser density (during a round, the older part is thinned
// first).
// Snapshots whose step is not past the last one offered are repeats (re-delivered) and ignored.
#include "model/DecimatingHistory.h"
#include "train/Snapshot.h"

#include <cstddef>
#include <optional>
#include <vector>

namespace ml {

class SnapshotArchive {
public:
    static constexpr std::size_t kDefaultBudget = std::size_t(64) << 20;  // bytes

    explicit SnapshotArchive(int maxSnapshots = 20000, std::size_t budgetBytes = kDefaultBudget);

    enum class Offer {
        Repeat,    // step not past the last offered one: ignored
        Skipped,   // not kept at the current stride
        Appended,  // now snapshots().back()
        Thinned,   // appended in place of an older snapshot (a round of thinning)
    };
    Offer offer(const SharedSnapshot& snapshot);  // kept by pointer: the archive never copies matrices
    Offer offer(const Snapshot& snapshot) { return offer(std::make_shared<const Snapshot>(snapshot)); }
    void clear();  // forgets the snapshots and the capacity (the next snapshot fixes it again)

    const std::vector<SharedSnapshot>& snapshots() const { return snapshots_; }
    int size() const { return static_cast<int>(snapshots_.size()); }
    int capacity() const { return policy_ ? policy_->capacity() : 0; }  // 0 before the first snapshot
    std::vector<long> steps() const;
    const Snapshot* latest() const { return latest_.get(); }
    // The newest snapshot at or before `step` (the latest one when step < 0); null when none.
    SharedSnapshot at(long step) const;

private:
    int maxSnapshots_;
    std::size_t budgetBytes_;
    std::optional<DecimationStride> policy_;  // set by the first snapshot
    long lastStep_ = -1;
    int dropsLeft_ = 0;  // older snapshots the current round of thinning still drops
    int nextDrop_ = 1;   // index of the next one
    std::vector<SharedSnapshot> snapshots_;
    SharedSnapshot latest_;
};

}  // namespace ml
