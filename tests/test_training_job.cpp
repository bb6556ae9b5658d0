// One training assembly (core/instruments/TrainingJob.h): the app's live training leaves a run
// folder that reads back as what the app was shown, and none when the setting is off.
#include "AppSettings.h"
#include "TestSettings.h"
#include "diagnostics/DiagnosticsRecords.h"
#include "instruments/InstrumentRecords.h"
#include "optim/OptimizerCatalog.h"
#include "runfolder/RunFolderLayout.h"
#include "runfolder/RunFolderReader.h"
#include "session/TrainingSession.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace ml;

namespace {

Experiment smallExperiment() {
    Experiment e;
    e.network.setLayers("2-4-2");
    e.network.activation = Activation::Tanh;
    e.network.loss = LossKind::CrossEntropy;
    e.data = "toy:xor";
    e.batchSize = 16;
    e.steps = 60;
    for (const char* rule : {"momentum", "adam"}) e.runs.push_back({rule, rule, optimizerInfo(rule).defaults});
    return e;
}

bool sameFloat(float a, float b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

}  // namespace

class TestTrainingJob : public QObject {
    Q_OBJECT
    QTemporaryDir data_;  // the user's data location of this test

    QString runsRoot() const { return data_.filePath("runs"); }

    // Starts `experiment` as the app does (its runs-folder setting, the Diagnostics dock's "live
    // every") and waits for the end; collects what the feed delivered.
    void trainAsTheApp(TrainingSession& session, std::vector<StepMetrics>& metrics, InstrumentRecords& records) {
        session.setRunsFolder(AppSettings::liveRunsFolder());
        session.setDiagnosticsEvery(10);
        connect(&session, &TrainingSession::metricsArrived, this, [&](const std::vector<StepMetrics>& arrived) {
            metrics.insert(metrics.end(), arrived.begin(), arrived.end());
        });
        connect(&session, &TrainingSession::recordsArrived, this,
                [&](const InstrumentRecords& arrived) { records.append(InstrumentRecords(arrived)); });
        QVERIFY(session.start(smallExperiment()));
        QTRY_COMPARE_WITH_TIMEOUT(session.state(), SessionState::Finished, 30000);
    }

private Q_SLOTS:
    void initTestCase() {
        useOwnSettingsFolder();
        QVERIFY(data_.isValid());
        qputenv("MOMENTUM_LAB_RUNS_DIR", runsRoot().toUtf8());  // never the user's real data location
    }

    void liveTrainingLeavesARunFolderOfWhatWasShown() {
        AppSettings::setKeepRunFolders(true);
        QCOMPARE(AppSettings::liveRunsFolder(), runsRoot());
        TrainingSession session;
        std::vector<StepMetrics> delivered;
        InstrumentRecords records;
        trainAsTheApp(session, delivered, records);
        const QString folder = session.runFolder();
        QVERIFY2(folder.startsWith(runsRoot() + "/"), qPrintable(folder));

        const RunFolder read = readRunFolder(folder);
        QVERIFY(read.problems().empty());
        QCOMPARE(read.runs.size(), std::size_t{2});
        QCOMPARE(read.experiment.diagnosticsEvery, 10L);
        for (std::size_t run = 0; run < read.runs.size(); ++run) {
            std::vector<StepMetrics> shown;
            for (const StepMetrics& m : delivered)
                if (m.run == static_cast<int>(run)) shown.push_back(m);
            const std::vector<StepMetrics>& rows = read.runs[run].metrics.rows();
            QCOMPARE(rows.size(), shown.size());
            QCOMPARE(rows.size(), std::size_t{60});
            for (std::size_t i = 0; i < rows.size(); ++i) {
                QCOMPARE(rows[i].step, shown[i].step);
                QCOMPARE(rows[i].epoch, shown[i].epoch);
                QVERIFY(sameFloat(rows[i].trainLoss, shown[i].trainLoss));
                QVERIFY(sameFloat(rows[i].testLoss, shown[i].testLoss));
                QVERIFY(sameFloat(rows[i].testAccuracy, shown[i].testAccuracy));
            }
            QCOMPARE(read.runs[run].result.status, RunStatus::Done);
        }

        // The diagnostics the dock was shown are the ones in diagnostics.csv.
        const RunFolderLayout layout(folder, {"momentum", "adam"});
        for (int run = 0; run < 2; ++run) {
            const std::vector<DiagnosticsRecord> written = readDiagnosticsFile(layout.diagnosticsFile(run));
            std::vector<DiagnosticsRecord> shown;
            for (const RunDiagnostics& one : records.diagnostics)
                if (one.run == run) shown.push_back(one.record);
            QCOMPARE(written.size(), std::size_t{6});
            QCOMPARE(written.size(), shown.size());
            for (std::size_t i = 0; i < written.size(); ++i) {
                QCOMPARE(written[i].step, shown[i].step);
                QVERIFY(sameFloat(written[i].layers[1][0].gradientNorm, shown[i].layers[1][0].gradientNorm));
                QVERIFY(sameFloat(written[i].layers[0][3].updateNorm, shown[i].layers[0][3].updateNorm));
            }
        }
    }

    void settingOffLeavesNoRunFolder() {
        AppSettings::setKeepRunFolders(false);
        QVERIFY(AppSettings::liveRunsFolder().isEmpty());
        const QStringList before = QDir(runsRoot()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot);
        TrainingSession session;
        std::vector<StepMetrics> delivered;
        InstrumentRecords records;
        trainAsTheApp(session, delivered, records);
        QCOMPARE(delivered.size(), std::size_t{2 * 60});
        QVERIFY(session.runFolder().isEmpty());
        QCOMPARE(QDir(runsRoot()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot), before);
        AppSettings::setKeepRunFolders(true);
    }
};

QTEST_MAIN(TestTrainingJob)
#include "test_training_job.moc"
