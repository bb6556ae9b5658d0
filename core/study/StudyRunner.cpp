#include "study/StudyRunner.h"

#include "InputError.h"
#include "io/Files.h"
#include "io/FileError.h"
#include "io/JsonFile.h"
#include "study/TrialOutcome.h"
#include "train/LockstepTrainer.h"
#include "train/RunFolderWriter.h"
#include "train/WeightsFile.h"

#include <QDir>
#include <QFileInfo>

#include <atomic>
#include <exception>
#include <future>
#include <memory>
#include <mutex>
#include <numeric>
#include <string>
#include <thread>

namespace ml {

void prepareStudyFolder(const QString& studyFile, const QString& directory) {
    const QByteArray bytes = readFileBytes(studyFile);
    const QJsonObject given = parseJsonObject(bytes, studyFile);
    const QString copy = QDir(directory).filePath(studyfolder::kStudy);
    if (QFileInfo::exists(copy)) {
        if (QFileInfo(copy).canonicalFilePath() == QFileInfo(studyFile).canonicalFilePath()) return;
        if (readJsonObject(copy) != given)
            throw InputError(copy.toStdString() + ": holds another study than " + studyFile.toStdString() +
                             "; its trials would be mixed: use a new --out folder (or the same study file)");
        return;
    }
    if (!QDir().mkpath(directory)) throw FileError(directory, "cannot create the folder");
    writeFileAtomically(copy, bytes);
}

bool runTrial(const StudyLayout& layout, int index, RunControl& control) {
    SharedTrialInputs inputs(layout);
    return runTrial(layout, index, control, inputs);
}

namespace {

// A trained trial whose files are written but not yet durable, and what its marker will say.
struct TrainedTrial {
    int index = 0;
    stats::TrialPoint point;
    std::string status;
    DurableBatch files;
};

// Trains trial `index` into its folder. Nothing when the control stopped it: its files are then
// committed at once, and it gets no marker (it is unfinished).
std::shared_ptr<TrainedTrial> trainTrial(const StudyLayout& layout, int index, RunControl& control, SharedTrialInputs& inputs) {
    const StudyPlan& plan = layout.plan();
    const StudyTrial& trial = plan.trial(index);
    auto trained = std::make_shared<TrainedTrial>();
    trained->index = index;
    trained->point = plan.point(trial.optimizer, trial.phase == StudyPhase::Tuning ? trial.number : 0);
    if (trial.phase == StudyPhase::Final)
        trained->point = plan.point(trial.optimizer, inputs.selection(trial.task, trial.optimizer).number);
    const Experiment experiment = plan.experiment(trial, trained->point);

    const QString folder = layout.trialDirectory(index);
    // An earlier attempt that did not finish: start again from an empty folder.
    if (QFileInfo::exists(folder) && !QDir(folder).removeRecursively()) throw FileError(folder, "cannot remove the unfinished trial");
    LockstepTrainer trainer(experiment, inputs.data(experiment), loadInitialWeights(experiment));
    RunFolderWriter writer(folder, trainer, &trained->files);
    trainer.addObserver(&writer);
    trainer.run(control);
    writer.finish();
    const RunResult& result = trainer.result(0);
    if (result.status != RunStatus::Done && result.status != RunStatus::Diverged) {
        trained->files.commit();
        return nullptr;
    }
    trained->status = result.statusText();
    return trained;
}

// The trial's files become durable in one step, before its marker says it is done (a trial
// without a marker is run again from an empty folder).
void commitTrial(const StudyLayout& layout, TrainedTrial& trial) {
    trial.files.commit();
    writeTrialMarker(layout, trial.index, trial.point, trial.status);
}

}  // namespace

bool runTrial(const StudyLayout& layout, int index, RunControl& control, SharedTrialInputs& inputs) {
    const std::shared_ptr<TrainedTrial> trained = trainTrial(layout, index, control, inputs);
    if (!trained) return false;
    commitTrial(layout, *trained);
    return true;
}

std::vector<int> unfinishedTrials(const StudyLayout& layout, const std::vector<int>& trials) {
    std::vector<int> pending;
    for (const int k : trials)
        if (!QFileInfo::exists(layout.trialMarker(k))) pending.push_back(k);
    return pending;
}

int runTrials(const StudyLayout& layout, const std::vector<int>& trials, int jobs, RunControl& control,
              const std::function<void(int trial)>& onFinished) {
    std::atomic<std::size_t> next{0};
    std::atomic<int> finished{0};
    std::atomic<bool> failed{false};
    std::exception_ptr error;
    std::mutex mutex;  // guards `error` and serialises onFinished
    SharedTrialInputs inputs(layout);
    // Each worker commits a trained trial (waits for the disk, then writes its marker) while it
    // trains the next one; a trial counts as finished, and is reported, once it is marked.
    const auto work = [&] {
        std::future<int> committing;  // the trial being committed, if any
        const auto finishCommit = [&] {
            if (!committing.valid()) return;
            const int trial = committing.get();  // rethrows the commit's error
            ++finished;
            const std::lock_guard lock(mutex);
            if (onFinished) onFinished(trial);
        };
        try {
            for (std::size_t i; !failed && !control.stopRequested() && (i = next++) < trials.size();) {
                const std::shared_ptr<TrainedTrial> trained = trainTrial(layout, trials[i], control, inputs);
                finishCommit();
                if (!trained) break;
                committing = std::async(std::launch::async, [&layout, trained] {
                    commitTrial(layout, *trained);
                    return trained->index;
                });
            }
            finishCommit();
        } catch (...) {
            const std::lock_guard lock(mutex);
            if (!error) error = std::current_exception();
            failed = true;
        }  // an outstanding commit ends before `committing` is destroyed
    };
    std::vector<std::thread> workers;
    const int count = std::max(1, std::min<int>(jobs, static_cast<int>(trials.size())));
    for (int w = 1; w < count; ++w) workers.emplace_back(work);
    work();  // the calling thread is one of the workers
    for (std::thread& worker : workers) worker.join();
    if (error) std::rethrow_exception(error);
    return finished;
}

PendingTrials pendingTrials(const StudyLayout& layout) {
    std::vector<int> tuning(layout.plan().tuningCount()), finals(layout.plan().trialCount() - layout.plan().tuningCount());
    std::iota(tuning.begin(), tuning.end(), 0);
    std::iota(finals.begin(), finals.end(), layout.plan().tuningCount());
    return {unfinishedTrials(layout, tuning), unfinishedTrials(layout, finals)};
}

int runPendingTrials(const StudyLayout& layout, const PendingTrials& pending, int jobs, RunControl& control,
                     const std::function<void(int trial)>& onFinished) {
    int finished = runTrials(layout, pending.tuning, jobs, control, onFinished);
    if (!control.stopRequested()) finished += runTrials(layout, pending.finals, jobs, control, onFinished);  // needs phase 1
    return finished;
}

}  // namespace ml
