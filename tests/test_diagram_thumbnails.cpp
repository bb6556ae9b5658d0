// The network diagram's neuron functions (views/NeuronThumbnails.h): drawn inside the neurons of a
// 2-input network at the scrubber's step, one limit per column over every shown run, A − B in
// difference mode; circles and a disabled toggle (with the reason) for a 4-input network; the
// toggle remembered by the window from one session to the next.
#include "MainWindow.h"
#include "TestSettings.h"
#include "data/ToyData.h"
#include "model/RunSelection.h"
#include "nn/NeuronFunctions.h"
#include "views/NetworkDiagramView.h"

#include <QCheckBox>
#include <QImage>
#include <QPainter>
#include <QSet>
#include <QtTest>

#include <cmath>

using namespace ml;

namespace {

// A snapshot of a dense network of `sizes` with distinct weights that move with the step.
SharedSnapshot snapshotOf(const std::vector<int>& sizes, int run, long step) {
    auto snapshot = std::make_shared<Snapshot>();
    snapshot->run = run;
    snapshot->label = "run " + std::to_string(run);
    snapshot->step = step;
    for (std::size_t l = 0; l + 1 < sizes.size(); ++l) {
        LayerSnapshot layer;
        layer.parameters.resize(sizes[l + 1], sizes[l] + 1);
        for (Eigen::Index j = 0; j < layer.parameters.rows(); ++j)
            for (Eigen::Index i = 0; i < layer.parameters.cols(); ++i)
                layer.parameters(j, i) = 1.5f * std::sin(0.7f * float(j * layer.parameters.cols() + i) +
                                                         0.9f * float(run) + 0.05f * float(step));
        layer.firstMoment = layer.parameters;
        snapshot->layers.push_back(layer);
    }
    return snapshot;
}

Parameters parametersOf(const SharedSnapshot& snapshot) {
    Parameters parameters;
    for (const LayerSnapshot& layer : snapshot->layers) parameters.push_back(layer.parameters);
    return parameters;
}

Experiment experimentOf(const std::vector<int>& sizes, const std::string& data) {
    Experiment experiment;
    experiment.network = NetworkSpec(sizes, Activation::Tanh, LossKind::CrossEntropy);
    experiment.data = data;
    return experiment;
}

// The colours in `area` (relative to the centre of neuron (layer, neuron)) of a canvas drawn at its size.
QSet<QRgb> coloursAt(NetworkDiagramView* canvas, int layer, int neuron, QRect area) {
    QImage image(canvas->size(), QImage::Format_RGB32);
    QPainter painter(&image);
    canvas->render(painter, image.size());
    painter.end();
    const QPoint center = canvas->neuronCenter(layer, neuron).toPoint();
    QSet<QRgb> colours;
    for (int y = area.top(); y <= area.bottom(); ++y)
        for (int x = area.left(); x <= area.right(); ++x) colours.insert(image.pixel(center + QPoint(x, y)));
    return colours;
}

// A circle's fill, below its index: one colour.
const QRect kBelowIndex(-2, 6, 5, 3);
// Most of a thumbnail's square.
const QRect kSquare(-9, -9, 19, 19);

// The colours 6 px diagonally from the centre of neuron (layer, neuron): inside its circle (one
// fill) or near the corners of its thumbnail (the function's values there).
QSet<QRgb> cornerColours(NetworkDiagramView* canvas, int layer, int neuron) {
    QSet<QRgb> colours;
    for (const QPoint corner : {QPoint(-6, -6), QPoint(6, -6), QPoint(-6, 6), QPoint(6, 6)})
        colours += coloursAt(canvas, layer, neuron, QRect(corner, QSize(1, 1)));
    return colours;
}

}  // namespace

