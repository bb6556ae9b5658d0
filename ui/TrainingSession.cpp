#include "TrainingSession.h"

#include "TrainingWorker.h"

namespace ml {

TrainingSession::TrainingSession(QObject* parent) : QObject(parent), worker_(new TrainingWorker) {
    thread_.setObjectName("training");
    worker_->moveToThread(&thread_);
    connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
    thread_.start();
    timer_.setInterval(33);
    connect(&timer_, &QTimer::timeout, this, &TrainingSession::deliver);
}

TrainingSession::~TrainingSession() {
    if (control_) control_->requestStop();
    thread_.quit();
    thread_.wait();
}

bool TrainingSession::start(const Experiment& experiment, bool paused) {
    if (isBusy()) return false;
    control_ = std::make_shared<RunControl>();
    control_->setMaxStepsPerSecond(maxStepsPerSecond_);
    control_->setPaused(paused);
    feed_ = std::make_shared<TrainingFeed>();
    discarding_ = false;
    totalSteps_ = 0;
    QMetaObject::invokeMethod(
        worker_, [worker = worker_, experiment, control = control_, feed = feed_] { worker->train(experiment, control, feed); },
        Qt::QueuedConnection);
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
    TrainingFeed::Delivery delivery = feed_->take();
    if (!discarding_) {
        if (delivery.plan) {
            totalSteps_ = delivery.plan->totalSteps;
            Q_EMIT planned(*delivery.plan);
        }
        if (!delivery.metrics.empty()) Q_EMIT metricsArrived(delivery.metrics);
        if (!delivery.snapshots.empty()) Q_EMIT snapshotsArrived(delivery.snapshots);
        for (const FinishedRun& finished : delivery.finished) Q_EMIT runFinished(finished.run, finished.result);
        Q_EMIT progressed(feed_->stepsDone(), totalSteps_);
    }
    if (!delivery.end) return;
    timer_.stop();
    feed_.reset();
    control_.reset();
    const bool discarded = discarding_;
    discarding_ = false;
    if (delivery.end->failed && !discarded) Q_EMIT failed(delivery.end->message);
    setState(discarded ? SessionState::Idle : SessionState::Finished);
}

void TrainingSession::setState(SessionState state) {
    if (state == state_) return;
    state_ = state;
    Q_EMIT stateChanged(state);
}

}  // namespace ml
