#include "session/RunFolderFollower.h"

#include "InputError.h"
#include "io/Files.h"
#include "runfolder/RunCsv.h"
#include "runfolder/RunFolderLayout.h"
#include "runfolder/SnapshotFile.h"

#include <QFile>
#include <QFileInfo>

#include <utility>

namespace ml {

namespace {

// One poll's snapshots at most (the rest follow on the next poll): the window stays responsive
// when a follower starts on a folder that grew a lot since it was opened.
constexpr std::size_t kPollBytes = std::size_t(32) << 20;

std::size_t bytesOf(const Snapshot& snapshot) {
    std::size_t floats = 0;
    for (const LayerSnapshot& layer : snapshot.layers) floats += layer.floatCount();
    return floats * sizeof(float);
}

// A snapshots.bin whose two header lines are not both written yet is not read.
bool headerComplete(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return false;
    const QByteArray start = file.read(qint64(64) << 10);
    return start.count('\n') >= 2;
}

}  // namespace

struct RunFolderFollower::FollowedRun {
    int index = 0;
    std::string label;
    QString directory, metricsFile, snapshotsFile, summaryFile;
    long lastMetricsStep = 0;   // rows up to this step are shown
    qint64 metricsBytes = 0;    // the complete lines read (0: none yet)
    long lastSnapshotStep = 0;  // snapshots up to this step are shown
    qint64 snapshotBytes = -1;  // where the complete records read end (-1: not opened yet)
    int snapshotRecords = 0;
    std::shared_ptr<const Parameters> initial;  // weights_initial.json, once readable
    bool done = false;
};

void RunFolderFollower::markUnfinishedRunning(RunFolder& folder) {
    std::vector<std::string> labels;
    for (const RunRecord& record : folder.runs) labels.push_back(record.spec.label);
    const RunFolderLayout layout(folder.directory, labels);
    for (int i = 0; i < layout.runCount(); ++i)
        if (!QFileInfo::exists(layout.runSummaryFile(i)))
            folder.runs[std::size_t(i)].result.status = RunStatus::Running;
}

RunFolderFollower::RunFolderFollower(const RunFolder& folder, const std::vector<long>& snapshotsShown,
                                     Deliveries deliveries, QObject* parent)
    : QObject(parent), shell_{folder.directory, folder.experiment, {}}, deliver_(std::move(deliveries)) {
    std::vector<std::string> labels;
    for (const RunRecord& record : folder.runs) labels.push_back(record.spec.label);
    const RunFolderLayout layout(folder.directory, labels);
    for (int i = 0; i < layout.runCount(); ++i) {
        const RunRecord& record = folder.runs[std::size_t(i)];
        auto run = std::make_unique<FollowedRun>();
        run->index = i;
        run->label = record.spec.label;
        run->metricsFile = layout.metricsFile(i);
        run->snapshotsFile = layout.snapshotsFile(i);
        run->summaryFile = layout.runSummaryFile(i);
        run->directory = layout.runDirectory(i);
        if (const std::optional<StepMetrics>& last = record.metrics.last()) run->lastMetricsStep = last->step;
        if (std::size_t(i) < snapshotsShown.size()) run->lastSnapshotStep = snapshotsShown[std::size_t(i)];
        run->done = QFileInfo::exists(run->summaryFile);  // the open path showed it whole
        runs_.push_back(std::move(run));
    }
    // The watcher reports most appends at once; it misses some (on NFS and other network
    // filesystems a write from another host raises no event, and a file replaced by a rename drops
    // its watch), so a poll of well under a second backs it up.
    connect(&watcher_, &QFileSystemWatcher::fileChanged, this, &RunFolderFollower::poll);
    connect(&watcher_, &QFileSystemWatcher::directoryChanged, this, &RunFolderFollower::poll);
    connect(&poll_, &QTimer::timeout, this, &RunFolderFollower::poll);
    poll_.start(kPollMs);
    watchFiles();
}

RunFolderFollower::~RunFolderFollower() = default;

void RunFolderFollower::stop() {
    poll_.stop();
    if (!watcher_.files().isEmpty()) watcher_.removePaths(watcher_.files());
    if (!watcher_.directories().isEmpty()) watcher_.removePaths(watcher_.directories());
}

// The folder, each run's folder and the files that exist by now (files created later are found
// through their folder's event, or by the poll).
void RunFolderFollower::watchFiles() {
    QStringList paths{shell_.directory};
    for (const auto& run : runs_)
        for (const QString& path : {run->directory, run->metricsFile, run->snapshotsFile})
            if (QFileInfo::exists(path)) paths << path;
    paths.removeDuplicates();
    for (const QString& watched : watcher_.files() + watcher_.directories()) paths.removeAll(watched);
    if (!paths.isEmpty()) watcher_.addPaths(paths);
}

void RunFolderFollower::poll() {
    if (!isFollowing()) return;
    watchFiles();
    const QStringList before = std::exchange(problems_, {});
    bool allDone = true;
    for (const auto& run : runs_) {
        if (run->done) continue;
        // The summary is written after everything else: what it finds, the reads below have all.
        const bool summaryThere = QFileInfo::exists(run->summaryFile);
        readMetrics(*run);
        readSnapshots(*run);
        if (summaryThere && readSummary(*run)) continue;
        allDone = false;
    }
    for (const QString& message : problems_)
        if (!before.contains(message)) Q_EMIT problem(message);
    if (!allDone) return;
    stop();
    Q_EMIT finished();
}

void RunFolderFollower::report(const std::string& message) { problems_ << QString::fromStdString(message); }

void RunFolderFollower::readMetrics(FollowedRun& run) {
    QFile file(run.metricsFile);
    if (!file.open(QIODevice::ReadOnly)) return;               // not written yet
    if (file.size() < run.metricsBytes) run.metricsBytes = 0;  // written again from the start
    if (!file.seek(run.metricsBytes)) return;
    QByteArray chunk = file.readAll();
    const qsizetype end = chunk.lastIndexOf('\n');
    if (end < 0) return;  // no complete line since
    chunk.truncate(end + 1);
    try {
        // The lines after the first read carry no header: the parser is given it again.
        const std::vector<StepMetrics> rows =
            parseMetricsCsv(run.metricsBytes == 0 ? chunk : metricsHeader() + chunk, run.metricsFile, run.index);
        run.metricsBytes += end + 1;
        std::vector<StepMetrics> fresh;
        for (const StepMetrics& row : rows)
            if (row.step > run.lastMetricsStep) fresh.push_back(row);
        if (fresh.empty()) return;
        run.lastMetricsStep = fresh.back().step;
        if (deliver_.metrics) deliver_.metrics(fresh);
    } catch (const InputError& error) {
        report(run.label + ": " + error.what());
    }
}

void RunFolderFollower::readSnapshots(FollowedRun& run) {
    if (!QFileInfo::exists(run.snapshotsFile) || !headerComplete(run.snapshotsFile)) return;
    try {
        if (!run.initial) {  // written before the first snapshot; null while it is not there
            RunRecord where;
            where.directory = run.directory;
            run.initial = initialWeights(shell_, where);
        }
        SnapshotFileReader reader(run.snapshotsFile, run.index);
        if (run.snapshotBytes >= 0) reader.continueAt(run.snapshotBytes, run.snapshotRecords);
        else reader.skipThrough(run.lastSnapshotStep);  // shown by the open path already
        std::vector<SharedSnapshot> batch;
        std::size_t bytes = 0;
        while (bytes < kPollBytes) {
            std::optional<Snapshot> snapshot = reader.next();
            if (!snapshot) break;  // the end, or a record still being written: read again next time
            if (snapshot->step <= run.lastSnapshotStep) continue;
            snapshot->initialParameters = run.initial;
            run.lastSnapshotStep = snapshot->step;
            bytes += bytesOf(*snapshot);
            batch.push_back(std::make_shared<const Snapshot>(std::move(*snapshot)));
        }
        run.snapshotBytes = reader.endOfRecords();
        run.snapshotRecords = reader.records();
        if (!batch.empty() && deliver_.snapshots) deliver_.snapshots(batch);
    } catch (const InputError& error) {
        report(run.label + ": " + error.what());
    }
}

// The run's summary.csv, once it reads whole (it may be caught while written).
bool RunFolderFollower::readSummary(FollowedRun& run) {
    try {
        for (const RunResult& result : parseSummaryCsv(readFileBytes(run.summaryFile), run.summaryFile))
            if (result.label == run.label) {
                run.done = true;
                if (deliver_.finished) deliver_.finished(run.index, result);
                return true;
            }
    } catch (const InputError&) {}
    return false;
}

}  // namespace ml
