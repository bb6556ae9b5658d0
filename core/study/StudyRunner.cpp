#include "study/StudyRunner.h"

#include "InputError.h"
#include "io/Files.h"
#include "io/FileError.h"
#include "io/JsonFile.h"
#include "study/CommitThread.h"
#include "study/TrialLock.h"
#include "study/TrialOutcome.h"
#include "study/TrialQueue.h"
#include "instruments/TrainingJob.h"
#include "runfolder/RunFolderLayout.h"

#include <QDir>
#include <QFileInfo>

#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <string>
#include <thread>

namespace ml {

void prepareStudyFolder(const QString& studyFile, const QString& directory) {
    const QByteArray bytes = readFileBytes(studyFile);
    const QJsonObject given = parseJsonObject(bytes, studyFile);
    const QString copy = QDir(directory).filePath(studyfolder::kStudy);
    if (!QFileInfo::exists(copy) && QFileInfo::exists(QDir(directory).filePath(runfolder::kConfig)))
        throw InputError(directory.toStdString() +
                         ": holds a run (config.json); a study needs a folder of its own (--out)");
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

// A trial trained and its files written: what is left is its commit.
struct TrainedTrial {
    int index = 0;
    stats::TrialPoint point;
    std::string status;
    DurableBatch files;  // written, not yet synced
    TrialLock lock;      // held until its trial.json is written
};

// Trains trial `index` into its folder; nullopt when the control stopped it (it stays unfinished).
std::optional<TrainedTrial> trainTrial(const StudyLayout& layout, int index, RunControl& control,
                                       SharedTrialInputs& inputs) {
    const StudyPlan& plan = layout.plan();
    const StudyTrial& trial = plan.trial(index);
    const stats::TrialPoint point = trial.phase == StudyPhase::Tuning
                                        ? inputs.tuningPoint(trial)
                                        : inputs.selection(trial.task, trial.optimizer).point;
    const Experiment experiment = plan.experiment(trial, point);

    const QString folder = layout.trialDirectory(index);
    TrialLock lock(layout, index);  // before anything of the folder is touched
    // An earlier attempt that did not finish: start again from an empty folder (a link there is
    // removed itself; the folder it points at is not ours to empty).
    removePath(folder);
    const SharedTrialInputs::Data data = inputs.data(experiment);
    DurableBatch files;
    TrainingJob job(experiment, data.split, {});  // a trial records no instruments
    job.trainer().shareEvaluationChunks(data.trainChunks, data.testChunks);
    job.writeRunFolder(folder, &files);
    job.run(control);
    job.finish();
    const RunResult& result = job.trainer().result(0);
    if (result.status != RunStatus::Done && result.status != RunStatus::Diverged) return std::nullopt;
    return TrainedTrial{index, point, result.statusText(), std::move(files), std::move(lock)};
}

// Whether a trial's files still need their own sync before its marker, or were synced with the
// rest of the commit thread's group.
enum class TrialFiles { SyncThem, AlreadySynced };

// The trial's files are on disk before its marker says it is done (a trial without a marker is run
// again from an empty folder).
void commitTrial(const StudyLayout& layout, TrainedTrial& trained, TrialFiles files) {
    if (files == TrialFiles::SyncThem) trained.files.commit();
    writeTrialMarker(layout, trained.index, trained.point, trained.status);
}

}  // namespace

bool runTrial(const StudyLayout& layout, int index, RunControl& control, SharedTrialInputs& inputs) {
    std::optional<TrainedTrial> trained = trainTrial(layout, index, control, inputs);
    if (!trained) return false;
    commitTrial(layout, *trained, TrialFiles::SyncThem);
    return true;
}

std::vector<int> unfinishedTrials(const StudyLayout& layout, const std::vector<int>& trials) {
    std::vector<int> pending;
    for (const int k : trials) {
        if (!QFileInfo::exists(layout.trialMarker(k))) pending.push_back(k);
        else checkTrialMarker(layout, k);  // a finished trial of another (or an edited) study is refused
    }
    return pending;
}

PendingTrials pendingTrials(const StudyLayout& layout) {
    std::vector<int> tuning(layout.plan().tuningCount()),
        finals(layout.plan().trialCount() - layout.plan().tuningCount());
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
    const auto fail = [&] {
        const std::lock_guard lock(mutex);
        if (!error) error = std::current_exception();
    };
    // On the commit thread: each group of trained trials is synced at once, then each trial's
    // marker is written, one at a time in the order they were trained.
    bool groupSyncFailed = false;  // the commit thread's own: no trial is committed after it
    const auto syncGroup = [&] {
        try {
            if (!groupSyncFailed) syncFileSystemOf(layout.root());
        } catch (...) {
            groupSyncFailed = true;
            fail();
            queue.close();
        }
    };
    const auto commit = [&](TrainedTrial& trained) {
        if (groupSyncFailed) return;  // its files may not be on disk: it stays unfinished
        try {
            commitTrial(layout, trained, TrialFiles::AlreadySynced);
            queue.finished(trained.index);
            ++finished;
            const std::lock_guard lock(mutex);
            if (onFinished) onFinished(trained.index);
        } catch (...) {
            fail();
            queue.close();
        }
    };
    SharedTrialInputs inputs(layout);
    CommitThread committer(static_cast<std::size_t>(std::max(1, jobs)), syncGroup);
    const auto work = [&] {
        for (std::optional<int> trial; !control.stopRequested() && (trial = queue.take());) {
            try {
                std::optional<TrainedTrial> trained = trainTrial(layout, *trial, control, inputs);
                if (!trained) break;  // stopped: unfinished
                // The worker goes on with the next trial while this one's files are synced.
                auto job = std::make_shared<TrainedTrial>(std::move(*trained));  // std::function copies
                committer.submit([&commit, job] { commit(*job); });
            } catch (...) {
                fail();
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
    committer.drain();
    if (error) std::rethrow_exception(error);
    return finished;
}

}  // namespace ml
