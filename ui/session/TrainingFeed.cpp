#include "session/TrainingFeed.h"

#include <algorithm>

namespace ml {

TrainingFeed::TrainingFeed(std::chrono::milliseconds snapshotInterval) : snapshotInterval_(snapshotInterval) {}

TrainingFeed::Delivery TrainingFeed::take() {
    Delivery taken;
    std::lock_guard lock(mutex_);
    std::swap(taken, pending_);
    snapshotSlot_.clear();
    // Keep the capacity of the metrics buffer: the next batch is usually the same size.
    pending_.metrics.reserve(taken.metrics.capacity());
    return taken;
}

void TrainingFeed::announce(const TrainingPlan& plan) {
    totalSteps_ = plan.totalSteps;
    historyStride_ =
        plan.parameterCount <= kSmallNetworkParameters ? std::max(1L, plan.totalSteps / kSnapshotsPerSmallRun) : 0;
    std::lock_guard lock(mutex_);
    pending_.plan = plan;
}

void TrainingFeed::end(TrainingEnd end) {
    std::lock_guard lock(mutex_);
    pending_.end = std::move(end);
}

void TrainingFeed::stepFinished(const StepMetrics& metrics) {
    stepsDone_.store(metrics.step, std::memory_order_relaxed);
    std::lock_guard lock(mutex_);
    pending_.metrics.push_back(metrics);
}

bool TrainingFeed::wantsSnapshot(int run, long step) {
    const Clock::time_point now = Clock::now();
    auto last = lastSnapshot_.find(run);
    const bool due = last == lastSnapshot_.end() || now - last->second >= snapshotInterval_ || step == totalSteps_;
    if (due) lastSnapshot_[run] = now;
    return due || (historyStride_ > 0 && step % historyStride_ == 0);
}

void TrainingFeed::snapshotTaken(const SharedSnapshot& snapshot) {
    std::lock_guard lock(mutex_);
    auto slot = snapshotSlot_.find(snapshot->run);
    if (historyStride_ > 0) {
        pending_.snapshots.push_back(snapshot);  // small network: keep the history
    } else if (slot != snapshotSlot_.end()) {
        pending_.snapshots[slot->second] = snapshot;  // latest wins
    } else {
        snapshotSlot_[snapshot->run] = pending_.snapshots.size();
        pending_.snapshots.push_back(snapshot);
    }
}

void TrainingFeed::post(InstrumentRecords records) {
    std::lock_guard lock(mutex_);
    pending_.records.append(std::move(records));
}

void TrainingFeed::runFinished(int run, const RunResult& result) {
    std::lock_guard lock(mutex_);
    pending_.finished.push_back({run, result});
}

}  // namespace ml
