#include "views/LandscapeComputation.h"

#include "common/Mailbox.h"

#include <QThread>

#include <exception>

namespace ml {

LandscapeComputation::LandscapeComputation(QObject* parent) : QObject(parent), mailbox_(new Mailbox(this)) {}

LandscapeComputation::~LandscapeComputation() {
    if (!worker_) return;
    cancel_ = true;
    worker_->wait();
    mailbox_->dropPending();  // the worker's last post orders its end before the delete (for TSan)
    delete worker_;
}

void LandscapeComputation::start(const Experiment& experiment, std::vector<Trajectory> trajectories,
                                 const LandscapeRequest& request) {
    if (busy()) return;
    cancel_ = false;
    worker_ = QThread::create([this, experiment, trajectories = std::move(trajectories), request] {
        std::shared_ptr<const Landscape> result;
        QString error;
        try {
            const DataSplit data = loadExperimentData(experiment);
            long lastPercent = -1;
            LandscapeControl control{&cancel_, [this, &lastPercent](long done, long total) {
                                         const long percent = 100 * done / total;
                                         if (percent == lastPercent) return;
                                         lastPercent = percent;
                                         mailbox_->post([this, done, total] { emit progressed(done, total); });
                                     }};
            result = std::make_shared<const Landscape>(
                computeLandscape(experiment.network, *data.train, trajectories, request, control));
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        mailbox_->post([this, result, error] { workerEnded(result, error); });
    });
    mailbox_->startPolling();  // only while a worker can post
    worker_->start();
}

void LandscapeComputation::workerEnded(std::shared_ptr<const Landscape> landscape, const QString& error) {
    worker_->wait();
    delete worker_;
    worker_ = nullptr;
    mailbox_->stopPolling();
    emit finished(std::move(landscape), error);
}

}  // namespace ml
