#include "session/TrainingSession.h"

#include "session/TrainingWorker.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>

#include <pthread.h>

#include <algorithm>
#include <atomic>

namespace ml {

namespace {
std::atomic<int> liveTrainingThreadCount{0};

// Counts the thread it lives on, for the length of the thread's work.
struct LiveTrainingThread {
    LiveTrainingThread() { liveTrainingThreadCount.fetch_add(1); }
    ~LiveTrainingThread() { liveTrainingThreadCount.fetch_sub(1); }
};

// A new folder in `root` named by the time: 2026-12-07_14-03-59, then -2, -3, ... when taken.
QString newRunFolder(const QString& root) {
    const QString stamp = QDateTime::currentDateTime().toString("yyyy-MM-dd_HH-mm-ss");
    QString folder = QDir(root).filePath(stamp);
    for (int n = 2; QFileInfo::exists(folder); ++n) folder = QDir(root).filePath(stamp + "-" + QString::number(n));
    return folder;
}
}  // namespace

int TrainingSession::liveTrainingThreads() { return liveTrainingThreadCount.load(); }

TrainingSession::TrainingSession(QObject* parent) : QObject(parent), worker_(std::make_unique<TrainingWorker>()) {
    timer_.setInterval(33);
    connect(&timer_, &QTimer::timeout, this, &TrainingSession::deliver);
    timing_.enabled = qEnvironmentVariableIntValue("MOMENTUM_LAB_TIMING") > 0;
    timing_.clock.start();
}

TrainingSession::~TrainingSession() {
    if (control_) control_->requestStop();
    joinTrainingThread();
}

void TrainingSession::joinTrainingThread() {
    if (thread_.joinable()) thread_.join();
}

bool TrainingSession::start(const Experiment& experiment, bool paused, std::shared_ptr<const ForkStart> fork) {
    if (isBusy()) return false;
    endStates_.clear();
    control_ = std::make_shared<RunControl>();
    control_->setMaxStepsPerSecond(maxStepsPerSecond_);
    control_->setPaused(paused);
    feed_ = std::make_shared<TrainingFeed>(std::chrono::milliseconds(25));
    Experiment live = experiment;
    live.diagnosticsEvery = diagnosticsEvery_;  // the live setting stands for the experiment's key
    runFolder_ = runsFolder_.isEmpty() ? QString() : newRunFolder(runsFolder_);
    discarding_ = false;
    totalSteps_ = 0;
    const bool timed = timing_.enabled;
    timing_ = Timing{};
    timing_.enabled = timed;
    timing_.clock.start();
    joinTrainingThread();  // a finished training's thread was joined as its end arrived: a no-op
    thread_ = std::thread([worker = worker_.get(), live, folder = runFolder_, control = control_, feed = feed_, fork] {
        const LiveTrainingThread counted;
        pthread_setname_np(pthread_self(), "training");  // as seen by top -H and gdb
        worker->train(live, folder, control, feed, fork);
    });
    timer_.start();
    setState(paused ? SessionState::Paused : SessionState::Running);
    return true;
}

void TrainingSession::pause() {
    if (state_ != SessionState::Running) return;
    control_->setPaused(true);
    setState(SessionState::Paused);
}

void TrainingSession::resume() {
    if (state_ != SessionState::Paused) return;
    control_->setPaused(false);
    setState(SessionState::Running);
}

void TrainingSession::togglePause() {
    if (state_ == SessionState::Running) pause();
    else resume();
}

void TrainingSession::step(const Experiment& experiment) {
    if (state_ == SessionState::Idle || state_ == SessionState::Finished) {
        if (!start(experiment, true)) return;
    } else if (state_ == SessionState::Running) {
        pause();
    }
    stepOnce();
}

void TrainingSession::stepOnce() {
    if (state_ == SessionState::Paused) control_->stepOnce();
}

void TrainingSession::stop() {
    if (state_ != SessionState::Running && state_ != SessionState::Paused) return;
    control_->requestStop();
    setState(SessionState::Stopping);
}

void TrainingSession::reset() {
    discarding_ = true;
    endStates_.clear();
    if (isBusy()) {
        control_->requestStop();
        setState(SessionState::Stopping);
    } else {
        setState(SessionState::Idle);
    }
}

void TrainingSession::setMaxStepsPerSecond(double stepsPerSecond) {
    maxStepsPerSecond_ = stepsPerSecond > 0.0 ? stepsPerSecond : 0.0;
    if (control_) control_->setMaxStepsPerSecond(maxStepsPerSecond_);
}

void TrainingSession::deliver() {
    if (!feed_) return;
    const qint64 started = timing_.clock.nsecsElapsed();
    TrainingFeed::Delivery delivery = feed_->take();
    if (!discarding_) {
        if (delivery.plan) {
            totalSteps_ = delivery.plan->totalSteps;
            Q_EMIT planned(*delivery.plan);
        }
        if (!delivery.metrics.empty()) Q_EMIT metricsArrived(delivery.metrics);
        if (!delivery.snapshots.empty()) Q_EMIT snapshotsArrived(delivery.snapshots);
        if (!delivery.records.empty()) Q_EMIT recordsArrived(delivery.records);
        for (const FinishedRun& finished : delivery.finished) Q_EMIT runFinished(finished.run, finished.result);
        Q_EMIT progressed(feed_->stepsDone(), totalSteps_);
        if (timing_.enabled) recordTiming(started, feed_->stepsDone());
    }
    if (!delivery.end) return;
    // The worker's last act was feed->end(): its thread is returning, so this join is short.
    joinTrainingThread();
    timer_.stop();
    feed_.reset();
    control_.reset();
    const bool discarded = discarding_;
    discarding_ = false;
    if (!discarded) endStates_ = std::move(delivery.end->states);
    if (delivery.end->failed && !discarded) Q_EMIT failed(delivery.end->message);
    setState(discarded ? SessionState::Idle : SessionState::Finished);
}

void TrainingSession::recordTiming(qint64 started, long stepsDone) {
    Timing& t = timing_;
    const qint64 now = t.clock.nsecsElapsed();
    if (t.last >= 0) t.maxPeriod = std::max(t.maxPeriod, started - t.last);
    else t.windowStart = started;
    t.last = started;
    t.maxHandling = std::max(t.maxHandling, now - started);
    t.handlingSum += now - started;
    ++t.deliveries;
    if (now - t.windowStart < 5'000'000'000LL) return;
    const double seconds = (now - t.windowStart) / 1e9;
    qInfo("timing: %.1f deliveries/s (max period %.1f ms), GUI handling mean %.2f ms max %.2f ms, %.0f steps/s",
          t.deliveries / seconds, t.maxPeriod / 1e6, t.handlingSum / 1e6 / t.deliveries, t.maxHandling / 1e6,
          (stepsDone - t.lastStep) / seconds);
    t.windowStart = now;
    t.lastStep = stepsDone;
    t.deliveries = 0;
    t.maxPeriod = t.maxHandling = t.handlingSum = 0;
}

void TrainingSession::setState(SessionState state) {
    if (state == state_) return;
    state_ = state;
    Q_EMIT stateChanged(state);
}

}  // namespace ml
