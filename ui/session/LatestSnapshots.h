#pragma once
// The latest snapshot of each run, so a view that switches to another run (or is opened after
// training ended) can show it at once instead of waiting for the next snapshot.
#include "train/Snapshot.h"

#include <map>
#include <vector>

namespace ml {

class LatestSnapshots {
public:
    void store(const std::vector<SharedSnapshot>& snapshots);
    SharedSnapshot latest(int run) const;  // null when the run has none
    void clear() { latest_.clear(); }

private:
    std::map<int, SharedSnapshot> latest_;
};

}  // namespace ml
