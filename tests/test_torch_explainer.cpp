// The update explainer on recorded PyTorch runs (python/momentum_lab's Recorder): for torch's SGD
// momentum, torch's Adam and the package's NeuronMeanSGD, recorded at every step by
// tests/python/record_explainer_runs.py, the parts recombine every connection's update to the
// recorded one (w_after - w_before in float32) from the recorded buffers; a record without a buffer
// the rule needs says which. Skipped where python3 has no torch.
#include "TestSettings.h"
#include "runfolder/RunFolderReader.h"
#include "runfolder/SnapshotFile.h"
#include "train/UpdateExplanation.h"

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cfloat>
#include <cmath>

using namespace ml;

class TestTorchExplainer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        useOwnSettingsFolder();
        QProcess recorder;
        recorder.setProcessChannelMode(QProcess::ForwardedChannels);
        recorder.start("/usr/bin/python3",
                       {QString(MOMENTUM_LAB_SOURCE_DIR) + "/tests/python/record_explainer_runs.py", folder_.path()});
        QVERIFY2(recorder.waitForStarted(), qPrintable(recorder.errorString()));
        QVERIFY(recorder.waitForFinished(120000));
        if (recorder.exitCode() == 77) QSKIP("python3 has no torch (python3-torch)");
        QCOMPARE(recorder.exitCode(), 0);
    }

    void recordedBuffersRecombineEveryUpdate_data() {
        QTest::addColumn<QString>("label");
        QTest::addColumn<QString>("optimizer");  // as config.json names it
        QTest::newRow("torch SGD momentum") << "sgd-momentum"
                                            << "momentum";
        QTest::newRow("torch Adam") << "adam"
                                    << "adam";
        QTest::newRow("NeuronMeanSGD") << "neuron-mean"
                                       << "neuron-mean";
    }

    void recordedBuffersRecombineEveryUpdate() {
        QFETCH(QString, label);
        QFETCH(QString, optimizer);
        const QString directory = QDir(folder_.path()).filePath(label);
        const RunFolder folder = readRunFolder(directory);
        QCOMPARE(QString::fromStdString(folder.experiment.runs.at(0).optimizer), optimizer);
        const std::vector<Snapshot> snapshots = readSnapshotFile(directory + "/snapshots.bin", 0);
        QCOMPARE(int(snapshots.size()), 6);
        int checked = 0;
        for (std::size_t i = 0; i < snapshots.size(); ++i) {
            const Snapshot& now = snapshots[i];
            const Snapshot* before = i > 0 ? &snapshots[i - 1] : nullptr;
            for (int layer = 0; layer < int(now.layers.size()); ++layer) {
                const Matrix& update = now.layers[std::size_t(layer)].update;
                for (int row = 0; row < update.rows(); ++row)
                    for (int column = 0; column < update.cols(); ++column) {
                        const UpdateExplanation e =
                            explainUpdate(folder.experiment.runs[0], now, before, layer, row, column);
                        QVERIFY2(e.explained, e.reason.c_str());
                        QVERIFY(!e.carriedInferred);
                        // torch's dw is w_after - w_before in float32: the rounding of w, besides the rule's own.
                        const double weight = now.layers[std::size_t(layer)].parameters(row, column);
                        const double tolerance = 2e-5 * std::abs(e.update) + 2 * FLT_EPSILON * std::abs(weight);
                        QVERIFY2(std::abs(e.recombined - e.update) <= tolerance,
                                 qPrintable(QString("step %1 layer %2 (%3, %4): recombined %5, recorded %6")
                                                .arg(now.step)
                                                .arg(layer)
                                                .arg(row)
                                                .arg(column)
                                                .arg(e.recombined, 0, 'g', 9)
                                                .arg(e.update, 0, 'g', 9)));
                        if (e.hasFirstMoment)
                            QVERIFY(std::abs(e.firstMoment - e.recordedFirstMoment) <=
                                    2e-5 * std::abs(e.recordedFirstMoment) + 1e-10);
                        ++checked;
                    }
            }
        }
        QCOMPARE(checked, 6 * (5 * 5 + 3 * 6));
    }

    // A record without a buffer the rule reads: the explainer names it instead of guessing.
    void aMissingBufferIsNamed() {
        const QString directory = QDir(folder_.path()).filePath("adam");
        const RunFolder folder = readRunFolder(directory);
        std::vector<Snapshot> snapshots = readSnapshotFile(directory + "/snapshots.bin", 0);
        QVERIFY(snapshots.size() >= 2);
        Snapshot now = snapshots[1];
        now.layers[0].secondMoment = Matrix();
        const UpdateExplanation e = explainUpdate(folder.experiment.runs[0], now, &snapshots[0], 0, 0, 0);
        QVERIFY(!e.explained);
        QVERIFY2(e.reason.find("second moment") != std::string::npos, e.reason.c_str());
    }

private:
    QTemporaryDir folder_;
};

QTEST_MAIN(TestTorchExplainer)
#include "test_torch_explainer.moc"
