#pragma once
// Computes a loss landscape (core/landscape/Landscape.h) on a worker thread, so the window stays
// responsive: progress as signals on the GUI thread (at most once per percent), Cancel through an
// atomic flag polled before every loss, the result (or the error message) delivered once.
// Loading the experiment's data happens on the worker too (MNIST takes a moment). The worker hands
// progress and the result over through a Mailbox (common/Mailbox.h), which ThreadSanitizer can see.
#include "landscape/Landscape.h"
#include "experiment/Experiment.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>

class QThread;

namespace ml {

class Mailbox;

class LandscapeComputation : public QObject {
    Q_OBJECT
public:
    explicit LandscapeComputation(QObject* parent = nullptr);
    ~LandscapeComputation() override;  // cancels and waits for the worker

    bool busy() const { return worker_ != nullptr; }
    // Ignored while busy.
    void start(const Experiment& experiment, std::vector<Trajectory> trajectories, const LandscapeRequest& request);
    void cancel() { cancel_ = true; }

Q_SIGNALS:
    void progressed(long done, long total);
    // `landscape` null on error (then `error` says why); landscape->complete false when cancelled.
    void finished(std::shared_ptr<const Landscape> landscape, const QString& error);

private:
    void workerEnded(std::shared_ptr<const Landscape> landscape, const QString& error);
    QThread* worker_ = nullptr;
    Mailbox* mailbox_;  // a child: runs the worker's calls on the GUI thread
    std::atomic<bool> cancel_{false};
};

}  // namespace ml
