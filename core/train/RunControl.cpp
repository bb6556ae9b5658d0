#include "train/RunControl.h"

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

bool RunControl::waitForNextStep() {
    if (stop_) return false;
    // Fast path: running at full speed touches no lock.
    if (!paused_ && maxStepsPerSecond_.load(std::memory_order_relaxed) == 0.0) return true;

    std::unique_lock lock(mutex_);
    for (;;) {
        if (stop_) return false;
        if (paused_) {
            if (singleSteps_ > 0) {
                --singleSteps_;
                lastStep_ = Clock::now();
                return true;
            }
            changed_.wait(lock);
            continue;
        }
        const double rate = maxStepsPerSecond_;
        if (rate == 0.0) return true;
        const auto due = lastStep_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / rate));
        if (Clock::now() >= due) {
            lastStep_ = Clock::now();
            return true;
        }
        changed_.wait_until(lock, due);  // woken early by stop, pause or a new rate
    }
}

}  // namespace ml
