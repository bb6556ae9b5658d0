#pragma once
// Calls handed from one thread to the thread of a receiving QObject: post() appends the call under
// a std::mutex, and a timer on the receiver's thread takes every call under the same mutex and runs
// them in the order posted. Used wherever a worker thread talks to the GUI instead of a queued
// QMetaObject::invokeMethod or signal: their data (the
// lambda's captures, Qt's event object) reach the other thread through Qt's event queue, whose
// locking ThreadSanitizer cannot see (Qt is not instrumented), so it reports them as races. Here
// no Qt event crosses threads at all: the data crosses under mutex_, which TSan sees, and nothing
// of ours has to be suppressed. The cost: a call waits up to one polling interval.
#include <QObject>

#include <chrono>
#include <functional>
#include <mutex>
#include <vector>

class QTimer;

namespace ml {

class Mailbox : public QObject {
    Q_OBJECT
public:
    // A child of `receiver` (create it on receiver's thread, or before moving receiver): the calls
    // run on receiver's thread, and none runs once receiver (and so the mailbox) is destroyed. The
    // last call of a batch may destroy the receiver.
    explicit Mailbox(QObject* receiver, std::chrono::milliseconds interval = std::chrono::milliseconds(15));
    ~Mailbox() override;  // drops the calls not yet run (dropPending)

    // Receiver's thread, once it runs an event loop (a receiver moved to a QThread: connect its
    // started() here, directly): posted calls run from then on.
    void startPolling();
    // Receiver's thread: no more wake-ups (an idle app should not poll 66 times a second); call it
    // once nothing more can be posted, say in the call that ends the worker.
    void stopPolling();

    // Any thread.
    void post(std::function<void()> call);
    // Receiver's thread: forgets the calls not yet run. Taking the lock also orders, for TSan,
    // everything the poster did before its last post() before what the caller does next (say,
    // deleting a QThread::create worker whose QThread::wait() returned without TSan seeing why).
    void dropPending();

private:
    void runPosted();

    QTimer* timer_;
    std::mutex mutex_;  // guards calls_
    std::vector<std::function<void()>> calls_;
};

}  // namespace ml
