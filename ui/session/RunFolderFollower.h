#pragma once
// Follows a run folder that another process is still writing (a CLI training, a recorded PyTorch
// training, a Slurm trial): after the folder was opened as usual (readRunFolder, then shown), it
// hands on every metrics row and snapshot appended since, at most a second behind, and never a
// partial record: a metrics.csv line without its line break and a snapshots.bin record cut off
// while it was written wait until they are complete. A run is done when its summary.csv (written
// last, runfolder/RunFolderLayout.h) can be read; following stops when every run is done, or on
// stop().
#include "runfolder/RunFolderReader.h"
#include "session/FolderSnapshots.h"

#include <QFileSystemWatcher>
#include <QObject>
#include <QTimer>

#include <functional>
#include <memory>
#include <vector>

namespace ml {

class RunFolderFollower : public QObject {
    Q_OBJECT
public:
    struct Deliveries {
        std::function<void(const std::vector<StepMetrics>&)> metrics;  // RunComparison::addMetrics
        SnapshotDelivery snapshots;                                    // RunSelection::deliver
        std::function<void(int run, const RunResult&)> finished;       // RunComparison::finishRun
    };
    // The poll that backs up the watcher: well under the second a follower may be behind.
    static constexpr int kPollMs = 400;

    // `folder`: as read when opened (its metrics rows are not handed on again); `snapshotsShown`:
    // per run, the step of the last snapshot the open path showed (0: none), not handed on again.
    RunFolderFollower(const RunFolder& folder, const std::vector<long>& snapshotsShown, Deliveries deliveries,
                      QObject* parent = nullptr);
    ~RunFolderFollower() override;

    // Before the folder is shown for following: a run without its summary.csv is still being
    // written, so it reads as running (not "done" because its final weights are there already, nor
    // "stopped" because they are not yet).
    static void markUnfinishedRunning(RunFolder& folder);

    const QString& directory() const { return shell_.directory; }
    bool isFollowing() const { return poll_.isActive(); }
    void stop();
    // Reads what was appended since the last call (the watcher and the timer call it).
    void poll();

Q_SIGNALS:
    void finished();                       // every run wrote its summary: following stopped
    void problem(const QString& message);  // a file that cannot be read (following goes on)

private:
    struct FollowedRun;
    void readMetrics(FollowedRun& run);
    void readSnapshots(FollowedRun& run);
    bool readSummary(FollowedRun& run);
    void watchFiles();
    void report(const std::string& message);

    RunFolder shell_;  // the folder without its runs (where initialWeights looks)
    Deliveries deliver_;
    std::vector<std::unique_ptr<FollowedRun>> runs_;
    QFileSystemWatcher watcher_;
    QTimer poll_;
    QStringList problems_;  // this poll's; each is reported once while it lasts
};

}  // namespace ml
