// Recorded PyTorch runs (python/momentum_lab's Recorder) opened in the app: the layer heat-map and
// the neuron inspector show the values of the tensors the training loop saw (written beside the
// run by tests/python/record_explainer_runs.py as tensors.json). Skipped where python3 has no torch.
#include "MainWindow.h"
#include "TestSettings.h"
#include "model/Quantity.h"
#include "views/LayerHeatmapView.h"
#include "views/NeuronHistoryPlot.h"
#include "views/NeuronInspector.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <qcustomplot.h>

using namespace ml;

namespace {

// tensors.json's matrix `name` after step `step` (1-based), entry (row, column).
float seen(const QJsonArray& steps, long step, const char* name, int row, int column) {
    return float(steps.at(step - 1)[name].toArray().at(row).toArray().at(column).toDouble());
}

}  // namespace

class TestTorchViews : public QObject {
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

    void heatmapAndInspectorShowTheRecordedTensors_data() {
        QTest::addColumn<QString>("label");
        QTest::newRow("torch SGD momentum") << "sgd-momentum";
        QTest::newRow("torch Adam") << "adam";
        QTest::newRow("NeuronMeanSGD") << "neuron-mean";
    }

    void heatmapAndInspectorShowTheRecordedTensors() {
        QFETCH(QString, label);
        const QString directory = QDir(folder_.path()).filePath(label);
        QFile file(directory + "/tensors.json");
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonArray steps = QJsonDocument::fromJson(file.readAll()).array();
        QCOMPARE(steps.size(), 6);

        MainWindow window;
        window.resize(1366, 768);
        window.show();
        window.openRunFolder(directory);
        auto* heatmap = window.findChild<LayerHeatmapPanel*>();
        QVERIFY(heatmap);
        heatmap->setLayer(0);
        heatmap->setShowBias(true);
        const std::pair<Quantity, const char*> quantities[] = {
            {Quantity::Weight, "weight"}, {Quantity::Gradient, "gradient"}, {Quantity::FirstMoment, "first_moment"}};
        for (const auto& [quantity, name] : quantities) {
            heatmap->setQuantity(quantity);
            heatmap->view()->plot()->replot(QCustomPlot::rpImmediateRefresh);
            QCPColorMapData* cells = heatmap->view()->colorMap()->data();
            QCOMPARE(cells->keySize(), 4 + 1);  // inputs, then the bias
            QCOMPARE(cells->valueSize(), 5);
            for (int row = 0; row < 5; ++row)
                for (int column = 0; column < 5; ++column)
                    QCOMPARE(float(cells->cell(column, row)), seen(steps, 6, name, row, column));
        }

        // One connection's history, step by step: momentum, gradient and weight strips.
        NeuronInspector* inspector = window.neuronInspector();
        inspector->setConnection(0, 2, 1);
        QCOMPARE(inspector->history().historySize(), 6);
        const char* const strips[] = {"first_moment", "gradient", "weight"};
        for (int strip = 0; strip < 3; ++strip) {
            const QCPGraph* graph = inspector->plot()->graph(strip);
            QCOMPARE(graph->dataCount(), 6);
            for (int i = 0; i < 6; ++i) {
                const auto point = graph->data()->at(i);
                QCOMPARE(long(point->key), long(i + 1));
                QCOMPARE(float(point->value), seen(steps, i + 1, strips[strip], 2, 1));
            }
        }
    }

private:
    QTemporaryDir folder_;
};

QTEST_MAIN(TestTorchViews)
#include "test_torch_views.moc"
