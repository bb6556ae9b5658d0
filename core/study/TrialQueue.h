#pragma once
// The trials a run of the study runner still has to train, handed to its workers as they become
// ready: a tuning trial of round 0 at once, one of a refining round once every pending tuning
// trial of the rounds before it (same task and optimizer) has finished, a final run once every
// pending tuning trial of its task and optimizer has (phase 2 chooses its configuration from them). So a worker moves on to
// one optimizer's final runs while another still tunes the next optimizer, instead of both waiting
// for the slowest trial of phase 1. Thread-safe.
#include "study/StudyPlan.h"

#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

namespace ml {

class TrialQueue {
public:
    // `tuning` and `finals` in the order they are to run (unfinished trials of `plan`).
    TrialQueue(const StudyPlan& plan, std::vector<int> tuning, std::vector<int> finals);

    // The first ready trial; waits while the only ones left are final runs whose tuning trials are
    // still running. nullopt once none is left or after close().
    std::optional<int> take();
    // `trial`, taken before, has finished (its trial.json is written).
    void finished(int trial);
    // No more trials are handed out (a stop or an error); wakes the waiting workers.
    void close();

private:
    bool ready(int trial) const;

    const StudyPlan& plan_;
    std::mutex mutex_;  // guards the members below
    std::condition_variable changed_;
    std::vector<int> waiting_;  // not yet taken, tuning trials first
    // Unfinished tuning trials of the rounds before `round` of a task and optimizer (all rounds for a final run).
    int tuningLeftBefore(int task, int optimizer, int round) const;

    std::map<std::tuple<int, int, int>, int> tuningLeft_;  // [task, optimizer, round] -> unfinished tuning trials
    bool closed_ = false;
};

}  // namespace ml
