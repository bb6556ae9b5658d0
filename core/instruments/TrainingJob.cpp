#include "instruments/TrainingJob.h"

#include "runfolder/WeightsFile.h"

namespace ml {

TrainingJob::TrainingJob(const Experiment& experiment, std::vector<std::unique_ptr<Instrument>> instruments)
    : TrainingJob(experiment, loadExperimentData(experiment), std::move(instruments)) {}

TrainingJob::TrainingJob(const Experiment& experiment, DataSplit data,
                         std::vector<std::unique_ptr<Instrument>> instruments)
    : instruments_(std::move(instruments)), trainer_(experiment, std::move(data), loadInitialWeights(experiment)) {
    for (const std::unique_ptr<Instrument>& instrument : instruments_) instrument->check(trainer_);
}

TrainingJob::~TrainingJob() = default;

void TrainingJob::writeRunFolder(const QString& directory, DurableBatch* batch) {
    writer_ = std::make_unique<RunFolderWriter>(directory, trainer_, batch);
    trainer_.addObserver(writer_.get());  // first: it creates the runs' folders
    outputs_.folder = &writer_->layout();
}

std::vector<std::string> TrainingJob::describeInstruments() const {
    std::vector<std::string> described;
    for (const std::unique_ptr<Instrument>& instrument : instruments_) described.push_back(instrument->describe());
    return described;
}

void TrainingJob::run(RunControl& control) {
    if (!started_) {
        started_ = true;
        for (const std::unique_ptr<Instrument>& instrument : instruments_)
            if (std::unique_ptr<TrainingObserver> recorder = instrument->start(trainer_, outputs_))
                recorders_.push_back(std::move(recorder));
        for (const std::unique_ptr<TrainingObserver>& recorder : recorders_) trainer_.addObserver(recorder.get());
    }
    for (TrainingObserver* watcher : watchers_) trainer_.addObserver(watcher);
    watchers_.clear();
    trainer_.run(control);
}

void TrainingJob::finish() {
    if (writer_) writer_->finish();
    for (const std::unique_ptr<Instrument>& instrument : instruments_) instrument->finish(trainer_, outputs_);
}

}  // namespace ml
