#include "cli/StopSignals.h"

#include <atomic>

namespace ml {

namespace {

std::atomic<int> stopSignal{0};
static_assert(std::atomic<int>::is_always_lock_free, "a signal handler may only touch lock-free atomics");

extern "C" void onStopSignal(int signal) { stopSignal.store(signal); }

}  // namespace

StopOnSignals::StopOnSignals(RunControl& control) : control_(control) {
    stopSignal = 0;
    struct sigaction action {};
    action.sa_handler = onStopSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;  // the handler runs once; a second signal takes the default action
    for (std::size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &action, &previous_[i]);
    control_.setStopFlag(&stopSignal);
}

StopOnSignals::~StopOnSignals() {
    for (std::size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &previous_[i], nullptr);
    control_.setStopFlag(nullptr);
}

int StopOnSignals::received() const { return stopSignal.load(); }

const char* StopOnSignals::name(int signal) {
    switch (signal) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    }
    return "a signal";
}

}  // namespace ml
