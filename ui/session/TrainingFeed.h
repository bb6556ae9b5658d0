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
//   diagnostics  with diagnosticsEvery > 0: every that-many steps, each run's StepDiagnostics
//              (core/diagnostics, with the gradient SNR unless switched off), computed here on the training thread
//   curvature  with a curvature probe set: every curvatureEvery steps, each run's lambda_max and
//              stability thresholds (diagnostics/CurvatureWriter.h measureCurvature)
//   finished   each run's RunResult once it ends
//   ended      set once by the worker when training is over (done, stopped or failed)
// The training thread never waits for the GUI: it only takes a short lock to append.
#include "diagnostics/CurvatureWriter.h"
#include "diagnostics/DiagnosticsRecords.h"
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

struct RunDiagnostics {
    int run = 0;
    DiagnosticsRecord record;
};

struct RunCurvature {
    int run = 0;
    CurvaturePoint point;
};

struct TrainingEnd {
    bool failed = false;
    QString message;  // the InputError text when failed
    // Each run's state as the training ended (weights, optimizer state, step, data order): what
    // "Fork here" continues. Empty when the training failed before it began.
    std::vector<TrainingState> states;
    // With the experiment's hessian-spectrum: each run's Hessian eigenvalues at its final weights
    // (ascending; empty for a diverged run), or why there are none.
    std::vector<std::vector<double>> spectra;
    QString spectrumProblem;
};

inline constexpr std::size_t kSmallNetworkParameters = 4096;
inline constexpr long kSnapshotsPerSmallRun = 2000;

class TrainingFeed : public TrainingObserver {
public:
    using Clock = std::chrono::steady_clock;
    // diagnosticsEvery: 0 for none (then the feed costs nothing per step for them).
    // gradientSnr false: the diagnostics leave the SNR out (nan), saving its cost.
    explicit TrainingFeed(std::chrono::milliseconds snapshotInterval = std::chrono::milliseconds(25),
                          long diagnosticsEvery = 0, bool gradientSnr = true);

    // Everything that arrived since the previous take().
    struct Delivery {
        std::optional<TrainingPlan> plan;
        std::vector<StepMetrics> metrics;
        std::vector<SharedSnapshot>
            snapshots;  // in order; at most one per run (the latest) unless the network is small
        std::vector<RunDiagnostics> diagnostics;
        std::vector<RunCurvature> curvature;
        std::vector<FinishedRun> finished;
        std::optional<TrainingEnd> end;
        bool empty() const {
            return !plan && metrics.empty() && snapshots.empty() && diagnostics.empty() && curvature.empty() &&
                   finished.empty() && !end;
        }
    };
    Delivery take();  // GUI thread
    long stepsDone() const { return stepsDone_.load(std::memory_order_relaxed); }

    // Worker thread, before training: lambda_max every `every` steps on the probe's fixed batch.
    void setCurvatureProbe(std::unique_ptr<HessianProbe> probe, long every);
    void announce(const TrainingPlan& plan);
    void end(TrainingEnd end);

    // TrainingObserver (training thread).
    void stepFinished(const StepMetrics& metrics) override;
    bool wantsSnapshot(int run, long step) override;
    void snapshotTaken(const SharedSnapshot& snapshot) override;
    bool wantsStepState(int run, long step) override;
    void stepStateReady(const StepState& state) override;
    void runFinished(int run, const RunResult& result) override;

private:
    const std::chrono::milliseconds snapshotInterval_;
    long totalSteps_ = 0;                            // training thread only
    long historyStride_ = 0;                         // small networks: snapshot every this many steps (0: never)
    std::map<int, Clock::time_point> lastSnapshot_;  // training thread only
    const long diagnosticsEvery_;
    const bool gradientSnr_;
    std::map<int, StepDiagnostics> diagnostics_;    // per run, training thread only
    std::unique_ptr<HessianProbe> curvatureProbe_;  // training thread only
    long curvatureEvery_ = 0;
    std::atomic<long> stepsDone_{0};

    std::mutex mutex_;  // guards pending_
    Delivery pending_;
    std::map<int, std::size_t> snapshotSlot_;  // run -> index into pending_.snapshots
};

}  // namespace ml
