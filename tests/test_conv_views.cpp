// The desktop views of a convolutional network: the diagram's channel columns and
// kernel lines (views/ChannelUnits.h, views/ConvLayerDrawing.h), the heat-map's grid of kernels
// (views/KernelGrid.h), the inspector's "Kernels" tab (views/KernelImagePlot.h) on snapshots of a
// real conv network trained a few steps on digits (1x8x8), and its "Feature maps" tab
// (views/FeatureMapView.h) on hand-made kernels.
#include "data/DataRegistry.h"
#include "optim/OptimizerCatalog.h"
#include "session/FolderSnapshots.h"
#include "train/LockstepTrainer.h"
#include "runfolder/RunFolderWriter.h"
#include "views/ChannelUnits.h"
#include "views/FeatureMapView.h"
#include "views/KernelGrid.h"
#include "views/KernelImagePlot.h"
#include "views/LayerHeatmapView.h"
#include "views/NetworkDiagramView.h"
#include "views/NeuronHistoryPlot.h"
#include "views/NeuronInspector.h"
#include "model/RunSelection.h"

#include <QImage>
#include <QPainter>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <qcustomplot.h>

using namespace ml;

namespace {

constexpr const char* kNetwork = "1x8x8-conv4k3-pool2-10";  // conv: 1 -> 4 channels of 6x6, pooled to 3x3

struct LastSnapshots : TrainingObserver {
    bool wantsSnapshot(int, long) override { return true; }
    void snapshotTaken(const SharedSnapshot& shared) override {
        if (shared->run >= int(last.size())) last.resize(std::size_t(shared->run) + 1);
        last[std::size_t(shared->run)] = *shared;
    }
    std::vector<Snapshot> last;
};

NetworkSpec specOf(const std::string& text) {
    NetworkSpec spec;
    spec.setLayers(text);
    spec.loss = LossKind::CrossEntropy;
    spec.activation = Activation::Relu;
    return spec;
}

// Momentum and the per-channel neuron mean, 3 steps of batch 32 (every quantity is non-zero);
// with `folder`, also written there as the CLI's --out does.
std::vector<Snapshot> trainConv(const std::string& network = kNetwork, const QString& folder = {}) {
    Experiment experiment;
    experiment.network = specOf(network);
    experiment.data = "digits";
    experiment.steps = 3;
    experiment.batchSize = 32;
    experiment.runs = {{"momentum", "momentum", optimizerInfo("momentum").defaults},
                       {"neuron-mean", "neuron-mean", optimizerInfo("neuron-mean").defaults}};
    LockstepTrainer trainer(experiment, loadDataSplit(experiment.data, experiment.seed));
    LastSnapshots observer;
    trainer.addObserver(&observer);
    std::unique_ptr<RunFolderWriter> writer;
    if (!folder.isEmpty()) {
        writer = std::make_unique<RunFolderWriter>(folder, trainer);
        trainer.addObserver(writer.get());
    }
    RunControl control;
    trainer.run(control);
    if (writer) writer->finish();
    return observer.last;
}

QImage rendered(const NetworkDiagramView& view, QSize size = {900, 600}) {
    QImage image(size, QImage::Format_RGB32);
    QPainter painter(&image);
    view.render(painter, size);
    return image;
}

}  // namespace

