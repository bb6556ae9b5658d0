// Following a run folder while another process writes it (MainWindow::openRunFolder(DIR, follow),
// session/RunFolderFollower.h): tests/follow_trickle.py writes a CLI run folder into a new folder
// the way a slow training does, every metrics line, snapshot record and the summary cut in two with
// a pause in between. The window never shows a partial record (every row and snapshot it holds is
// the reference's of that step, whole) and catches up within a second of each append.
#include "MainWindow.h"
#include "TestSettings.h"
#include "cli/Cli.h"
#include "model/MetricsHistory.h"
#include "model/RunComparison.h"
#include "model/RunSelection.h"
#include "runfolder/RunCsv.h"
#include "runfolder/SnapshotFile.h"
#include "views/DiagnosticsDock.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QProcess>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <map>

using namespace ml;

namespace {

// The follower's promise: a second behind the writer. The sanitizer builds run the app several
// times slower, so they are held to five.
#ifdef MOMENTUM_LAB_SANITIZED
constexpr qint64 kCatchUpMs = 5000;
#else
constexpr qint64 kCatchUpMs = 1000;
#endif

bool sameLayers(const Snapshot& shown, const Snapshot& reference) {
    if (shown.layers.size() != reference.layers.size()) return false;
    for (std::size_t l = 0; l < shown.layers.size(); ++l) {
        const LayerSnapshot &a = shown.layers[l], &b = reference.layers[l];
        if (a.parameters != b.parameters || a.gradient != b.gradient || a.firstMoment != b.firstMoment ||
            a.update != b.update || a.neuronMeans != b.neuronMeans)
            return false;
    }
    return true;
}

QByteArray fileBytes(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

}  // namespace

class TestFollow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { useOwnSettingsFolder(); }

