#include "session/LatestSnapshots.h"

namespace ml {

void LatestSnapshots::store(const std::vector<SharedSnapshot>& snapshots) {
    for (const SharedSnapshot& snapshot : snapshots) latest_[snapshot->run] = snapshot;
}

SharedSnapshot LatestSnapshots::latest(int run) const {
    const auto found = latest_.find(run);
    return found == latest_.end() ? nullptr : found->second;
}

}  // namespace ml
