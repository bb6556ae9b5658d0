#include "study/TrialQueue.h"

#include <algorithm>

namespace ml {

TrialQueue::TrialQueue(const StudyPlan& plan, std::vector<int> tuning, std::vector<int> finals)
    : plan_(plan), waiting_(std::move(tuning)) {
    for (const int k : waiting_) ++tuningLeft_[{plan.trial(k).task, plan.trial(k).optimizer, plan.trial(k).round}];
    waiting_.insert(waiting_.end(), finals.begin(), finals.end());
}

int TrialQueue::tuningLeftBefore(int task, int optimizer, int round) const {
    int left = 0;
    for (auto it = tuningLeft_.lower_bound({task, optimizer, 0});
         it != tuningLeft_.end() && std::get<0>(it->first) == task && std::get<1>(it->first) == optimizer &&
         std::get<2>(it->first) < round;
         ++it)
        left += it->second;
    return left;
}

bool TrialQueue::ready(int trial) const {
    const StudyTrial& t = plan_.trial(trial);
    return tuningLeftBefore(t.task, t.optimizer, t.phase == StudyPhase::Tuning ? t.round : plan_.rounds()) == 0;
}

std::optional<int> TrialQueue::take() {
    std::unique_lock lock(mutex_);
    for (;;) {
        if (closed_ || waiting_.empty()) return std::nullopt;
        const auto next = std::find_if(waiting_.begin(), waiting_.end(), [this](int k) { return ready(k); });
        if (next != waiting_.end()) {
            const int trial = *next;
            waiting_.erase(next);
            return trial;
        }
        changed_.wait(lock);  // until a tuning trial finishes or the queue closes
    }
}

void TrialQueue::finished(int trial) {
    {
        const std::lock_guard lock(mutex_);
        const StudyTrial& t = plan_.trial(trial);
        if (t.phase == StudyPhase::Tuning) --tuningLeft_[{t.task, t.optimizer, t.round}];
    }
    changed_.notify_all();
}

void TrialQueue::close() {
    {
        const std::lock_guard lock(mutex_);
        closed_ = true;
    }
    changed_.notify_all();
}

}  // namespace ml
