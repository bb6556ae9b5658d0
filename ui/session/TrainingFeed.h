#pragma once
// The mailbox between the training thread and the GUI thread: a TrainingObserver that the
// trainer calls on its own thread, and that the GUI empties with take() on a timer.
//
//   metrics    every StepMetrics of every run, in order (full resolution, delivered in batches)
//   snapshots  requested at most every snapshotInterval per run (screen pace) plus at a run's last
//              step, and only the LATEST per run is kept (latest wins) — except for small
//              networks (<= kSmallNetworkParameters), whose snapshots are cheap: for them every
//              stride-th step is snapshotted too (about kSnapshotsPerSmallRun over a run) and all
//              are kept, so the neuron inspector can show a fast run's whole history
//   records    what the instruments post (core/instruments: diagnostics, curvature, the spectra),
//              as RecordMailbox; they compute on the training thread, the feed only keeps them
//   finished   each run's RunResult once it ends
//   ended      set once by the worker when training is over (done, stopped or failed)
// The training thread never waits for the GUI: it only takes a short lock to append.
#include "instruments/InstrumentRecords.h"
#include "train/TrainingObserver.h"
#include "train/TrainingPlan.h"
#include "train/TrainingState.h"

#include <QString>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace ml {

struct FinishedRun {
    int run = 0;
    RunResult result;
};

struct TrainingEnd {
    bool failed = false;
    QString message;  // the InputError text when failed
    // Each run's state as the training ended (weights, optimizer state, step, data order): what
    // "Fork here" continues. Empty when the training failed before it began.
    std::vector<TrainingState> states;
};

inline constexpr std::size_t kSmallNetworkParameters = 4096;
inline constexpr long kSnapshotsPerSmallRun = 2000;

class TrainingFeed : public TrainingObserver, public RecordMailbox {
public:
    using Clock = std::chrono::steady_clock;
    explicit TrainingFeed(std::chrono::milliseconds snapshotInterval = std::chrono::milliseconds(25));

    // Everything that arrived since the previous take().
    struct Delivery {
        std::optional<TrainingPlan> plan;
        std::vector<StepMetrics> metrics;
        std::vector<SharedSnapshot>
            snapshots;  // in order; at most one per run (the latest) unless the network is small
        InstrumentRecords records;
        std::vector<FinishedRun> finished;
        std::optional<TrainingEnd> end;
        bool empty() const {
            return !plan && metrics.empty() && snapshots.empty() && records.empty() && finished.empty() && !end;
        }
    };
    Delivery take();  // GUI thread
    long stepsDone() const { return stepsDone_.load(std::memory_order_relaxed); }

    void announce(const TrainingPlan& plan);
    void end(TrainingEnd end);

    // TrainingObserver (training thread).
    void stepFinished(const StepMetrics& metrics) override;
    bool wantsSnapshot(int run, long step) override;
    void snapshotTaken(const SharedSnapshot& snapshot) override;
    void runFinished(int run, const RunResult& result) override;
    // RecordMailbox (training thread).
    void post(InstrumentRecords records) override;

private:
    const std::chrono::milliseconds snapshotInterval_;
    long totalSteps_ = 0;                            // training thread only
    long historyStride_ = 0;                         // small networks: snapshot every this many steps (0: never)
    std::map<int, Clock::time_point> lastSnapshot_;  // training thread only
    std::atomic<long> stepsDone_{0};

    std::mutex mutex_;  // guards pending_
    Delivery pending_;
    std::map<int, std::size_t> snapshotSlot_;  // run -> index into pending_.snapshots
};

}  // namespace ml