    void followsAGrowingRunFolderWithoutPartialRecords() {
        QTemporaryDir tmp;
        const QString reference = tmp.filePath("reference"), followed = tmp.filePath("followed");
        QCOMPARE(runCli({"momentum-lab-cli",
                         "train",
                         "--network",
                         "2-6-2",
                         "--activation",
                         "tanh",
                         "--loss",
                         "cross-entropy",
                         "--data",
                         "toy:xor",
                         "--batch",
                         "50",
                         "--steps",
                         "12",
                         "--seed",
                         "3",
                         "--optimizer",
                         "momentum",
                         "--snapshots-every",
                         "1",
                         "--quiet",
                         "--out",
                         reference}),
                 0);
        std::map<long, Snapshot> expectedSnapshots;
        for (Snapshot& snapshot : readSnapshotFile(reference + "/snapshots.bin", 0))
            expectedSnapshots.emplace(snapshot.step, std::move(snapshot));
        std::map<long, StepMetrics> expectedRows;
        for (const StepMetrics& row : parseMetricsCsv(fileBytes(reference + "/metrics.csv"), "metrics.csv", 0))
            expectedRows.emplace(row.step, row);
        QCOMPARE(int(expectedSnapshots.size()), 12);

        QProcess writer;
        writer.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        writer.start("/usr/bin/python3", {QFINDTESTDATA("follow_trickle.py"), reference, followed, "150"});
        QVERIFY2(writer.waitForStarted(), qPrintable(writer.errorString()));
        QVERIFY(writer.waitForReadyRead(30000));
        QCOMPARE(writer.readLine().trimmed(), QByteArray("ready"));

        MainWindow window;
        window.openRunFolder(followed, /*follow=*/true);
        QVERIFY(window.isFollowing());
        QCOMPARE(window.comparison()->summary()->result(0).status, RunStatus::Running);  // until its summary
        // Every arrival is checked as it comes: a record shown cut off would differ from the reference.
        QStringList partial;
        RunSelection* selection = window.runSelection();
        connect(selection, &RunSelection::snapshotsArrived, this, [&] {
            const Snapshot* latest = selection->store().latest(0);
            if (!latest || !expectedSnapshots.count(latest->step) ||
                !sameLayers(*latest, expectedSnapshots.at(latest->step)))
                partial << QString("snapshot at step %1").arg(latest ? latest->step : -1);
        });
        connect(window.comparison(), &RunComparison::changed, this, [&] {
            for (const StepMetrics& row : window.comparison()->history().rows(0))
                if (!expectedRows.count(row.step) || expectedRows.at(row.step).trainLoss != row.trainLoss)
                    partial << QString("metrics row at step %1").arg(row.step);
        });

        int appends = 0;
        qint64 worstLagMs = 0;
        for (;;) {
            QTRY_VERIFY_WITH_TIMEOUT(writer.canReadLine() || writer.state() == QProcess::NotRunning, 30000);
            const QByteArray line = writer.readLine().trimmed();
            if (line.isEmpty()) {
                QVERIFY2(writer.state() == QProcess::Running, "the writer ended without saying done");
                continue;
            }
            const QList<QByteArray> words = line.split(' ');
            if (words.front() != "appended") {
                QCOMPARE(words.front(), QByteArray("done"));
                break;
            }
            const long step = words.at(1).toLong();
            const qint64 appendedMs = words.at(2).toLongLong();
            auto caughtUp = [&] {
                const Snapshot* latest = selection->store().latest(0);
                const std::vector<StepMetrics> rows = window.comparison()->history().rows(0);
                return latest && latest->step == step && !rows.empty() && rows.back().step == step;
            };
            QTRY_VERIFY_WITH_TIMEOUT(caughtUp(), 2 * kCatchUpMs);
            worstLagMs = std::max(worstLagMs, QDateTime::currentMSecsSinceEpoch() - appendedMs);
            QCOMPARE(long(selection->store().steps({0}).size()), step);  // none missing, none twice
            ++appends;
        }
        QTRY_COMPARE_WITH_TIMEOUT(writer.state(), QProcess::NotRunning, 10000);
        QCOMPARE(writer.exitCode(), 0);
        QCOMPARE(appends, 12);
        QVERIFY2(partial.isEmpty(), qPrintable(partial.join(", ")));
        QVERIFY2(worstLagMs <= kCatchUpMs, qPrintable(QString("caught up %1 ms after an append").arg(worstLagMs)));
        // The run writes no diagnostics.csv: each followed snapshot gave its diagnostics.
        QCOMPARE(window.findChild<DiagnosticsDock*>()->recordCount(0), 12L);

        // The summary, written last, ends the following, once it is whole.
        QTRY_VERIFY_WITH_TIMEOUT(!window.isFollowing(), 2 * kCatchUpMs);
        QCOMPARE(window.comparison()->summary()->result(0).status, RunStatus::Done);
        QCOMPARE(window.comparison()->summary()->result(0).steps, 12L);
        QCOMPARE(int(window.comparison()->history().rows(0).size()), int(expectedRows.size()));
    }

    void stopFollowingKeepsWhatWasShown() {
        QTemporaryDir tmp;
        const QString folder = tmp.filePath("run");
        QCOMPARE(runCli({"momentum-lab-cli", "train", "--network", "2-4-2", "--data", "toy:xor", "--steps", "5",
                         "--optimizer", "sgd", "--quiet", "--out", folder}),
                 0);
        QFile::remove(folder + "/summary.csv");  // as if still training
        MainWindow window;
        window.openRunFolder(folder, /*follow=*/true);
        QVERIFY(window.isFollowing());
        QVERIFY(window.statusBar()->findChild<QLabel*>("followLabel")->text().contains("Following"));
        window.openRunFolder(folder);  // another folder opened: following ends
        QVERIFY(!window.isFollowing());
        QCOMPARE(int(window.comparison()->history().rows(0).size()), 5);
    }
};

QTEST_MAIN(TestFollow)
#include "test_follow.moc"
