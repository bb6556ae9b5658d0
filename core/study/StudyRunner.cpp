#include "study/StudyRunner.h"

#include "InputError.h"
#include "io/Files.h"
#include "io/FileError.h"
#include "io/JsonFile.h"
#include "study/TrialOutcome.h"
#include "study/TrialQueue.h"
#include "train/LockstepTrainer.h"
#include "train/RunFolderWriter.h"
#include "train/WeightsFile.h"

#include <QDir>
#include <QFileInfo>

#include <atomic>
#include <exception>
#include <mutex>
#include <numeric>
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

bool runTrial(const StudyLayout& layout, int index, RunControl& control, SharedTrialInputs& inputs) {
    const StudyPlan& plan = layout.plan();
    const StudyTrial& trial = plan.trial(index);
    stats::TrialPoint point = plan.point(trial.optimizer, trial.phase == StudyPhase::Tuning ? trial.number : 0);
    if (trial.phase == StudyPhase::Final) point = plan.point(trial.optimizer, inputs.selection(trial.task, trial.optimizer).number);
    const Experiment experiment = plan.experiment(trial, point);

    const QString folder = layout.trialDirectory(index);
    // An earlier attempt that did not finish: start again from an empty folder.
    if (QFileInfo::exists(folder) && !QDir(folder).removeRecursively()) throw FileError(folder, "cannot remove the unfinished trial");
    const SharedTrialInputs::Data data = inputs.data(experiment);
    LockstepTrainer trainer(experiment, data.split, loadInitialWeights(experiment));
    trainer.shareEvaluationChunks(data.trainChunks, data.testChunks);
    // The trial's files become durable in one step, before its marker says it is done (a trial
    // without a marker is run again from an empty folder).
    DurableBatch files;
    RunFolderWriter writer(folder, trainer, &files);
    trainer.addObserver(&writer);
    trainer.run(control);
    writer.finish();
    files.commit();
    const RunResult& result = trainer.result(0);
    if (result.status != RunStatus::Done && result.status != RunStatus::Diverged) return false;
    writeTrialMarker(layout, index, point, result.statusText());
    return true;
}

std::vector<int> unfinishedTrials(const StudyLayout& layout, const std::vector<int>& trials) {
    std::vector<int> pending;
    for (const int k : trials)
        if (!QFileInfo::exists(layout.trialMarker(k))) pending.push_back(k);
    return pending;
}

PendingTrials pendingTrials(const StudyLayout& layout) {
    std::vector<int> tuning(layout.plan().tuningCount()), finals(layout.plan().trialCount() - layout.plan().tuningCount());
    std::iota(tuning.begin(), tuning.end(), 0);
    std::iota(finals.begin(), finals.end(), layout.plan().tuningCount());
    return {unfinishedTrials(layout, tuning), unfinishedTrials(layout, finals)};
}

int runPendingTrials(const StudyLayout& layout, const PendingTrials& pending, int jobs, RunControl& control,
                     const std::function<void(int trial)>& onFinished) {
    TrialQueue queue(layout.plan(), pending.tuning, pending.finals);
    std::atomic<int> finished{0};
    std::exception_ptr error;
    std::mutex mutex;  // guards `error` and serialises onFinished
    SharedTrialInputs inputs(layout);
    const auto work = [&] {
        for (std::optional<int> trial; !control.stopRequested() && (trial = queue.take());) {
            try {
                if (!runTrial(layout, *trial, control, inputs)) break;  // stopped: unfinished
                queue.finished(*trial);
                ++finished;
                const std::lock_guard lock(mutex);
                if (onFinished) onFinished(*trial);
            } catch (...) {
                const std::lock_guard lock(mutex);
                if (!error) error = std::current_exception();
                break;
            }
        }
        queue.close();  // a stop or an error ends the others too (after their current trial)
    };
    std::vector<std::thread> workers;
    const int count = std::max(1, std::min(jobs, pending.count()));
    for (int w = 1; w < count; ++w) workers.emplace_back(work);
    work();  // the calling thread is one of the workers
    for (std::thread& worker : workers) worker.join();
    if (error) std::rethrow_exception(error);
    return finished;
}

}  // namespace ml
