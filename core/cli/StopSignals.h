#pragma once
// Ctrl-C (SIGINT), SIGTERM and SIGHUP (the terminal closed) stop a CLI training cleanly: the files
// written so far are completed.
// The handler only stores the signal number in a lock-free atomic (async-signal-safe); RunControl
// polls it before every step. A second signal of the same kind ends the process at once.
#include "train/RunControl.h"

#include <csignal>
#include <iterator>

namespace ml {

// Installs the handlers while alive and restores the previous ones afterwards.
class StopOnSignals {
public:
    explicit StopOnSignals(RunControl& control);
    ~StopOnSignals();
    StopOnSignals(const StopOnSignals&) = delete;
    StopOnSignals& operator=(const StopOnSignals&) = delete;

    // The signal that asked to stop; 0 when none did.
    int received() const;
    // "SIGINT", "SIGTERM", "SIGHUP".
    static const char* name(int signal);

private:
    static constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
    RunControl& control_;
    struct sigaction previous_[std::size(kSignals)]{};
};

}  // namespace ml
