#pragma once
// One training put together: an Experiment and the instruments asked for become a LockstepTrainer
// with its observers. The CLI's `train`, the study runner's trials and the desktop app's worker all
// build their training here:
//
//   TrainingJob job(experiment, requestedInstruments(InstrumentRequest(experiment, &flags)));
//   job.trainer().resumeFrom(...);          // optional, before the outputs (a fork)
//   job.writeRunFolder(directory);          // metrics, weights, config, summary + instruments' files
//   job.deliverTo(&feed);                   // and/or the instruments' records live (the app)
//   job.addObserver(&progress);             // anything else that watches (progress bar, the feed)
//   job.run(control);  job.finish();
#include "instruments/Instrument.h"
#include "runfolder/RunFolderWriter.h"
#include "train/LockstepTrainer.h"

#include <QString>

#include <memory>
#include <string>
#include <vector>

namespace ml {

class DurableBatch;

class TrainingJob {
public:
    // Loads the experiment's data and initial weights, builds the trainer and checks every instrument
    // against it (InputError naming the file, field or flag; nothing is written yet).
    TrainingJob(const Experiment& experiment, std::vector<std::unique_ptr<Instrument>> instruments);
    // The same with the data already loaded (a study's trials share it).
    TrainingJob(const Experiment& experiment, DataSplit data, std::vector<std::unique_ptr<Instrument>> instruments);
    ~TrainingJob();
    TrainingJob(const TrainingJob&) = delete;
    TrainingJob& operator=(const TrainingJob&) = delete;

    // Before the outputs are chosen: resumeFrom, shareEvaluationChunks.
    LockstepTrainer& trainer() { return trainer_; }
    const LockstepTrainer& trainer() const { return trainer_; }

    // Writes a run folder at `directory` (created): the RunFolderWriter's files and every
    // instrument's. With a `batch`, files are synced by its commit() (runfolder/RunFolderWriter.h).
    // Throws FileError naming the path. Before run(), at most once.
    void writeRunFolder(const QString& directory, DurableBatch* batch = nullptr);
    // The instruments' records also go to `mailbox` (the app's feed). Before run().
    void deliverTo(RecordMailbox* mailbox) { outputs_.mailbox = mailbox; }
    // Another observer, added after the instruments'. Before run().
    void addObserver(TrainingObserver* observer) { watchers_.push_back(observer); }

    // The run folder being written, empty without one.
    QString runFolder() const { return writer_ ? writer_->layout().root() : QString(); }
    // What the instruments record and when ("diagnostics.csv every 10 steps", ...).
    std::vector<std::string> describeInstruments() const;

    // Starts the instruments' observers and trains until done or stopped (RunControl).
    void run(RunControl& control);
    // After run(): completes the run folder (its summary) and the instruments' last records.
    void finish();

private:
    std::vector<std::unique_ptr<Instrument>> instruments_;
    LockstepTrainer trainer_;
    std::unique_ptr<RunFolderWriter> writer_;
    InstrumentOutputs outputs_;
    std::vector<std::unique_ptr<TrainingObserver>> recorders_;  // the instruments' observers
    std::vector<TrainingObserver*> watchers_;
    bool started_ = false;
};

}  // namespace ml
