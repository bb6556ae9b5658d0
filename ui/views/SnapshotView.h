#pragma once
// What every view of network snapshots offers the SnapshotRouter (session/SnapshotRouter.h): the
// runs to choose from, the snapshots, a reset. A view that lets the user pick a run reports the
// choice through reportRunChanged(run), and the router answers with that run's latest snapshot at once.
// A new view implements this, and MainWindow registers it with one router_.add(view).
#include "train/Snapshot.h"

#include <QStringList>

#include <functional>

namespace ml {

class SnapshotView {
public:
    virtual ~SnapshotView() = default;

    virtual void setRuns(const QStringList& labels) = 0;
    virtual void showSnapshot(const SharedSnapshot& snapshot) = 0;  // snapshots of other runs are ignored
    virtual void clear() = 0;                                // forgets every snapshot shown
    // false: only the latest snapshot per run of each delivery (views that draw one moment);
    // true: every snapshot in order (views that draw a history).
    virtual bool wantsEverySnapshot() const { return false; }

    void setRunChangedListener(std::function<void(int run)> listener) { runChangedListener_ = std::move(listener); }

protected:
    void reportRunChanged(int run) const {
        if (runChangedListener_) runChangedListener_(run);
    }

private:
    std::function<void(int run)> runChangedListener_;
};

}  // namespace ml