class TestConvViews : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { snapshots_ = trainConv(); }

    // Each group of g columns becomes its mean; the bias column stays.
    void unitMeansAverageEachGroup() {
        Matrix values(2, 5);
        values << 1, 3, 10, 20, 7,  //
            -2, 0, 4, 4, -1;
        Matrix expected(2, 3);
        expected << 2, 15, 7,  //
            -1, 4, -1;
        QVERIFY(unitMeans(values, 2) == expected);
        QVERIFY(unitMeans(values, 1) == values);
    }

    // Units of 1x8x8-conv4k3-pool2-10: 1 input channel, 4 conv channels (kernels of 9 weights), 10
    // outputs reading each channel's 3x3 pooled pixels; with and without the spec.
    void unitsOfAConvNetwork() {
        const Snapshot& s = snapshots_.at(0);
        for (const bool withSpec : {true, false}) {
            const NetworkUnits units = networkUnits(s, withSpec ? std::optional(specOf(kNetwork)) : std::nullopt);
            QCOMPARE(units.columnSizes(), (std::vector<int>{1, 4, 10}));
            QVERIFY(units.inputChannels);
            QCOMPARE(units.layers.at(0).kernel, 3);
            QCOMPARE(units.layers.at(0).columnsPerInput, 9);
            QCOMPARE(units.layers.at(1).kernel, 0);
            QCOMPARE(units.layers.at(1).columnsPerInput, 9);
            QCOMPARE(units.layers.at(0).poolAfter, withSpec ? QStringLiteral("max 2×2") : QString());
        }
        // A spec that does not fit the matrices is ignored, not trusted.
        QCOMPARE(networkUnits(s, specOf("1x8x8-conv4k5-10")).columnSizes(), (std::vector<int>{1, 4, 10}));
        // A dense network is unchanged: one unit per input.
        Snapshot plain;
        plain.layers.resize(1);
        plain.layers[0].parameters = Matrix::Zero(3, 8);
        QCOMPARE(networkUnits(plain, specOf("7-3")).columnSizes(), (std::vector<int>{7, 3}));
    }

    // The diagram: one box per channel, one line per (input channel, output channel) kernel, its
    // colour the kernel's mean; the dense layer after the conv has one line per channel.
    void diagramDrawsChannelsAndKernels() {
        const Snapshot& s = snapshots_.at(0);
        NetworkDiagramView view;
        view.resize(900, 600);
        view.setNetwork(specOf(kNetwork));
        view.setQuantity(Quantity::Weight);
        view.showSnapshot(s);
        QCOMPARE(view.units().columnSizes(), (std::vector<int>{1, 4, 10}));
        QVERIFY(!view.neuronCenter(-1, 0).isNull());
        for (int channel = 0; channel < 4; ++channel) QVERIFY(!view.neuronCenter(0, channel).isNull());
        QVERIFY(view.neuronCenter(0, 4).isNull());  // no fifth channel
        const std::vector<Matrix>& values = view.drawnValues();
        QCOMPARE(values.at(0).rows(), 4);      // out channels
        QCOMPARE(values.at(0).cols(), 1 + 1);  // in channels + bias
        QCOMPARE(values.at(1).rows(), 10);
        QCOMPARE(values.at(1).cols(), 4 + 1);
        const Matrix& kernels = s.layers[0].parameters;
        for (int o = 0; o < 4; ++o) {
            QCOMPARE(values[0](o, 0), kernels.row(o).head(9).mean());
            QCOMPARE(values[0](o, 1), kernels(o, 9));  // the bias
            // The kernel line's tooltip names the channels and what its colour is.
            const QPointF a = view.neuronCenter(-1, 0), b = view.neuronCenter(0, o);
            const QString tip = view.toolTipAt(a + 0.5 * (b - a));
            QVERIFY2(tip.contains(QStringLiteral("layer 0, channel 0 → layer 1, channel %1").arg(o)), qPrintable(tip));
            QVERIFY2(tip.contains(QStringLiteral("mean of weight over the 3×3 kernel")), qPrintable(tip));
        }
        QCOMPARE(values[1](7, 2), s.layers[1].parameters.row(7).segment(2 * 9, 9).mean());
        QVERIFY(view.toolTipAt(view.neuronCenter(0, 1)).contains(QStringLiteral("layer 1, channel 1")));
        // Clicking a kernel line selects its output channel (there is no single connection to follow).
        QSignalSpy neurons(&view, &NetworkDiagramView::neuronClicked);
        const QPointF a = view.neuronCenter(-1, 0), b = view.neuronCenter(0, 2);
        QTest::mouseClick(&view, Qt::LeftButton, {}, (a + 0.5 * (b - a)).toPoint());
        QCOMPARE(neurons.count(), 1);
        QCOMPARE(neurons.at(0).at(1).toInt(), 2);
    }

    // Every quantity, with and without the spec, wide conv layers (16 of 32 channels drawn) and
    // the small multiples: no crash, something coloured on screen.
    void diagramDrawsEveryQuantity() {
        const std::vector<Snapshot> wide = trainConv("1x8x8-conv32k3-pool2-conv8k2-16-10");
        for (const Snapshot* s : std::vector<const Snapshot*>{&snapshots_.at(0), &snapshots_.at(1), &wide.at(1)}) {
            for (const Quantity quantity : allQuantities()) {
                NetworkDiagramView view;
                view.setQuantity(quantity);
                view.showSnapshot(*s);
                QVERIFY(!rendered(view).isNull());
                view.setCompact(true);
                QVERIFY(!rendered(view, {300, 200}).isNull());
            }
        }
        NetworkDiagramView view;
        view.setNetwork(specOf("1x8x8-conv32k3-pool2-conv8k2-16-10"));
        view.showSnapshot(wide.at(0));
        QCOMPARE(view.units().columnSizes(), (std::vector<int>{1, 32, 8, 16, 10}));
        QCOMPARE(view.units().layers.at(2).columnsPerInput, 4);  // 16 reads conv8k2's 8x2x2, flattened
        int drawn = 0;
        for (int c = 0; c < 32; ++c) drawn += !view.neuronCenter(0, c).isNull();
        QCOMPARE(drawn, kMaxDrawnNeurons);
    }

    // A run folder's final weights carry the conv layers' k*k columns per input, like live
    // snapshots: the heat-map and inspector (which see no spec) read them as conv layers too.
    void folderSnapshotsKnowTheirKernels() {
        QTemporaryDir dir;
        trainConv(kNetwork, dir.filePath("run"));
        const std::vector<SharedSnapshot> final = finalSnapshots(readRunFolder(dir.filePath("run")));
        QCOMPARE(int(final.size()), 2);
        QCOMPARE(final[0]->layers.at(0).columnsPerInput, 9);
        QCOMPARE(final[0]->layers.at(1).columnsPerInput, 1);
        QCOMPARE(networkUnits(*final[0], std::nullopt).layers.at(0).kernel, 3);
        QCOMPARE(layerTitle(*final[0], 0), QStringLiteral("layer 1: conv 3×3, 1 → 4 channels"));
    }

    // The grid: out rows by in columns of k x k kernels, gaps between them, the bias after a gap.
    void kernelGridLaysOutKernels() {
        const KernelGrid grid(2, 3, 2, true);  // 2 out channels, 3 in channels, 2x2 kernels
        QCOMPARE(grid.width(), 3 * 3 + 1);
        QCOMPARE(grid.height(), 2 * 3 - 1);
        Matrix values(2, 3 * 4 + 1);
        for (int j = 0; j < 2; ++j)
            for (int i = 0; i < 13; ++i) values(j, i) = float(100 * j + i);
        const Matrix image = grid.image(values);
        // Out channel 1, in channel 2, kernel row 1, column 0: column (2*2 + 1)*2 + 0 = 10.
        QCOMPARE(image(3 + 1, 2 * 3 + 0), 110.0f);
        QCOMPARE(image(0, 1), 1.0f);               // out 0, in 0, row 0, column 1
        QCOMPARE(image(1, 3), 6.0f);               // out 0, in 1, row 1, column 0: (1*2 + 1)*2 = 6
        QVERIFY(std::isnan(image(2, 0)));          // the gap between output channels
        QVERIFY(std::isnan(image(0, 2)));          // between input channels
        QCOMPARE(image(4, grid.biasX()), 112.0f);  // out 1's bias, on each of its rows
        QCOMPARE(grid.sourceOf(2 * 3 + 0, 4), std::optional(std::make_pair(1, 10)));
        QVERIFY(!grid.sourceOf(2, 0));
        QCOMPARE(KernelGrid(2, 3, 2, false).width(), 3 * 3 - 1);
    }

    // The heat-map of a conv layer is the kernel grid; the dense layer after it stays a matrix.
    void heatmapShowsAGridOfKernels() {
        const Snapshot& s = snapshots_.at(1);
        for (const Quantity quantity : allQuantities()) {
            LayerHeatmapView view;
            view.resize(900, 600);
            view.setQuantity(quantity);
            view.showSnapshot(s);
            view.plot()->replot(QCustomPlot::rpImmediateRefresh);
            const Matrix values = extractQuantity(s, 0, quantity);
            QCPColorMapData* data = view.colorMap()->data();
            if (values.size() == 0) continue;
            QCOMPARE(data->keySize(), 1 * 4 + 1);    // one input channel's 3 columns, gap, bias
            QCOMPARE(data->valueSize(), 4 * 4 - 1);  // 4 output channels of 3 rows, gaps between
            for (int o = 0; o < 4; ++o)
                for (int y = 0; y < 3; ++y)
                    for (int x = 0; x < 3; ++x) QCOMPARE(float(data->cell(x, o * 4 + y)), values(o, y * 3 + x));
            view.setLayer(1);
            QCOMPARE(view.colorMap()->data()->keySize(), 36 + 1);
            QCOMPARE(view.colorMap()->data()->valueSize(), 10);
        }
        QCOMPARE(layerTitle(s, 0), QStringLiteral("layer 1: conv 3×3, 1 → 4 channels"));
        // A click on a kernel pixel names its matrix entry: out channel 2, kernel row 1, column 2.
        LayerHeatmapView view;
        view.resize(900, 600);
        view.showSnapshot(s);
        view.plot()->replot(QCustomPlot::rpImmediateRefresh);
        QSignalSpy cells(&view, &LayerHeatmapView::cellClicked);
        const QPoint at(int(view.colorMap()->keyAxis()->coordToPixel(2)),
                        int(view.colorMap()->valueAxis()->coordToPixel(2 * 4 + 1)));
        QTest::mouseClick(view.plot(), Qt::LeftButton, {}, at);
        QCOMPARE(cells.count(), 1);
        QCOMPARE(cells.at(0).at(1).toInt(), 2);
        QCOMPARE(cells.at(0).at(2).toInt(), 1 * 3 + 2);
    }

    // The inspector's Kernels tab: for a conv channel, its kernel per quantity and panel; disabled
    // for a dense neuron.
    void inspectorShowsAChannelsKernels() {
        RunSelection selection;
        selection.begin({QStringLiteral("momentum"), QStringLiteral("neuron-mean")});
        selection.deliver(snapshots_);
        NeuronInspector inspector(&selection);
        inspector.resize(900, 700);
        inspector.setImageShape({8, 8});
        inspector.setNeuron(0, 2);
        QVERIFY(inspector.tabs()->isTabEnabled(2));
        QVERIFY(!inspector.tabs()->isTabEnabled(1));  // "As image": the kernels are no 8x8 image
        KernelImagePlot* kernels = inspector.kernels();
        QCOMPARE(kernels->columnCount(), 2);
        kernels->replot(QCustomPlot::rpImmediateRefresh);
        for (int column = 0; column < 2; ++column) {
            for (int row = 0; row < int(KernelImagePlot::quantities().size()); ++row) {
                const Matrix values = extractQuantity(snapshots_.at(std::size_t(column)), 0,
                                                      KernelImagePlot::quantities()[std::size_t(row)]);
                QCPColorMapData* data = kernels->map(row, column)->data();
                QCOMPARE(data->keySize(), 3);
                QCOMPARE(data->valueSize(), 3);
                for (int y = 0; y < 3; ++y)
                    for (int x = 0; x < 3; ++x) QCOMPARE(float(data->cell(x, y)), values(2, y * 3 + x));
            }
        }
        // One scale per quantity row over both runs: the largest |weight| of the two kernels.
        const double largest =
            double(std::max(snapshots_[0].layers[0].parameters.row(2).head(9).cwiseAbs().maxCoeff(),
                            snapshots_[1].layers[0].parameters.row(2).head(9).cwiseAbs().maxCoeff()));
        QCOMPARE(kernels->scale(0)->dataRange().upper, largest);
        // "Over steps" names a kernel's weights by input channel and kernel position.
        QCOMPARE(inspector.plot()->graph(0)->name(), QStringLiteral("in channel 0, (0, 0)"));
        QCOMPARE(connectionName(1, 2 * 9 + 5, 8 * 9, {}, 9), QStringLiteral("in channel 2, (1, 2)"));
        QCOMPARE(connectionName(1, 8 * 9, 8 * 9, {}, 9), QStringLiteral("bias"));
        inspector.setNeuron(1, 3);
        QVERIFY(!inspector.tabs()->isTabEnabled(2));
    }

    // The Feature maps tab: channel 1 of a hand-made conv layer is the identity kernel (centre 1,
    // padding 1), so its map after relu is the test image itself (digits are >= 0) and its max
    // pooling the largest pixel of each 2x2 window; at step 2 the kernel is doubled, so are the
    // maps. Scrubbing to another step and choosing another test example redraw them.
    void featureMapsOfAnIdentityKernel() {
        Experiment experiment;
        experiment.network = specOf("1x8x8-conv2k3p1-pool2-10");
        experiment.data = "digits";
        const std::shared_ptr<const Dataset> test = loadDataSplit("digits", experiment.seed).test;
        auto snapshotAt = [](long step, float identity) {
            Snapshot s;
            s.label = "hand-made";
            s.step = step;
            s.layers.resize(2);
            s.layers[0].parameters = Matrix::Zero(2, 9 + 1);
            s.layers[0].parameters(0, 0) = -1.0f;  // channel 0: something else
            s.layers[0].parameters(1, 4) = identity;
            s.layers[0].columnsPerInput = 9;
            s.layers[1].parameters = Matrix::Constant(10, 2 * 16 + 1, 0.1f);
            return s;
        };
        RunSelection selection;
        selection.begin({QStringLiteral("hand-made")});
        selection.deliver(std::vector<Snapshot>{snapshotAt(1, 1.0f)});
        selection.deliver(std::vector<Snapshot>{snapshotAt(2, 2.0f)});
        NeuronInspector inspector(&selection);
        inspector.resize(900, 700);
        inspector.setExperiment(experiment);
        inspector.setNeuron(0, 1);
        QVERIFY(inspector.tabs()->isTabEnabled(3));
        inspector.tabs()->setCurrentIndex(3);
        FeatureMapView* view = inspector.featureMaps();
        QVERIFY2(view->message().isEmpty(), qPrintable(view->message()));
        QCOMPARE(view->columnCount(), 1);
        QVERIFY(view->hasPooling());

        auto checkMaps = [&](int example, float factor) {
            Batch batch;
            const std::array<Eigen::Index, 1> indices{example};
            test->gather(indices, batch);
            QCPColorMapData* input = view->inputMap()->data();
            QCPColorMapData* activation = view->map(0, 0)->data();
            QCPColorMapData* pooled = view->map(1, 0)->data();
            QCOMPARE(activation->keySize(), 8);
            QCOMPARE(activation->valueSize(), 8);
            QCOMPARE(pooled->keySize(), 4);
            QCOMPARE(pooled->valueSize(), 4);
            for (int y = 0; y < 8; ++y)
                for (int x = 0; x < 8; ++x) {
                    const float pixel = batch.inputs(0, y * 8 + x);
                    QCOMPARE(float(input->cell(x, y)), pixel);
                    QCOMPARE(float(activation->cell(x, y)), std::max(factor * pixel, 0.0f));
                }
            for (int y = 0; y < 4; ++y)
                for (int x = 0; x < 4; ++x) {
                    float largest = 0.0f;
                    for (int i = 0; i < 2; ++i)
                        for (int j = 0; j < 2; ++j)
                            largest = std::max(largest, factor * batch.inputs(0, (2 * y + i) * 8 + 2 * x + j));
                    QCOMPARE(float(pooled->cell(x, y)), largest);
                }
        };
        checkMaps(0, 2.0f);  // live: the latest step
        selection.setStep(1);
        checkMaps(0, 1.0f);
        view->setExample(7);
        checkMaps(7, 1.0f);
        selection.setStep(2);
        checkMaps(7, 2.0f);
        // A dense neuron has no feature maps.
        inspector.setNeuron(1, 3);
        QVERIFY(!inspector.tabs()->isTabEnabled(3));
    }

private:
    std::vector<Snapshot> snapshots_;
};

QTEST_MAIN(TestConvViews)
#include "test_conv_views.moc"
