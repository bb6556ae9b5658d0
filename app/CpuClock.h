#pragma once
// A std::chrono clock of this process's CPU time (all threads). The benchmarks time with it: on a
// machine shared with other work, wall time measures the neighbours too, CPU time only this
// process. (A single-threaded benchmark's CPU time equals its wall time on an idle machine.)
#include <chrono>
#include <ctime>

namespace ml {

struct CpuClock {
    using duration = std::chrono::nanoseconds;
    using rep = duration::rep;
    using period = duration::period;
    using time_point = std::chrono::time_point<CpuClock>;
    static constexpr bool is_steady = true;
    static time_point now() noexcept {
        timespec t{};
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
        return time_point(duration(std::chrono::seconds(t.tv_sec) + std::chrono::nanoseconds(t.tv_nsec)));
    }
};

}  // namespace ml
