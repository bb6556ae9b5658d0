#include "model/SnapshotArchive.h"

#include <algorithm>
#include <utility>

namespace ml {

namespace {

// What the archive keeps of a snapshot: everything the inspector plots, nothing else.
Snapshot archived(const Snapshot& snapshot) {
    Snapshot copy;
    copy.run = snapshot.run;
    copy.label = snapshot.label;
    copy.step = snapshot.step;
    copy.epoch = snapshot.epoch;
    copy.batchLoss = snapshot.batchLoss;
    copy.scope = snapshot.scope;
    copy.bias = snapshot.bias;
    copy.statistic = snapshot.statistic;
    copy.secondMomentScope = snapshot.secondMomentScope;  // the inspector titles the groups
    copy.layers.reserve(snapshot.layers.size());
    for (const LayerSnapshot& layer : snapshot.layers) {
        LayerSnapshot kept;
        kept.parameters = layer.parameters;
        kept.gradient = layer.gradient;
        kept.firstMoment = layer.firstMoment;
        copy.layers.push_back(std::move(kept));
    }
    return copy;
}

// Bytes of a snapshot as archived (counts only the matrices archived() keeps).
std::size_t archivedBytes(const Snapshot& snapshot) {
    std::size_t bytes = sizeof(Snapshot) + snapshot.label.size();
    for (const LayerSnapshot& layer : snapshot.layers)
        bytes += sizeof(LayerSnapshot) +
                 sizeof(Matrix::Scalar) * std::size_t(layer.parameters.size() + layer.gradient.size() + layer.firstMoment.size());
    return bytes;
}

}  // namespace

SnapshotArchive::SnapshotArchive(int maxSnapshots, std::size_t budgetBytes)
    : maxSnapshots_(maxSnapshots), budgetBytes_(budgetBytes) {}

SnapshotArchive::Offer SnapshotArchive::offer(const Snapshot& snapshot) {
    if (snapshot.step <= lastStep_) return Offer::Repeat;
    lastStep_ = snapshot.step;
    if (!policy_) {
        const std::size_t fits = std::max<std::size_t>(16, budgetBytes_ / std::max<std::size_t>(1, archivedBytes(snapshot)));
        policy_.emplace(static_cast<int>(std::min<std::size_t>(fits, std::size_t(std::max(2, maxSnapshots_)))));
    }
    if (!policy_->offer()) return Offer::Skipped;
    snapshots_.push_back(archived(snapshot));
    if (!policy_->full(size())) return Offer::Appended;
    keepEverySecond(snapshots_);
    return Offer::Thinned;
}

void SnapshotArchive::clear() {
    snapshots_.clear();
    policy_.reset();
    lastStep_ = -1;
}

std::vector<long> SnapshotArchive::steps() const {
    std::vector<long> steps;
    steps.reserve(snapshots_.size());
    for (const Snapshot& snapshot : snapshots_) steps.push_back(snapshot.step);
    return steps;
}

}  // namespace ml
