#pragma once
// One background thread that runs the jobs handed to it in the order given, in groups: whenever it
// is free it takes every job waiting, runs `beforeEachGroup` once and then the group's jobs. A
// study's workers hand it each trained trial's commit, so they train the next trial while the disk
// is flushed instead of sleeping in fsync with a core idle; the group's hook syncs all the group's
// files at once (group commit), so that a trial costs a fraction of a cache flush, not five. At most
// `backlog` jobs wait; submit() blocks beyond that, which bounds the trials held in memory.
// Thread-safe.
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace ml {

class CommitThread {
public:
    // `beforeEachGroup` (may be empty) and the jobs must not throw.
    explicit CommitThread(std::size_t backlog, std::function<void()> beforeEachGroup = {});
    ~CommitThread();  // runs the jobs still waiting, then ends the thread
    CommitThread(const CommitThread&) = delete;
    CommitThread& operator=(const CommitThread&) = delete;

    void submit(std::function<void()> job);  // `job` must not throw
    void drain();                            // returns once every submitted job has run

private:
    void loop();

    const std::size_t backlog_;
    const std::function<void()> beforeEachGroup_;
    std::mutex mutex_;  // guards the members below
    std::condition_variable changed_;
    std::deque<std::function<void()>> jobs_;
    bool running_ = false;  // a group is being run
    bool ending_ = false;
    std::thread thread_;  // last: starts once the members above exist
};

}  // namespace ml
