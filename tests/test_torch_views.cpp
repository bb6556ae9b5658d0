// Recorded PyTorch runs (python/momentum_lab's Recorder) opened in the app: the layer heat-map and
// the neuron inspector show the values of the tensors the training loop saw (written beside the
// run by tests/python/record_explainer_runs.py as tensors.json); models whose recorded layers form
// no chain (branches, a subset) are listed as blocks in the network diagram, each drawn alone and
// clickable. Skipped where python3 has no torch.
#include "MainWindow.h"
#include "TestSettings.h"
#include "model/Quantity.h"
#include "views/DiagnosticsDock.h"
#include "views/LayerBlockList.h"
#include "views/LayerHeatmapView.h"
#include "views/NetworkDiagramView.h"
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

#include <cmath>

using namespace ml;

namespace {

// tensors.json's matrix `name` after step `step` (1-based), entry (row, column).
float seen(const QJsonArray& steps, long step, const char* name, int row, int column) {
    return float(steps.at(step - 1)[name].toArray().at(row).toArray().at(column).toDouble());
}

// The same for recorded layer `layer` of a blocks folder's tensors.json.
float seenIn(const QJsonArray& steps, long step, const QString& layer, const char* name, int row, int column) {
    return float(steps.at(step - 1)[layer][name].toArray().at(row).toArray().at(column).toDouble());
}

QJsonArray tensorsOf(const QString& directory) {
    QFile file(directory + "/tensors.json");
    return file.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(file.readAll()).array() : QJsonArray();
}

// The heat-map of `layer` at the last step equals the recorded tensors of `name`, bias included.
void compareHeatmap(LayerHeatmapPanel* heatmap, const QJsonArray& steps, int layer, const QString& name, int rows,
                    int columns) {
    heatmap->setLayer(layer);
    heatmap->setShowBias(true);
    for (const auto& [quantity, key] :
         {std::pair{Quantity::Weight, "weight"}, std::pair{Quantity::Gradient, "gradient"},
          std::pair{Quantity::FirstMoment, "first_moment"}}) {
        heatmap->setQuantity(quantity);
        heatmap->view()->plot()->replot(QCustomPlot::rpImmediateRefresh);
        QCPColorMapData* cells = heatmap->view()->colorMap()->data();
        QCOMPARE(cells->keySize(), columns + 1);
        QCOMPARE(cells->valueSize(), rows);
        for (int row = 0; row < rows; ++row)
            for (int column = 0; column <= columns; ++column)
                QCOMPARE(float(cells->cell(column, row)), seenIn(steps, 6, name, key, row, column));
    }
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

    // Two branches joined by a head: three blocks; the picked one is drawn alone, its neurons
    // clicked open the inspector on that layer, and the heat-map shows each layer's tensors.
    void branchesAreBlocksToPickFrom() {
        const QString directory = QDir(folder_.path()).filePath("blocks-branches");
        const QJsonArray steps = tensorsOf(directory);
        QCOMPARE(steps.size(), 6);
        MainWindow window;
        window.resize(1366, 768);
        window.show();
        window.openRunFolder(directory);
        auto* blocks = window.findChild<LayerBlockList*>("layerBlocks");
        auto* diagram = window.findChild<NetworkDiagramPanel*>();
        QVERIFY(blocks && diagram);
        QVERIFY(blocks->isVisible());
        QCOMPARE(blocks->count(), 3);
        QCOMPARE(blocks->item(2)->text(), QString("head\nlinear 3 × 8"));
        QCOMPARE(diagram->pickedBlock(), 0);

        blocks->setCurrentRow(2);  // as a click on the block does
        QCOMPARE(diagram->pickedBlock(), 2);
        NetworkDiagramView* canvas = diagram->view();
        QTRY_VERIFY(!canvas->neuronCenter(0, 1).isNull());  // head's neuron 1, drawn as layer 0
        QVERIFY(canvas->neuronCenter(0, 3).isNull());       // head has 3 neurons
        QVERIFY(!canvas->neuronCenter(-1, 7).isNull());     // and 8 inputs
        QTest::mouseClick(canvas, Qt::LeftButton, {}, canvas->neuronCenter(0, 1).toPoint());
        NeuronInspector* inspector = window.neuronInspector();
        QCOMPARE(inspector->layer(), 2);
        QCOMPARE(inspector->neuron(), 1);
        QCOMPARE(inspector->history().historySize(), 6);

        // A neuron of another layer chosen elsewhere draws its block.
        diagram->setSelectedNeuron(1, 0);
        QCOMPARE(diagram->pickedBlock(), 1);
        QCOMPARE(blocks->currentRow(), 1);

        // The diagnostics of each recorded layer, from the snapshots (the recorder writes no
        // diagnostics.csv): head's gradient norm at every step is the recorded gradient's.
        auto* diagnostics = window.findChild<DiagnosticsDock*>();
        QVERIFY(diagnostics);
        QCOMPARE(diagnostics->recordCount(0), 6L);
        diagnostics->setCurve(DiagnosticsDock::Curve::GradientNorm);
        diagnostics->setLayer(2);
        diagnostics->curvesPlot()->replot(QCustomPlot::rpImmediateRefresh);
        const QCPGraph* norms = diagnostics->curvesPlot()->graph(0);
        QCOMPARE(norms->dataCount(), 6);
        for (int step = 1; step <= 6; ++step) {
            double squares = 0.0;
            for (int row = 0; row < 3; ++row)
                for (int column = 0; column <= 8; ++column)
                    squares += std::pow(double(seenIn(steps, step, "head", "gradient", row, column)), 2);
            QCOMPARE(long(norms->data()->at(step - 1)->key), long(step));
            QVERIFY2(std::abs(norms->data()->at(step - 1)->value - std::sqrt(squares)) <= 1e-5 * std::sqrt(squares),
                     qPrintable(QString("step %1").arg(step)));
        }

        auto* heatmap = window.findChild<LayerHeatmapPanel*>();
        compareHeatmap(heatmap, steps, 0, "left", 5, 4);
        compareHeatmap(heatmap, steps, 1, "right", 3, 4);
        compareHeatmap(heatmap, steps, 2, "head", 3, 8);
    }

    // Only the MLP's second layer recorded: its snapshots open (one block), not the metrics alone.
    void aSubsetOfLayersOpensWithItsSnapshots() {
        const QString directory = QDir(folder_.path()).filePath("blocks-subset");
        const QJsonArray steps = tensorsOf(directory);
        MainWindow window;
        window.resize(1366, 768);
        window.show();
        window.openRunFolder(directory);
        auto* blocks = window.findChild<LayerBlockList*>("layerBlocks");
        QVERIFY(blocks);
        QCOMPARE(blocks->count(), 1);
        compareHeatmap(window.findChild<LayerHeatmapPanel*>(), steps, 0, "2", 3, 5);
        // A folder of one network shows no blocks.
        window.openRunFolder(QDir(folder_.path()).filePath("adam"));
        QVERIFY(!blocks->isVisible());
        QCOMPARE(window.findChild<NetworkDiagramPanel*>()->pickedBlock(), -1);
    }

private:
    QTemporaryDir folder_;
};

QTEST_MAIN(TestTorchViews)
#include "test_torch_views.moc"
