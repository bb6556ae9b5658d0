#include "session/SnapshotRouter.h"

#include <set>

namespace ml {

SnapshotRouter::~SnapshotRouter() {
    for (SnapshotView* view : views_) view->setRunChangedListener({});
}

void SnapshotRouter::add(SnapshotView& view) {
    views_.push_back(&view);
    view.setRunChangedListener([this, &view](int run) { redeliver(view, run); });
}

void SnapshotRouter::setRuns(const QStringList& labels) {
    for (SnapshotView* view : views_) view->setRuns(labels);
}

void SnapshotRouter::deliver(const std::vector<SharedSnapshot>& snapshots) {
    latest_.store(snapshots);
    std::set<int> runs;
    for (const SharedSnapshot& snapshot : snapshots) runs.insert(snapshot->run);
    for (SnapshotView* view : views_) {
        if (view->wantsEverySnapshot()) {
            for (const SharedSnapshot& snapshot : snapshots) view->showSnapshot(snapshot);
        } else {
            for (const int run : runs) view->showSnapshot(latest_.latest(run));
        }
    }
}

void SnapshotRouter::clear() {
    latest_.clear();
    for (SnapshotView* view : views_) view->clear();
}

void SnapshotRouter::redeliver(SnapshotView& view, int run) const {
    if (const SharedSnapshot snapshot = latest_.latest(run)) view.showSnapshot(snapshot);
}

}  // namespace ml
