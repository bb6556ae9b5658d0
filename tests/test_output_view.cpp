// The output view (ui/views/OutputView.h): its grid values are the network's outputs at the grid
// points by a forward pass written out here (classification: the predicted class and how sure;
// regression: the fitted curve; A − B: the difference); a trained xor network's decision regions
// classify the four corners; a network of more than two inputs is left out with its reason; the
// toy presets come in their numbers' order; the CLI export draws the view for a toy run.
#include "TestSettings.h"
#include "cli/Cli.h"
#include "command/ExportCommand.h"
#include "experiment/Presets.h"
#include "model/RunSelection.h"
#include "runfolder/RunFolderReader.h"
#include "views/OutputGrid.h"
#include "views/OutputView.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>
#include <qcustomplot.h>

#include <cmath>

using namespace ml;

namespace {

Experiment experimentOf(const std::vector<int>& sizes, LossKind loss, const std::string& data) {
    Experiment experiment;
    experiment.network = NetworkSpec(sizes, Activation::Tanh, loss);
    experiment.data = data;
    experiment.seed = 7;
    return experiment;
}

// Known weights of a dense network: entry (j, i) of layer l is a small value of its own.
Snapshot snapshotOf(const NetworkSpec& network, int run, float scale) {
    Snapshot snapshot;
    snapshot.run = run;
    snapshot.label = run == 0 ? "a" : "b";
    snapshot.step = 10;
    int fanIn = network.inputs();
    for (std::size_t l = 0; l < network.layers.size(); ++l) {
        LayerSnapshot layer;
        layer.parameters.resize(network.layers[l].size, fanIn + 1);
        for (Eigen::Index j = 0; j < layer.parameters.rows(); ++j)
            for (Eigen::Index i = 0; i < layer.parameters.cols(); ++i)
                layer.parameters(j, i) = scale * std::sin(float(1 + 3 * l + 5 * j + 7 * i));
        snapshot.layers.push_back(layer);
        fanIn = network.layers[l].size;
    }
    return snapshot;
}

// The network's outputs at one input, written out: tanh hidden layers, a linear last layer, a
// softmax for classification.
std::vector<double> handForward(const Snapshot& snapshot, std::vector<double> values, bool softmax) {
    for (std::size_t l = 0; l < snapshot.layers.size(); ++l) {
        const Matrix& w = snapshot.layers[l].parameters;
        std::vector<double> next(static_cast<std::size_t>(w.rows()));
        for (Eigen::Index j = 0; j < w.rows(); ++j) {
            double sum = w(j, w.cols() - 1);
            for (Eigen::Index i = 0; i + 1 < w.cols(); ++i) sum += w(j, i) * values[static_cast<std::size_t>(i)];
            next[static_cast<std::size_t>(j)] = l + 1 < snapshot.layers.size() ? std::tanh(sum) : sum;
        }
        values = next;
    }
    if (softmax) {
        double total = 0;
        for (double& v : values) total += (v = std::exp(v));
        for (double& v : values) v /= total;
    }
    return values;
}

}  // namespace

class TestOutputView : public QObject {
    Q_OBJECT

    QTemporaryDir root_;

private Q_SLOTS:
    void initTestCase() { useOwnSettingsFolder(); }

    // Each cell of each panel: the predicted class plus how sure (c + 0.99 (p − 1/k) / (1 − 1/k)),
    // at the cell's point of the plane; in A − B the probability of A's class, A's minus B's.
    void gridValuesAreTheNetworksOutputs() {
        const Experiment experiment = experimentOf({2, 3, 2}, LossKind::CrossEntropy, "toy:xor");
        RunSelection selection;
        selection.begin({"a", "b"});
        const Snapshot a = snapshotOf(experiment.network, 0, 1.5f), b = snapshotOf(experiment.network, 1, -0.8f);
        selection.deliver(std::vector<Snapshot>{a, b});
        OutputView view(&selection);
        view.setExperiment(experiment);
        view.setGridSize(7);
        view.refresh();
        QVERIFY2(view.message().isEmpty(), qPrintable(view.message()));
        QCOMPARE(view.columnCount(), 2);
        for (int panel = 0; panel < 2; ++panel) {
            QCPColorMapData* data = view.map(panel)->data();
            QCOMPARE(data->keySize(), 7);
            for (int row = 0; row < 7; ++row)
                for (int column = 0; column < 7; ++column) {
                    double x = 0, y = 0;
                    data->cellToCoord(column, row, &x, &y);
                    const std::vector<double> p = handForward(panel == 0 ? a : b, {x, y}, true);
                    const int c = p[1] > p[0] ? 1 : 0;
                    const double expected = c + 0.99 * (p[std::size_t(c)] - 0.5) / 0.5;
                    QVERIFY2(std::abs(data->cell(column, row) - expected) < 1e-4,
                             qPrintable(QString("panel %1 cell (%2, %3): %4, expected %5")
                                            .arg(panel)
                                            .arg(column)
                                            .arg(row)
                                            .arg(data->cell(column, row))
                                            .arg(expected)));
                }
        }
        selection.setMode(RunSelection::Mode::Difference);
        view.refresh();
        QCOMPARE(view.columnCount(), 1);
        QCPColorMapData* data = view.map(0)->data();
        for (int row = 0; row < 7; row += 3)
            for (int column = 0; column < 7; column += 2) {
                double x = 0, y = 0;
                data->cellToCoord(column, row, &x, &y);
                const std::vector<double> pa = handForward(a, {x, y}, true), pb = handForward(b, {x, y}, true);
                const std::size_t c = pa[1] > pa[0] ? 1 : 0;
                QVERIFY(std::abs(data->cell(column, row) - (pa[c] - pb[c])) < 1e-4);
            }
    }

