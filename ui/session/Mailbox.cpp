#include "session/Mailbox.h"

#include <utility>

namespace ml {

Mailbox::Mailbox(QObject* receiver) : QObject(receiver) {
    connect(this, &Mailbox::posted, this, &Mailbox::runPosted, Qt::QueuedConnection);
}

Mailbox::~Mailbox() { dropPending(); }

void Mailbox::dropPending() {
    std::vector<std::function<void()>> dropped;
    {
        const std::lock_guard lock(mutex_);
        dropped.swap(calls_);
    }
}

void Mailbox::post(std::function<void()> call) {
    bool wasEmpty = false;
    {
        const std::lock_guard lock(mutex_);
        wasEmpty = calls_.empty();
        calls_.push_back(std::move(call));
    }
    // A box that was not empty already has its wake-up on the way; it will run this call too.
    if (wasEmpty) Q_EMIT posted();
}

void Mailbox::runPosted() {
    std::vector<std::function<void()>> calls;
    {
        const std::lock_guard lock(mutex_);
        calls.swap(calls_);
    }
    // Run outside the lock: a call may post again, or end the receiver's worker.
    for (const std::function<void()>& call : calls) call();
}

}  // namespace ml
