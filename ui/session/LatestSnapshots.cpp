#include "session/LatestSnapshots.h"

namespace ml {

void LatestSnapshots::store(const std::vector<Snapshot>& snapshots) {
    for (const Snapshot& snapshot : snapshots) latest_[snapshot.run] = snapshot;
}

const Snapshot* LatestSnapshots::latest(int run) const {
    const auto found = latest_.find(run);
    return found == latest_.end() ? nullptr : &found->second;
}

}  // namespace ml
