#pragma once
// The mailbox between the training thread and the GUI thread: a TrainingObserver that the
// trainer calls on its own thread, and that the GUI empties with take() on a timer.
//
//   metrics    every StepMetrics of every run, in order (full resolution, delivered in batches)
//   snapshots  only the LATEST snapshot per run is kept (latest wins); a snapshot is requested at
//              most every snapshotInterval per run (screen pace), plus at a run's last step
//   finished   each run's RunResult once it ends
//   ended      set once by the worker when training is over (done, stopped or failed)
// The training thread never waits for the GUI: it only takes a short lock to append.
#include "train/TrainingObserver.h"

#include <QString>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

namespace ml {

// What the GUI needs to know before the first metrics arrive.
struct TrainingPlan {
    std::vector<std::string> labels;
    long totalSteps = 0;
    long stepsPerEpoch = 0;
    ImageShape imageShape;
};

struct FinishedRun {
    int run = 0;
    RunResult result;
};

struct TrainingEnd {
    bool failed = false;
    QString message;  // the InputError text when failed
};

class TrainingFeed : public TrainingObserver {
public:
    using Clock = std::chrono::steady_clock;
    explicit TrainingFeed(std::chrono::milliseconds snapshotInterval = std::chrono::milliseconds(25));

    // Everything that arrived since the previous take().
    struct Delivery {
        std::optional<TrainingPlan> plan;
        std::vector<StepMetrics> metrics;
        std::vector<Snapshot> snapshots;  // at most one per run, the latest
        std::vector<FinishedRun> finished;
        std::optional<TrainingEnd> end;
        bool empty() const {
            return !plan && metrics.empty() && snapshots.empty() && finished.empty() && !end;
        }
    };
    Delivery take();                 // GUI thread
    long stepsDone() const { return stepsDone_.load(std::memory_order_relaxed); }

    // Worker thread.
    void announce(const TrainingPlan& plan);
    void end(TrainingEnd end);

    // TrainingObserver (training thread).
    void stepFinished(const StepMetrics& metrics) override;
    bool wantsSnapshot(int run, long step) override;
    void snapshotTaken(const Snapshot& snapshot) override;
    void runFinished(int run, const RunResult& result) override;

private:
    const std::chrono::milliseconds snapshotInterval_;
    long totalSteps_ = 0;                         // training thread only
    std::map<int, Clock::time_point> lastSnapshot_;  // training thread only
    std::atomic<long> stepsDone_{0};

    std::mutex mutex_;  // guards pending_
    Delivery pending_;
    std::map<int, std::size_t> snapshotSlot_;  // run -> index into pending_.snapshots
};

}  // namespace ml
