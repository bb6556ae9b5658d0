#pragma once
// One background thread that runs the jobs handed to it, one at a time, in the order given: a
// study's workers hand it each trained trial's commit (its files synced and published, then its
// trial.json), so that they train the next trial while the disk is flushed instead of sleeping in
// fsync with a core idle. At most `backlog` jobs wait; submit() blocks beyond that, which bounds
// the files held open. Thread-safe.
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace ml {

class CommitThread {
public:
    explicit CommitThread(std::size_t backlog);
    ~CommitThread();  // runs the jobs still waiting, then ends the thread
    CommitThread(const CommitThread&) = delete;
    CommitThread& operator=(const CommitThread&) = delete;

    void submit(std::function<void()> job);  // `job` must not throw
    void drain();                            // returns once every submitted job has run

private:
    void loop();

    const std::size_t backlog_;
    std::mutex mutex_;  // guards the members below
    std::condition_variable changed_;
    std::deque<std::function<void()>> jobs_;
    bool running_ = false;  // a job is being run
    bool ending_ = false;
    std::thread thread_;  // last: starts once the members above exist
};

}  // namespace ml