class TestDiagramThumbnails : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { useOwnSettingsFolder(); }

    void twoInputsDrawTheNeuronsFunctions() {
        const std::vector<int> sizes{2, 8, 8, 2};
        RunSelection selection;
        NetworkDiagramPanel panel(&selection);
        panel.resize(900, 500);
        panel.setExperiment(experimentOf(sizes, "toy:xor"));
        panel.setThumbnailSamples(16);
        auto* toggle = panel.findChild<QCheckBox*>(QStringLiteral("neuronFunctions"));
        QVERIFY(toggle && toggle->isEnabled());
        selection.begin({QStringLiteral("a"), QStringLiteral("b")});
        for (long step : {10L, 20L})
            selection.deliver(std::vector<SharedSnapshot>{snapshotOf(sizes, 0, step), snapshotOf(sizes, 1, step)});
        QCOMPARE(int(panel.canvases().size()), 2);
        QVERIFY(!panel.canvases()[0]->thumbnails());  // off by default: circles
        NetworkDiagramView* canvas = panel.canvases()[0];
        canvas->resize(420, 420);
        QCOMPARE(coloursAt(canvas, 0, 3, kBelowIndex).size(), 1);  // a circle's fill: its bias
        QCOMPARE(cornerColours(canvas, 0, 3).size(), 1);

        panel.setThumbnailsShown(true);
        for (NetworkDiagramView* view : panel.canvases()) QVERIFY(view->thumbnails());
        QVERIFY(coloursAt(canvas, 0, 3, kSquare).size() > 4);  // an image, not one fill
        QVERIFY(cornerColours(canvas, 0, 3).size() > 1);

        // The values are the network's own at the shown step, over the grid around the data.
        const NeuronThumbnails* shown = canvas->thumbnails();
        QCOMPARE(shown->columnCount(), 4);
        NeuronFunctions functions(NetworkSpec(sizes, Activation::Tanh, LossKind::CrossEntropy),
                                  InputGrid::around(*makeToyData("xor", 7).train, 16));
        const Parameters latest = parametersOf(snapshotOf(sizes, 0, 20));
        const std::vector<BatchMatrix> expected = functions.compute(latest, "run 0");
        for (int l = 0; l < 3; ++l) QVERIFY(shown->values(l + 1).isApprox(expected[std::size_t(l)]));
        QVERIFY(shown->values(0).isApprox(functions.grid().points()));

        // One limit per column over both runs: the largest |value| of that column in either.
        for (int c = 0; c < 4; ++c) {
            const double a = panel.canvases()[0]->thumbnails()->values(c).cwiseAbs().maxCoeff();
            const double b = panel.canvases()[1]->thumbnails()->values(c).cwiseAbs().maxCoeff();
            QCOMPARE(panel.canvases()[0]->thumbnails()->limit(c), std::max(a, b));
            QCOMPARE(panel.canvases()[1]->thumbnails()->limit(c), std::max(a, b));
        }

        // The scrubber's step: the weights of step 10.
        selection.setStep(10);
        const Parameters earlier = parametersOf(snapshotOf(sizes, 0, 10));
        QVERIFY(panel.canvases()[0]->thumbnails()->values(2).isApprox(functions.compute(earlier, "run 0")[1]));

        // A − B: the difference of the two runs' maps (the inputs stay the inputs).
        selection.setMode(RunSelection::Mode::Difference);
        QCOMPARE(int(panel.canvases().size()), 1);
        const Parameters other = parametersOf(snapshotOf(sizes, 1, 10));
        const BatchMatrix difference = functions.compute(earlier, "a")[2] - functions.compute(other, "b")[2];
        QVERIFY(panel.view()->thumbnails()->values(3).isApprox(difference));
        QVERIFY(panel.view()->thumbnails()->values(0).isApprox(functions.grid().points()));

        panel.setThumbnailsShown(false);
        QVERIFY(!panel.view()->thumbnails());
    }

    void oneInputDrawsCurves() {
        const std::vector<int> sizes{1, 2, 2, 1};
        RunSelection selection;
        NetworkDiagramPanel panel(&selection);
        panel.setExperiment(experimentOf(sizes, "toy:sine"));
        panel.setThumbnailsShown(true);
        selection.begin({QStringLiteral("a")});
        selection.deliver(std::vector<SharedSnapshot>{snapshotOf(sizes, 0, 1)});
        NetworkDiagramView* canvas = panel.view();
        canvas->resize(500, 400);
        QVERIFY(canvas->thumbnails());
        QCOMPARE(canvas->thumbnails()->values(1).rows(), Eigen::Index(64));  // 64 points over the line
        QVERIFY(coloursAt(canvas, 0, 1, kSquare).size() > 1);                // a curve on white
    }

    void fourInputsKeepCircles() {
        const std::vector<int> sizes{4, 8, 3};
        RunSelection selection;
        NetworkDiagramPanel panel(&selection);
        panel.setExperiment(experimentOf(sizes, "iris"));
        auto* toggle = panel.findChild<QCheckBox*>(QStringLiteral("neuronFunctions"));
        QVERIFY(toggle && !toggle->isEnabled());
        QVERIFY2(toggle->toolTip().contains(QStringLiteral("4 inputs")), qPrintable(toggle->toolTip()));
        panel.setThumbnailsShown(true);  // remembered from a 2-input network: kept, but not drawn
        selection.begin({QStringLiteral("a")});
        selection.deliver(std::vector<SharedSnapshot>{snapshotOf(sizes, 0, 1)});
        NetworkDiagramView* canvas = panel.view();
        canvas->resize(500, 400);
        QVERIFY(canvas->hasSnapshot());
        QVERIFY(!canvas->thumbnails());
        QCOMPARE(coloursAt(canvas, 0, 2, kBelowIndex).size(), 1);  // a circle's fill
        QVERIFY(panel.thumbnailsShown());
    }

    void theWindowRemembersTheToggle() {
        {
            MainWindow window;
            auto* diagram = window.findChild<NetworkDiagramPanel*>();
            QVERIFY(!diagram->thumbnailsShown());  // circles at first
            diagram->setThumbnailsShown(true);
        }
        MainWindow window;
        QVERIFY(window.findChild<NetworkDiagramPanel*>()->thumbnailsShown());
    }
};

QTEST_MAIN(TestDiagramThumbnails)
#include "test_diagram_thumbnails.moc"
