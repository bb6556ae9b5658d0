#include "train/RunControl.h"

#include <algorithm>

namespace ml {

void RunControl::requestStop() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    changed_.notify_all();
}

void RunControl::setPaused(bool paused) {
    {
        std::lock_guard lock(mutex_);
        paused_ = paused;
    }
    changed_.notify_all();
}

void RunControl::stepOnce() {
    {
        std::lock_guard lock(mutex_);
        ++singleSteps_;
    }
    changed_.notify_all();
}

void RunControl::setMaxStepsPerSecond(double stepsPerSecond) {
    {
        std::lock_guard lock(mutex_);
        maxStepsPerSecond_ = stepsPerSecond > 0.0 ? stepsPerSecond : 0.0;
    }
    changed_.notify_all();
}

namespace {

// How often a wait looks at a stop flag that nobody notifies.
constexpr std::chrono::milliseconds kStopFlagPoll{50};

}  // namespace

bool RunControl::stopRequested() const {
    const std::atomic<int>* flag = stopFlag_.load();
    return stop_ || (flag && flag->load() != 0);
}

void RunControl::waitUntil(std::unique_lock<std::mutex>& lock, std::optional<Clock::time_point> due) {
    if (stopFlag_.load()) {
        const Clock::time_point poll = Clock::now() + kStopFlagPoll;
        due = due ? std::min(*due, poll) : poll;
    }
    if (due) changed_.wait_until(lock, *due);
    else changed_.wait(lock);
}

bool RunControl::waitForNextStep() {
    if (stopRequested()) return false;
    // Fast path: running at full speed touches no lock.
    if (!paused_ && maxStepsPerSecond_.load(std::memory_order_relaxed) == 0.0) return true;

    std::unique_lock lock(mutex_);
    for (;;) {
        if (stopRequested()) return false;
        if (paused_) {
            if (singleSteps_ > 0) {
                --singleSteps_;
                lastStep_ = Clock::now();
                return true;
            }
            waitUntil(lock, std::nullopt);
            continue;
        }
        const double rate = maxStepsPerSecond_;
        if (rate == 0.0) return true;
        const auto due =
            lastStep_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / rate));
        if (Clock::now() >= due) {
            lastStep_ = Clock::now();
            return true;
        }
        waitUntil(lock, due);  // woken early by stop, pause or a new rate
    }
}

}  // namespace ml
