#include "session/ComparisonController.h"

#include <utility>

namespace ml {

std::optional<Experiment> ComparisonController::takePendingStart() {
    return std::exchange(pendingStart_, std::nullopt);
}

void ComparisonController::startedOver() {
    liveOnScreen_ = false;
    stopped_ = false;
    shownRecord_ = 0;
    resultsArePrevious_ = false;
}

int ComparisonController::planShown() {
    liveOnScreen_ = true;
    return std::exchange(overlayAfterPlan_, 0);
}

bool ComparisonController::forkRequested(PendingFork fork, SessionState state) {
    if (state != SessionState::Paused) return false;
    pendingFork_ = std::move(fork);
    return true;
}

std::optional<PendingFork> ComparisonController::forkDue(SessionState state) {
    if (state != SessionState::Finished) return std::nullopt;
    return std::exchange(pendingFork_, std::nullopt);
}

void ComparisonController::forkLaunched(int newestKeptRecord) {
    overlayAfterPlan_ = shownRecord_ > 0 ? shownRecord_ : newestKeptRecord;
    shownRecord_ = 0;
}

StateLine ComparisonController::stateLine(SessionState state) const {
    switch (state) {
    case SessionState::Idle:
    case SessionState::Finished:
        if (resultsArePrevious_) return StateLine::ShowingPrevious;
        if (state == SessionState::Idle) return StateLine::Ready;
        return stopped_ ? StateLine::Stopped : StateLine::Finished;
    case SessionState::Running: return StateLine::Training;
    case SessionState::Paused: return StateLine::Paused;
    case SessionState::Stopping: return StateLine::Stopping;
    }
    return StateLine::Ready;
}

}  // namespace ml
