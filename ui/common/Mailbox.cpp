#include "common/Mailbox.h"

#include <QTimer>

#include <utility>

namespace ml {

Mailbox::Mailbox(QObject* receiver, std::chrono::milliseconds interval) : QObject(receiver), timer_(new QTimer(this)) {
    timer_->setInterval(interval);
    connect(timer_, &QTimer::timeout, this, &Mailbox::runPosted);
}

Mailbox::~Mailbox() { dropPending(); }

void Mailbox::startPolling() { timer_->start(); }

void Mailbox::stopPolling() { timer_->stop(); }

void Mailbox::dropPending() {
    std::vector<std::function<void()>> dropped;
    {
        const std::lock_guard lock(mutex_);
        dropped.swap(calls_);
    }
}

void Mailbox::post(std::function<void()> call) {
    const std::lock_guard lock(mutex_);
    calls_.push_back(std::move(call));
}

void Mailbox::runPosted() {
    std::vector<std::function<void()>> calls;
    {
        const std::lock_guard lock(mutex_);
        if (calls_.empty()) return;
        calls.swap(calls_);
    }
    // Run outside the lock: a call may post again, or end the receiver's worker.
    for (const std::function<void()>& call : calls) call();
}

}  // namespace ml
