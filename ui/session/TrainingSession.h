#pragma once
// The GUI side of training: owns the TrainingWorker and the thread of the training under way, the
// RunControl of the current training, and the TrainingFeed mailbox it empties every 33 ms on a GUI
// timer. Emits what arrived as batches:
//   metricsArrived   every StepMetrics since the last delivery (full resolution)
//   snapshotsArrived the latest snapshot of each run that produced one (coalesced, latest wins)
//   recordsArrived   what the instruments recorded since (diagnostics, curvature, the spectra)
// With a runs folder set, each training is also written as a run folder inside it (as
// `momentum-lab-cli train --out` writes one), named by the time it started.
// Controls (pause, single step, stop, speed) only flip RunControl's thread-safe flags, so the GUI
// never blocks on the worker. The destructor requests a stop and joins the thread.
// Each training runs on its own std::thread (no Qt event loop), started by start() and joined as
// its end is delivered: the training is handed over in the thread's constructor and taken back by
// std::thread::join (pthread_create / pthread_join, both seen by ThreadSanitizer; a QThread ends
// through QThread::wait, whose synchronisation inside uninstrumented Qt TSan cannot see).
#include "session/SessionState.h"
#include "session/TrainingFeed.h"
#include "session/TrainingWorker.h"
#include "experiment/Experiment.h"
#include "train/RunControl.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <memory>
#include <thread>
#include <vector>

namespace ml {

class TrainingSession : public QObject {
    Q_OBJECT
public:
    explicit TrainingSession(QObject* parent = nullptr);
    ~TrainingSession() override;

    SessionState state() const { return state_; }
    bool isBusy() const {
        return state_ == SessionState::Running || state_ == SessionState::Paused || state_ == SessionState::Stopping;
    }
    // Training threads alive in this process, counted on the threads themselves (tests: a destroyed
    // session leaves none behind).
    static int liveTrainingThreads();
    long stepsDone() const { return feed_ ? feed_->stepsDone() : 0; }  // of the training under way
    long totalSteps() const { return totalSteps_; }

    // Starts training `experiment` (validated by the caller). Refused (false) while busy.
    // With `fork`, the runs continue its state (twin runs, "Fork here").
    bool start(const Experiment& experiment, bool paused = false, std::shared_ptr<const ForkStart> fork = nullptr);
    // Every run's state as the last training ended (Finished; empty before, while busy and after
    // a failure): what "Fork here" continues. A paused training is stopped first (stop()).
    const std::vector<TrainingState>& endStates() const { return endStates_; }
    void pause();
    void resume();
    void togglePause();
    // While paused: one more step. While idle or finished: starts `experiment` paused and steps.
    void step(const Experiment& experiment);
    void stepOnce();
    void stop();
    // Stops and forgets: nothing of the current training is delivered any more; state -> Idle.
    void reset();
    void setMaxStepsPerSecond(double stepsPerSecond);  // 0 = as fast as possible
    double maxStepsPerSecond() const { return maxStepsPerSecond_; }
    // Diagnostics every N steps for the next start() (0: none; it stands for the experiment's
    // "diagnostics-every"). Curvature (lambda_max) comes with the experiment's curvatureEvery, the SNR
    // unless its gradientSnr is false, the Hessian spectra with its hessianSpectrum: all of them
    // delivered by recordsArrived.
    void setDiagnosticsEvery(long every) { diagnosticsEvery_ = every > 0 ? every : 0; }
    // Where the next start()s write their run folders, each in a new subfolder (empty: nowhere).
    void setRunsFolder(const QString& root) { runsFolder_ = root; }
    // The run folder of the training under way or last started (empty when it writes none).
    const QString& runFolder() const { return runFolder_; }

Q_SIGNALS:
    void stateChanged(ml::SessionState state);
    void planned(const ml::TrainingPlan& plan);
    void metricsArrived(const std::vector<ml::StepMetrics>& metrics);
    void snapshotsArrived(const std::vector<ml::SharedSnapshot>& snapshots);
    void recordsArrived(const ml::InstrumentRecords& records);
    void runFinished(int run, const ml::RunResult& result);
    void progressed(long step, long totalSteps);
    void failed(const QString& message);

private:
    void deliver();
    void setState(SessionState state);
    void joinTrainingThread();

    std::unique_ptr<TrainingWorker> worker_;  // used by thread_ only while it runs
    std::thread thread_;                      // the training under way (joinable until its end is delivered)
    std::shared_ptr<RunControl> control_;
    std::shared_ptr<TrainingFeed> feed_;
    QTimer timer_;
    SessionState state_ = SessionState::Idle;
    double maxStepsPerSecond_ = 0.0;
    long diagnosticsEvery_ = 0;
    QString runsFolder_;
    QString runFolder_;
    long totalSteps_ = 0;
    std::vector<TrainingState> endStates_;
    bool discarding_ = false;
    // MOMENTUM_LAB_TIMING=1: every 5 s, log the delivery period and the GUI time spent per delivery.
    struct Timing {
        bool enabled = false;
        QElapsedTimer clock;
        qint64 last = -1, windowStart = 0, maxPeriod = 0, maxHandling = 0, handlingSum = 0;
        long deliveries = 0, steps = 0;
        long lastStep = 0;
    } timing_;
    void recordTiming(qint64 started, long stepsDone);
};

}  // namespace ml
