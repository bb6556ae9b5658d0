#include "model/SnapshotArchive.h"

#include <algorithm>
#include <utility>

namespace ml {

namespace {

// Bytes of an archived snapshot (its matrices; the initial parameters are shared, not counted).
std::size_t archivedBytes(const Snapshot& snapshot) {
    std::size_t bytes = sizeof(Snapshot) + snapshot.label.size();
    for (const LayerSnapshot& layer : snapshot.layers)
        bytes += sizeof(LayerSnapshot) + sizeof(Matrix::Scalar) * layer.floatCount();
    return bytes;
}

}  // namespace

SnapshotArchive::SnapshotArchive(int maxSnapshots, std::size_t budgetBytes)
    : maxSnapshots_(maxSnapshots), budgetBytes_(budgetBytes) {}

SnapshotArchive::Offer SnapshotArchive::offer(const SharedSnapshot& snapshot) {
    if (snapshot->step <= lastStep_) return Offer::Repeat;
    lastStep_ = snapshot->step;
    latest_ = snapshot;
    if (!policy_) {
        const std::size_t fits =
            std::max<std::size_t>(16, budgetBytes_ / std::max<std::size_t>(1, archivedBytes(*snapshot)));
        policy_.emplace(static_cast<int>(std::min<std::size_t>(fits, std::size_t(std::max(2, maxSnapshots_)))));
    }
    if (!policy_->offer()) return Offer::Skipped;
    snapshots_.push_back(snapshot);
    Offer result = Offer::Appended;
    if (dropsLeft_ > 0) {  // a round of thinning: the next older snapshot the doubled stride drops
        snapshots_.erase(snapshots_.begin() + nextDrop_++);
        --dropsLeft_;
        result = Offer::Thinned;
    }
    // Full: the stride has doubled; the round drops every second stored snapshot, one per new one.
    if (dropsLeft_ == 0 && policy_->full(size())) dropsLeft_ = size() / 2, nextDrop_ = 1;
    return result;
}

void SnapshotArchive::clear() {
    snapshots_.clear();
    policy_.reset();
    dropsLeft_ = 0;
    nextDrop_ = 1;
    latest_.reset();
    lastStep_ = -1;
}

SharedSnapshot SnapshotArchive::at(long step) const {
    if (step < 0 || (latest_ && step >= latest_->step)) return latest_;
    const auto after = std::upper_bound(snapshots_.begin(), snapshots_.end(), step,
                                        [](long s, const SharedSnapshot& snapshot) { return s < snapshot->step; });
    return after == snapshots_.begin() ? nullptr : *(after - 1);
}

std::vector<long> SnapshotArchive::steps() const {
    std::vector<long> steps;
    steps.reserve(snapshots_.size());
    for (const SharedSnapshot& snapshot : snapshots_) steps.push_back(snapshot->step);
    return steps;
}

}  // namespace ml
