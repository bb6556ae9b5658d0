#include "study/CommitThread.h"

#include <algorithm>
#include <utility>

namespace ml {

CommitThread::CommitThread(std::size_t backlog, std::function<void()> beforeEachGroup)
    : backlog_(std::max<std::size_t>(1, backlog)), beforeEachGroup_(std::move(beforeEachGroup)),
      thread_([this] { loop(); }) {}

CommitThread::~CommitThread() {
    {
        const std::lock_guard lock(mutex_);
        ending_ = true;
    }
    changed_.notify_all();
    thread_.join();
}

void CommitThread::submit(std::function<void()> job) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return jobs_.size() < backlog_; });
    jobs_.push_back(std::move(job));
    changed_.notify_all();
}

void CommitThread::drain() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return jobs_.empty() && !running_; });
}

void CommitThread::loop() {
    std::unique_lock lock(mutex_);
    for (;;) {
        changed_.wait(lock, [this] { return !jobs_.empty() || ending_; });
        if (jobs_.empty()) return;  // ending, nothing left
        std::deque<std::function<void()>> group;
        group.swap(jobs_);
        running_ = true;
        changed_.notify_all();  // room for a blocked submit()
        lock.unlock();
        if (beforeEachGroup_) beforeEachGroup_();
        for (std::function<void()>& job : group) job();
        lock.lock();
        running_ = false;
        changed_.notify_all();
    }
}

}  // namespace ml