    // One input: the fitted curve is the network's output along the line.
    void theFittedCurveIsTheNetworksOutput() {
        const Experiment experiment = experimentOf({1, 2, 2, 1}, LossKind::Mse, "toy:sine");
        RunSelection selection;
        selection.begin({"a"});
        const Snapshot a = snapshotOf(experiment.network, 0, 0.9f);
        selection.deliver(std::vector<Snapshot>{a});
        OutputView view(&selection);
        view.setExperiment(experiment);
        view.refresh();
        QVERIFY2(view.message().isEmpty(), qPrintable(view.message()));
        const QSharedPointer<QCPGraphDataContainer> curve = view.curve(0)->data();
        QCOMPARE(curve->size(), OutputView::kGridSize);
        QVERIFY(curve->at(0)->key < -M_PI && curve->at(curve->size() - 1)->key > M_PI);  // the data's range, padded
        for (int i = 0; i < curve->size(); i += 13)
            QVERIFY(std::abs(curve->at(i)->value - handForward(a, {curve->at(i)->key}, false)[0]) < 1e-4);
    }

    // Trained on xor (the preset, by the core's trainer through the CLI), the decision regions
    // give class 1 at the corners where x1 · x2 < 0 and class 0 at the others.
    void aTrainedXorNetworkClassifiesTheCorners() {
        const QString out = root_.filePath("xor");
        QCOMPARE(runCli({"momentum-lab-cli", "train", "--preset", "xor", "--quiet", "--out", out}), 0);
        const RunFolder folder = readRunFolder(out);
        const InputRange range{{-1.0, -1.0}, {1.0, 1.0}};
        OutputGrid grid(folder.experiment.network, range, 21);
        for (const RunRecord& run : folder.runs) {
            QVERIFY(!run.finalWeights.empty());
            BatchMatrix probabilities;
            QVERIFY(grid.compute(run.finalWeights, probabilities));
            const Eigen::VectorXi classes = predictedClasses(probabilities);
            for (const auto& [column, row] : {std::pair{1, 1}, {19, 1}, {1, 19}, {19, 19}}) {
                const double x = grid.coordinate(0, column), y = grid.coordinate(1, row);
                QCOMPARE(classes(grid.pointIndex(column, row)), x * y < 0 ? 1 : 0);
            }
        }
    }

    void aNetworkOfMoreThanTwoInputsIsLeftOut() {
        RunSelection selection;
        OutputView view(&selection);
        view.setExperiment(experimentOf({4, 3}, LossKind::CrossEntropy, "iris"));
        QCOMPARE(view.cannotDraw(),
                 QString("the network 4-3 has 4 inputs; the output view draws networks of 1 or 2 inputs"));
        view.refresh();
        QCOMPARE(view.message(), view.cannotDraw());
        QCOMPARE(view.columnCount(), 0);
    }

    void togglePresetsComeInTheirNumbersOrder() {
        QStringList ids;
        for (const Preset& preset : presets()) ids << QString::fromStdString(preset.id);
        QCOMPARE(ids.first(), QString("seed-diagram"));
        const qsizetype fit = ids.indexOf("fit-sine");
        QVERIFY(fit > ids.indexOf("instruments-digits"));
        QCOMPARE(ids.mid(fit, 4), QStringList({"fit-sine", "xor", "circles", "spiral"}));
    }

    // `momentum-lab-cli export` draws the view for a toy run with snapshots and leaves it out,
    // with its reason, for a network of 64 inputs (8 × 8 digits).
    void cliExportDrawsTheViewForAToyRun() {
        const QString toy = root_.filePath("circles");
        QCOMPARE(runCli({"momentum-lab-cli", "train", "--preset", "circles", "--epochs", "5", "--snapshots-every", "20",
                         "--quiet", "--out", toy}),
                 0);
        const QString out = root_.filePath("circles-export");
        QCOMPARE(runExportCommand({toy, "--out", out, "--dpi", "48"}), 0);
        QVERIFY(QFileInfo(QDir(out).filePath("network-output.png")).size() > 1000);
        // Its colour maps fit pdflatex's default main memory (about 12,000 matrix cells in one figure;
        // two runs' 200 x 200 grids, 80,000 cells, exceed it): written as means of square blocks.
        QFile tex(QDir(out).filePath("network-output.tex"));
        QVERIFY(tex.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(tex.readAll());
        qint64 cells = 0;
        int maps = 0;
        const QRegularExpression mesh("mesh/cols=(\\d+), mesh/rows=(\\d+)");
        for (auto it = mesh.globalMatch(text); it.hasNext(); ++maps) {
            const QRegularExpressionMatch match = it.next();
            cells += match.captured(1).toLongLong() * match.captured(2).toLongLong();
        }
        QCOMPARE(maps, 2);
        QVERIFY2(cells > 2 * 50 * 50 && cells <= 12000, qPrintable(QString::number(cells)));

        const QString digits = root_.filePath("digits");
        QCOMPARE(
            runCli({"momentum-lab-cli", "train", "--network", "64-10", "--loss", "cross-entropy", "--data", "digits",
                    "--steps", "20", "--snapshots-every", "10", "--optimizer", "momentum", "--quiet", "--out", digits}),
            0);
        const QString digitsOut = root_.filePath("digits-export");
        QCOMPARE(runExportCommand({digits, "--out", digitsOut, "--dpi", "48"}), 0);
        QVERIFY(!QFileInfo::exists(QDir(digitsOut).filePath("network-output.png")));
        QFile index(QDir(digitsOut).filePath("index.html"));
        QVERIFY(index.open(QIODevice::ReadOnly));
        QVERIFY(QString::fromUtf8(index.readAll()).contains("the network 64-10 has 64 inputs"));
    }
};

QTEST_MAIN(TestOutputView)
#include "test_output_view.moc"
