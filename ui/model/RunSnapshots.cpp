#include "model/RunSnapshots.h"

#include <algorithm>

namespace ml {

RunSnapshots::ArchivePtr RunSnapshots::makeArchive(int runCount) const {
    const std::size_t budget = std::max(kMinimumRunBudget, kTotalBudget / std::size_t(std::max(1, runCount)));
    return std::make_shared<SnapshotArchive>(20000, budget);
}

void RunSnapshots::reset(int runCount) {
    archives_.clear();
    for (int run = 0; run < runCount; ++run) archives_.push_back(makeArchive(runCount));
}

int RunSnapshots::append(const std::vector<ArchivePtr>& archives) {
    const int first = runCount();
    archives_.insert(archives_.end(), archives.begin(), archives.end());
    return first;
}

SnapshotArchive::Offer RunSnapshots::offer(int run, const SharedSnapshot& snapshot) {
    if (run < 0) return SnapshotArchive::Offer::Repeat;
    while (run >= runCount()) archives_.push_back(makeArchive(run + 1));
    return archives_[static_cast<std::size_t>(run)]->offer(snapshot);
}

const SnapshotArchive* RunSnapshots::archive(int run) const {
    return run >= 0 && run < runCount() ? archives_[static_cast<std::size_t>(run)].get() : nullptr;
}

const Snapshot* RunSnapshots::latest(int run) const {
    const SnapshotArchive* found = archive(run);
    return found ? found->latest() : nullptr;
}

SharedSnapshot RunSnapshots::at(int run, long step) const {
    const SnapshotArchive* found = archive(run);
    return found ? found->at(step) : nullptr;
}

std::vector<long> RunSnapshots::steps(const std::vector<int>& runs) const {
    std::vector<long> steps;
    for (const int run : runs) {
        const SnapshotArchive* found = archive(run);
        if (!found) continue;
        const std::vector<long> own = found->steps();
        steps.insert(steps.end(), own.begin(), own.end());
        if (found->latest()) steps.push_back(found->latest()->step);
    }
    std::sort(steps.begin(), steps.end());
    steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
    return steps;
}

std::vector<RunSnapshots::ArchivePtr> RunSnapshots::archives(int count) const {
    count = std::clamp(count, 0, runCount());
    return {archives_.begin(), archives_.begin() + count};
}

}  // namespace ml
