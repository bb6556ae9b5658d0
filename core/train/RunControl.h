#pragma once
// Controls a training loop from another thread: stop, pause/resume, single steps while paused,
// and a speed limit (steps per second) so that a small network can be watched step by step.
// Requests are atomic flags; the training thread calls waitForNextStep() before every step.
// A stop can also come from a flag set by a signal handler (setStopFlag), which must not lock.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>

namespace ml {

class RunControl {
public:
    void requestStop();
    // Also stop once `*flag` is non-zero (nullptr: no such flag). The flag is polled, not waited
    // for, so a handler that may not lock or notify can set it.
    void setStopFlag(const std::atomic<int>* flag) { stopFlag_ = flag; }
    bool stopRequested() const;
    void setPaused(bool paused);
    bool paused() const { return paused_.load(); }
    // While paused: let exactly one more step through.
    void stepOnce();
    // 0 = as fast as possible.
    void setMaxStepsPerSecond(double stepsPerSecond);
    double maxStepsPerSecond() const { return maxStepsPerSecond_.load(); }

    // Training thread: blocks while paused or to respect the speed limit; false once a stop was
    // requested (the loop must then end).
    bool waitForNextStep();

private:
    using Clock = std::chrono::steady_clock;
    // Waits for a change or until `due` (nullopt: no deadline); bounded when a stop flag is polled.
    void waitUntil(std::unique_lock<std::mutex>& lock, std::optional<Clock::time_point> due);
    std::atomic<bool> stop_{false};
    std::atomic<const std::atomic<int>*> stopFlag_{nullptr};
    std::atomic<bool> paused_{false};
    std::atomic<long> singleSteps_{0};
    std::atomic<double> maxStepsPerSecond_{0.0};
    std::mutex mutex_;
    std::condition_variable changed_;
    Clock::time_point lastStep_{};
};

}  // namespace ml
