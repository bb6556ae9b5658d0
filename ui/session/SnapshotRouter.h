#pragma once
// Fans the snapshots that arrive from a training (or a run folder) out to every registered
// SnapshotView and keeps the latest snapshot of each run, so a view that switches to another run
// shows it at once. Views that draw one moment get the latest snapshot per run of each delivery;
// views that draw a history get every snapshot (SnapshotView::wantsEverySnapshot).
#include "session/LatestSnapshots.h"
#include "views/SnapshotView.h"

#include <vector>

namespace ml {

class SnapshotRouter {
public:
    SnapshotRouter() = default;
    SnapshotRouter(const SnapshotRouter&) = delete;
    SnapshotRouter& operator=(const SnapshotRouter&) = delete;
    ~SnapshotRouter();

    // The view must outlive the router or be removed first (the router listens to its run choice).
    void add(SnapshotView& view);

    void setRuns(const QStringList& labels);
    void deliver(const std::vector<SharedSnapshot>& snapshots);
    void clear();  // forgets the latest snapshots and clears every view
    SharedSnapshot latest(int run) const { return latest_.latest(run); }
    // Shows `run`'s latest snapshot (if any) in `view` again, e.g. after the view was reset.
    void redeliver(SnapshotView& view, int run) const;

private:
    LatestSnapshots latest_;
    std::vector<SnapshotView*> views_;
};

}  // namespace ml
