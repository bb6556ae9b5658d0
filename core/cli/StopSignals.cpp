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
    sigaction(SIGINT, &action, &previousInterrupt_);
    sigaction(SIGTERM, &action, &previousTerminate_);
    control_.setStopFlag(&stopSignal);
}

StopOnSignals::~StopOnSignals() {
    sigaction(SIGINT, &previousInterrupt_, nullptr);
    sigaction(SIGTERM, &previousTerminate_, nullptr);
    control_.setStopFlag(nullptr);
}

int StopOnSignals::received() const { return stopSignal.load(); }

}  // namespace ml
