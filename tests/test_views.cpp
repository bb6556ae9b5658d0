// The three network views and what they share: quantity extraction from a snapshot, the diverging
// colour scale, the diagram's hit-testing (click, tooltip), the inspector's bounded history and
// connection choice, the heat-map's cells (and its redraw time for 784-128-10).
#include "data/DataRegistry.h"
#include "model/DecimatingHistory.h"
#include "optim/OptimizerCatalog.h"
#include "session/SnapshotRouter.h"
#include "train/LockstepTrainer.h"
#include "views/DivergingColorScale.h"
#include "views/LayerHeatmapView.h"
#include "views/NetworkDiagramView.h"
#include "views/NeuronInspector.h"
#include "views/Quantity.h"
#include "views/SharingGroups.h"
#include "views/ViewControls.h"
#include "views/SummaryPanel.h"
#include "model/RunSummaryModel.h"

#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QTableView>
#include <QPainter>
#include <QHelpEvent>
#include <QSignalSpy>
#include <QToolTip>
#include <QTabWidget>
#include <QtTest>
#include <qcustomplot.h>

using namespace ml;

Q_DECLARE_METATYPE(ml::MeanScope)
Q_DECLARE_METATYPE(ml::BiasMode)
Q_DECLARE_METATYPE(ml::Matrix)

namespace {

Matrix rows2x3(std::initializer_list<float> values) {
    Matrix m(2, 3);
    auto it = values.begin();
    for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 3; ++i) m(j, i) = *it++;
    return m;
}

// The hand-made one-layer snapshot: 2 neurons, 2 inputs + bias; no second moment.
Snapshot handMadeSnapshot(MeanScope scope = MeanScope::FanIn, BiasMode bias = BiasMode::Own) {
    Snapshot snapshot;
    snapshot.label = "hand-made";
    snapshot.step = 3;
    snapshot.scope = scope;
    snapshot.bias = bias;
    LayerSnapshot layer;
    layer.parameters = rows2x3({0.5f, -0.25f, 0.125f, 1.0f, 2.0f, -3.0f});
    layer.gradient = rows2x3({0.1f, 0.2f, 0.3f, -0.4f, -0.5f, -0.6f});
    layer.firstMoment = rows2x3({1, 2, 3, 4, 5, 9});
    layer.update = rows2x3({-0.01f, -0.02f, -0.03f, 0.04f, 0.05f, 0.06f});
    snapshot.layers.push_back(layer);
    return snapshot;
}

// A snapshot of a network of the given sizes whose entries are all distinct.
Snapshot syntheticSnapshot(const std::vector<int>& sizes, int run = 0, long step = 1) {
    Snapshot snapshot;
    snapshot.run = run;
    snapshot.label = "run " + std::to_string(run);
    snapshot.step = step;
    snapshot.scope = MeanScope::FanIn;
    for (std::size_t l = 0; l + 1 < sizes.size(); ++l) {
        const int out = sizes[l + 1], in = sizes[l] + 1;
        LayerSnapshot layer;
        layer.parameters.resize(out, in);
        for (int j = 0; j < out; ++j)
            for (int i = 0; i < in; ++i)
                layer.parameters(j, i) = std::sin(0.7f * float(j * in + i) + 0.01f * float(step));
        layer.gradient = 0.1f * layer.parameters.reverse();
        layer.firstMoment = 0.5f * layer.parameters + layer.gradient;
        layer.update = -0.01f * layer.firstMoment;
        snapshot.layers.push_back(layer);
    }
    return snapshot;
}

bool sameMatrix(const Matrix& a, const Matrix& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() && (a.size() == 0 || a.isApprox(b, 1e-6f));
}

QPointF midpoint(QPointF a, QPointF b) { return (a + b) / 2.0; }

// Keeps the last snapshot of every run.
class LastSnapshots : public TrainingObserver {
public:
    bool wantsSnapshot(int, long) override { return true; }
    void snapshotTaken(const Snapshot& snapshot) override {
        if (snapshot.run >= int(last.size())) last.resize(std::size_t(snapshot.run) + 1);
        last[std::size_t(snapshot.run)] = snapshot;
        if (snapshot.run == 1) history.push_back(snapshot);
    }
    std::vector<Snapshot> last;
    std::vector<Snapshot> history;  // run 1 only
};

LastSnapshots train(const std::string& sizes, const std::string& data, long steps, long batch) {
    Experiment experiment;
    experiment.network.sizes = NetworkSpec::parseSizes(sizes);
    experiment.network.loss = data.rfind("toy:sine", 0) == 0 ? LossKind::Mse : LossKind::CrossEntropy;
    experiment.data = data;
    experiment.steps = steps;
    experiment.batchSize = batch;
    experiment.runs = {{"momentum", "momentum", optimizerInfo("momentum").defaults},
                       {"neuron-mean", "neuron-mean", optimizerInfo("neuron-mean").defaults}};
    LockstepTrainer trainer(experiment, loadDataSplit(data, experiment.seed));
    LastSnapshots observer;
    trainer.addObserver(&observer);
    RunControl control;
    trainer.run(control);
    return observer;
}

// Counts clearly blue and clearly red pixels of a screenshot.
std::pair<int, int> blueAndRedPixels(const QImage& image) {
    int blue = 0, red = 0;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            const QColor c = image.pixelColor(x, y);
            blue += c.blue() > c.red() + 60;
            red += c.red() > c.blue() + 60 && c.green() < 160;
        }
    }
    return {blue, red};
}

// With MOMENTUM_LAB_VIEW_SHOTS=DIR the realistic-data test saves what it shows there, for review.
void saveShot(QWidget& widget, const QString& name) {
    const QString directory = qEnvironmentVariable("MOMENTUM_LAB_VIEW_SHOTS");
    QCoreApplication::processEvents();  // pending layout requests (combo sizes)
    if (!directory.isEmpty()) widget.grab().save(directory + QLatin1Char('/') + name + QStringLiteral(".png"));
}

// A SnapshotView that records what it is given; chooseRun() acts like a user picking a run.
class RecordingView : public SnapshotView {
public:
    explicit RecordingView(bool everySnapshot) : every_(everySnapshot) {}
    void setRuns(const QStringList& labels) override { runs = labels; }
    void showSnapshot(const Snapshot& snapshot) override { shown.push_back({snapshot.run, snapshot.step}); }
    void clear() override { ++clears; }
    bool wantsEverySnapshot() const override { return every_; }
    void chooseRun(int run) { reportRunChanged(run); }

    QStringList runs;
    std::vector<std::pair<int, long>> shown;  // (run, step) in arrival order
    int clears = 0;

private:
    bool every_;
};

}  // namespace

class TestViews : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Cross-entropy: "steps to" counts up to a test accuracy, not a batch loss of 0.01.
    void summaryCountsStepsToAccuracyForClassification() {
        std::vector<StepMetrics> metrics;
        auto add = [&metrics](int run, long step, float trainLoss, float accuracy) {
            StepMetrics m;
            m.run = run;
            m.step = step;
            m.epoch = 1;
            m.trainLoss = trainLoss;
            if (!std::isnan(accuracy)) {
                m.testLoss = 0.3f;
                m.testAccuracy = accuracy;
            }
            metrics.push_back(m);
        };
        add(0, 10, 0.5f, 0.5f);
        add(1, 10, 0.001f, 0.6f);  // a batch loss under 0.01 does not count here
        add(0, 15, 0.4f, NAN);
        add(1, 15, 0.001f, NAN);
        add(0, 20, 0.3f, 0.95f);
        add(1, 20, 0.001f, 0.8f);
        MetricsHistory history;
        history.reset({"a", "b"}, 0);
        history.append(metrics);
        RunSummaryModel model;
        model.reset({"a", "b"}, {"sgd", "adam"}, RunSummaryModel::Criterion::TestAccuracyAtLeast);
        model.addMetrics(metrics);
        QCOMPARE(model.threshold(), 0.9);
        QCOMPARE(model.index(0, RunSummaryModel::StepsToThreshold).data().toString(), QString("20"));
        QCOMPARE(model.index(1, RunSummaryModel::StepsToThreshold).data().toString(), QString("–"));
        QVERIFY(model.headerData(RunSummaryModel::StepsToThreshold, Qt::Horizontal).toString().contains("acc. ≥ 0.9"));
        model.setThreshold(0.55, history);  // recomputed from the history's evaluations
        QCOMPARE(model.index(0, RunSummaryModel::StepsToThreshold).data().toString(), QString("20"));
        QCOMPARE(model.index(1, RunSummaryModel::StepsToThreshold).data().toString(), QString("10"));
        SummaryPanel panel(&model);  // the field says which threshold it is
        QVERIFY(panel.findChild<QLabel*>() && panel.findChild<QLabel*>()->text().startsWith("Accuracy"));
    }

    // One naming scheme across views: the diagram's tooltip and both inspector tabs say "layer 1, neuron 1".
    void viewsNameNeuronsAlike() {
        NetworkDiagramView diagram;
        diagram.resize(600, 400);
        diagram.showSnapshot(syntheticSnapshot({2, 3, 1}));
        QVERIFY2(diagram.toolTipAt(diagram.neuronCenter(0, 1)).startsWith("layer 1, neuron 1"),
                 qPrintable(diagram.toolTipAt(diagram.neuronCenter(0, 1))));
        NeuronInspector inspector;
        inspector.setNeuron(0, 1);  // parameter layer 0, row 1
        for (QCustomPlot* plot : {inspector.plot(), inspector.imagePlot()}) {
            QStringList titles;
            for (const QCPTextElement* title : plot->findChildren<QCPTextElement*>()) titles << title->text();
            QVERIFY2(titles.join("|").contains("layer 1, neuron 1"), qPrintable(titles.join("|")));
        }
    }

    // The summary table sorts by value (2e-05 < 0.5 < 10, which text order would not give), a
    // threshold never reached ("–") last; unsorted it keeps the runs' order.
    void summaryTableSortsByValue() {
        RunSummaryModel model;
        model.reset({"a", "b", "c"}, {"sgd", "sgd", "sgd"});
        const float losses[] = {0.5f, 2e-5f, 10.0f};
        std::vector<StepMetrics> metrics;
        for (int run = 0; run < 3; ++run) {
            StepMetrics m;
            m.run = run;
            m.step = 1;
            m.epoch = 1;
            m.trainLoss = losses[run];
            metrics.push_back(m);
        }
        model.addMetrics(metrics);
        SummaryPanel panel(&model);
        QTableView* table = panel.table();
        auto labels = [table] {
            QStringList column;
            for (int row = 0; row < table->model()->rowCount(); ++row)
                column << table->model()->index(row, RunSummaryModel::Run).data().toString();
            return column.join("");
        };
        QCOMPARE(labels(), QString("abc"));
        QVERIFY(table->isSortingEnabled());
        table->sortByColumn(RunSummaryModel::TrainLoss, Qt::AscendingOrder);
        QCOMPARE(labels(), QString("bac"));
        table->sortByColumn(RunSummaryModel::TrainLoss, Qt::DescendingOrder);
        QCOMPARE(labels(), QString("cab"));
        // "Steps to <= 0.01": b reached it at step 1, a and c never ("–"): b first, both others after.
        table->sortByColumn(RunSummaryModel::StepsToThreshold, Qt::AscendingOrder);
        QCOMPARE(labels().left(1), QString("b"));
    }

    void directQuantitiesAreTheSnapshotMatrices();
    void neuronMeanAndDeviation_data();
    void neuronMeanAndDeviation();
    void colorScaleIsBlueWhiteRed();
    void historyStaysBoundedAndCoversTheRun();
    void diagramEmitsNeuronClicked();
    void diagramTooltipNamesTheConnectionValue();
    void diagramSaysWhatIsNotKeptAndTruncatesWideLayers();
    void diagramPanelShowsOnlyTheChosenRun();
    void inspectorKeepsHistoryBounded();
    void inspectorShowsTheWholeRunWhenSelectedLate();
    void inspectorArchiveStaysWithinItsCapacity();
    void archiveThinsEvenlyAndRejectsRepeats();
    void inspectorPlotsTheLargestMomentumConnections();
    void heatmapCellsHoldTheQuantity();
    void heatmapRedrawsA784x128Layer();
    void viewsShowTrainedNetworks();
    void routerFansSnapshotsOutToEveryView();
    void secondMomentGroupMeanFollowsTheRunsScope();
    void onlyKeptQuantitiesAreOffered();
    void diagramAndInspectorShowGroupSizes();
};

void TestViews::directQuantitiesAreTheSnapshotMatrices() {
    const Snapshot s = handMadeSnapshot();
    const LayerSnapshot& layer = s.layers.front();
    QVERIFY(sameMatrix(extractQuantity(s, 0, Quantity::Weight), layer.parameters));
    QVERIFY(sameMatrix(extractQuantity(s, 0, Quantity::Gradient), layer.gradient));
    QVERIFY(sameMatrix(extractQuantity(s, 0, Quantity::FirstMoment), layer.firstMoment));
    QVERIFY(sameMatrix(extractQuantity(s, 0, Quantity::Update), layer.update));
    QCOMPARE(extractQuantity(s, 0, Quantity::SecondMoment).size(), 0);  // not kept
    QCOMPARE(extractQuantity(s, 1, Quantity::Weight).size(), 0);        // no such layer

    Snapshot noMomentum = s;
    noMomentum.layers.front().firstMoment = Matrix();
    QCOMPARE(extractQuantity(noMomentum, 0, Quantity::NeuronMeanMomentum).size(), 0);
    QCOMPARE(extractQuantity(noMomentum, 0, Quantity::DeviationFromNeuronMean).size(), 0);
    QCOMPARE(int(allQuantities().size()), 8);
    for (Quantity q : allQuantities()) QVERIFY(!displayName(q).isEmpty());
}

void TestViews::neuronMeanAndDeviation_data() {
    QTest::addColumn<MeanScope>("scope");
    QTest::addColumn<BiasMode>("bias");
    QTest::addColumn<Matrix>("mean");
    // firstMoment = [1 2 | 3; 4 5 | 9]
    QTest::newRow("fan-in, own bias") << MeanScope::FanIn << BiasMode::Own << rows2x3({1.5f, 1.5f, 3, 4.5f, 4.5f, 9});
    QTest::newRow("fan-in, joined bias") << MeanScope::FanIn << BiasMode::Join << rows2x3({2, 2, 2, 6, 6, 6});
    QTest::newRow("fan-out, own bias") << MeanScope::FanOut << BiasMode::Own << rows2x3({2.5f, 3.5f, 3, 2.5f, 3.5f, 9});
    QTest::newRow("layer, joined bias") << MeanScope::Layer << BiasMode::Join << rows2x3({4, 4, 4, 4, 4, 4});
    QTest::newRow("none: fan-in row means") << MeanScope::None << BiasMode::Own << rows2x3({1.5f, 1.5f, 3, 4.5f, 4.5f, 9});
}

void TestViews::neuronMeanAndDeviation() {
    QFETCH(MeanScope, scope);
    QFETCH(BiasMode, bias);
    QFETCH(Matrix, mean);
    const Snapshot s = handMadeSnapshot(scope, bias);
    const Matrix extractedMean = extractQuantity(s, 0, Quantity::NeuronMeanMomentum);
    QVERIFY2(sameMatrix(extractedMean, mean), "neuron-mean momentum");
    const Matrix deviation = extractQuantity(s, 0, Quantity::DeviationFromNeuronMean);
    QVERIFY2(sameMatrix(deviation, s.layers.front().firstMoment - mean), "deviation = first moment - group mean");
    if (scope == MeanScope::FanIn && bias == BiasMode::Own) {
        QCOMPARE(deviation(0, 0), -0.5f);  // 1 - mean(1, 2)
        QCOMPARE(deviation(1, 1), 0.5f);   // 5 - mean(4, 5)
        QCOMPARE(deviation(1, 2), 0.0f);   // own bias: its own group
    }
}

void TestViews::colorScaleIsBlueWhiteRed() {
    DivergingColorScale scale;
    scale.fitTo(rows2x3({-2, 0.5f, 1, 0, 0, 1.5f}));
    QCOMPARE(scale.limit(), 2.0);
    const QColor blue = scale.colorAt(-2), white = scale.colorAt(0), red = scale.colorAt(2);
    QCOMPARE(white, QColor(Qt::white));
    QVERIFY(blue.blue() > 150 && blue.red() < 60);
    QVERIFY(red.red() > 150 && red.blue() < 60);
    QCOMPARE(scale.colorAt(-50), blue);  // clamped
    QVERIFY(scale.colorAt(-1) != white && scale.colorAt(-1).blue() > scale.colorAt(-1).red());

    // The heat-maps' gradient shows the same colours over the same symmetric range.
    QCPColorGradient gradient = DivergingColorScale::gradient();  // color() is not const
    for (double value : {-2.0, -1.0, 0.0, 1.0, 2.0}) {
        const QColor fromGradient = QColor::fromRgb(gradient.color(value, scale.range()));
        const QColor fromScale = scale.colorAt(value);
        QVERIFY2(std::abs(fromGradient.red() - fromScale.red()) <= 3 && std::abs(fromGradient.green() - fromScale.green()) <= 3 &&
                     std::abs(fromGradient.blue() - fromScale.blue()) <= 3,
                 qPrintable(QStringLiteral("value %1").arg(value)));
    }

    scale.setFixedLimit(0.5);
    QCOMPARE(scale.limit(), 0.5);
    QCOMPARE(scale.colorAt(0.5), red);
    scale.setFixedLimit(0);
    scale.fitTo(Matrix::Zero(2, 2));
    QCOMPARE(scale.limit(), 1.0);  // never a zero-width range
}

void TestViews::historyStaysBoundedAndCoversTheRun() {
    DecimatingHistory history(2, 10);
    for (int step = 0; step < 1000; ++step) history.append(step, {double(step), -double(step)});
    QVERIFY(history.size() <= 10);
    QVERIFY(history.size() >= 5);
    QCOMPARE(history.steps().front(), 0.0);
    QVERIFY(history.steps().back() >= 1000 - history.stride());  // the whole run stays covered
    for (int k = 1; k < history.size(); ++k)  // evenly spaced
        QCOMPARE(history.steps()[k] - history.steps()[k - 1], double(history.stride()));
    QCOMPARE(history.series(1).back(), -history.steps().back());
}

void TestViews::diagramEmitsNeuronClicked() {
    NetworkDiagramView view;
    view.resize(600, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.showSnapshot(syntheticSnapshot({1, 2, 2, 1}));
    QSignalSpy clicked(&view, &NetworkDiagramView::neuronClicked);

    const QPointF hidden = view.neuronCenter(1, 1);  // neuron 1 of the second hidden layer
    QVERIFY(!hidden.isNull());
    QTest::mouseClick(&view, Qt::LeftButton, {}, hidden.toPoint());
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.at(0).at(0).toInt(), 1);
    QCOMPARE(clicked.at(0).at(1).toInt(), 1);

    QTest::mouseClick(&view, Qt::LeftButton, {}, view.neuronCenter(2, 0).toPoint());  // the output
    QCOMPARE(clicked.count(), 2);
    QCOMPARE(clicked.at(1).at(0).toInt(), 2);

    QTest::mouseClick(&view, Qt::LeftButton, {}, view.neuronCenter(-1, 0).toPoint());  // inputs: not clickable
    QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(2, 2));                         // empty space
    QCOMPARE(clicked.count(), 2);
    QVERIFY(view.neuronCenter(0, 2).isNull());  // there is no third neuron
}

void TestViews::diagramTooltipNamesTheConnectionValue() {
    NetworkDiagramView view;
    view.resize(600, 400);
    const Snapshot s = syntheticSnapshot({1, 2, 2, 1});
    view.showSnapshot(s);
    view.setQuantity(Quantity::Gradient);

    // input 0 -> neuron 1 of the first hidden layer: row 1, column 0 of parameter layer 0; named
    // as every view names neurons (layers counted from the inputs, layer 0).
    const QString text = view.toolTipAt(midpoint(view.neuronCenter(-1, 0), view.neuronCenter(0, 1)));
    const QString value = QString::number(double(s.layers[0].gradient(1, 0)), 'g', 4);
    QVERIFY2(text.contains(QStringLiteral("layer 0, neuron 0 → layer 1, neuron 1")), qPrintable(text));
    QVERIFY2(text.contains(value), qPrintable(text + " lacks " + value));
    QVERIFY(!text.contains(QString::number(double(s.layers[0].gradient(0, 0)), 'g', 4)));

    // Hidden layer 1 neuron 0 -> hidden layer 2 neuron 1: layer 1, row 1, column 0.
    const QString second = view.toolTipAt(midpoint(view.neuronCenter(0, 0), view.neuronCenter(1, 1)));
    QVERIFY2(second.contains(QString::number(double(s.layers[1].gradient(1, 0)), 'g', 4)), qPrintable(second));

    // A neuron names its bias; empty space names nothing.
    const QString neuron = view.toolTipAt(view.neuronCenter(1, 0));
    QVERIFY2(neuron.contains(QStringLiteral("bias")) && neuron.contains(QString::number(double(s.layers[1].gradient(0, 2)), 'g', 4)),
             qPrintable(neuron));
    QVERIFY(view.toolTipAt(QPointF(3, 3)).isEmpty());

    // Hovering really shows that text.
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QPoint onLine = midpoint(view.neuronCenter(-1, 0), view.neuronCenter(0, 1)).toPoint();
    QHelpEvent hover(QEvent::ToolTip, onLine, view.mapToGlobal(onLine));
    QApplication::sendEvent(&view, &hover);
    QTRY_COMPARE(QToolTip::text(), text);
}

void TestViews::diagramSaysWhatIsNotKeptAndTruncatesWideLayers() {
    NetworkDiagramView view;
    view.resize(600, 400);
    view.showSnapshot(syntheticSnapshot({1, 2, 2, 1}));
    view.setQuantity(Quantity::SecondMoment);  // the synthetic optimizer keeps none
    const QString text = view.toolTipAt(midpoint(view.neuronCenter(-1, 0), view.neuronCenter(0, 0)));
    QVERIFY2(text.contains(QStringLiteral("not kept by this optimizer")), qPrintable(text));

    // 20 inputs: the 16 with the largest summed |weight| of their outgoing connections are drawn,
    // not the first 16; the 4 smallest are not.
    view.setQuantity(Quantity::Weight);
    const Snapshot wide = syntheticSnapshot({20, 3, 2});
    view.showSnapshot(wide);
    std::vector<std::pair<float, int>> strength;
    for (int i = 0; i < 20; ++i) {
        float sum = 0.0f;
        for (int j = 0; j < 3; ++j) sum += std::abs(wide.layers[0].parameters(j, i));
        strength.push_back({sum, i});
    }
    std::sort(strength.begin(), strength.end());
    bool skipsAnEarlyNeuron = false;
    for (int k = 0; k < 20; ++k) {
        const int input = strength[static_cast<std::size_t>(k)].second;
        const bool drawn = k >= 20 - kMaxDrawnNeurons;
        QCOMPARE(!view.neuronCenter(-1, input).isNull(), drawn);
        skipsAnEarlyNeuron |= !drawn && input < kMaxDrawnNeurons;
    }
    QVERIFY(skipsAnEarlyNeuron);  // the case the first-16 rule got wrong
    const QPointF strongest = view.neuronCenter(-1, strength.back().second);
    QVERIFY2(view.toolTipAt(strongest).contains(QString("neuron %1").arg(strength.back().second)), qPrintable(view.toolTipAt(strongest)));
    QImage image(QSize(600, 400), QImage::Format_ARGB32);
    QPainter painter(&image);
    view.render(painter, image.size());  // export path: paints without a window
    painter.end();
    QVERIFY(image.pixelColor(300, 200) != QColor());
}

void TestViews::diagramPanelShowsOnlyTheChosenRun() {
    NetworkDiagramPanel panel;
    panel.setRuns({QStringLiteral("momentum"), QStringLiteral("neuron-mean")});
    QSignalSpy runChanged(&panel, &NetworkDiagramPanel::runChanged);
    panel.showSnapshot(syntheticSnapshot({1, 2, 1}, 1));
    QVERIFY(!panel.view()->hasSnapshot());  // run 1 is not the chosen one
    panel.showSnapshot(syntheticSnapshot({1, 2, 1}, 0));
    QVERIFY(panel.view()->hasSnapshot());
    auto* runs = panel.findChild<QComboBox*>();
    QVERIFY(runs);
    runs->setCurrentIndex(1);
    QCOMPARE(runChanged.count(), 1);
    QCOMPARE(runChanged.at(0).at(0).toInt(), 1);
    QVERIFY(!panel.view()->hasSnapshot());  // switching runs forgets the other run's picture
}

void TestViews::inspectorKeepsHistoryBounded() {
    NeuronInspector inspector;
    inspector.setHistoryCapacity(100);
    inspector.setNeuron(0, 1);
    for (long step = 1; step <= 1000; ++step) {
        inspector.showSnapshot(syntheticSnapshot({2, 2, 1}, 0, step));
        inspector.showSnapshot(syntheticSnapshot({2, 2, 1}, 1, step));  // another run: ignored
    }
    QVERIFY(inspector.history().historySize() <= 100);
    QVERIFY(inspector.history().historySize() >= 50);
    const int size = inspector.history().historySize();
    inspector.showSnapshot(syntheticSnapshot({2, 2, 1}, 0, 1000));  // re-delivered: ignored
    QCOMPARE(inspector.history().historySize(), size);
    QCOMPARE(int(inspector.history().plottedConnections().size()), 3);  // 2 inputs + bias
    QCOMPARE(inspector.plot()->graphCount(), 3 * 3 + 1);
    for (int g = 0; g < inspector.plot()->graphCount(); ++g)
        QVERIFY(inspector.plot()->graph(g)->dataCount() <= 100);
    QVERIFY(inspector.plot()->graph(0)->data()->at(inspector.plot()->graph(0)->dataCount() - 1)->key > 900);
    // The bold line is the neuron's fan-in mean of the first moment (own bias: weights only).
    const Snapshot last = syntheticSnapshot({2, 2, 1}, 0, long(inspector.plot()->graph(9)->data()->constEnd()[-1].key));
    const double mean = 0.5 * (last.layers[0].firstMoment(1, 0) + last.layers[0].firstMoment(1, 1));
    QCOMPARE(float(inspector.plot()->graph(9)->data()->constEnd()[-1].value), float(mean));
}

void TestViews::inspectorShowsTheWholeRunWhenSelectedLate() {
    NeuronInspector inspector;
    for (long step = 1; step <= 50; ++step) inspector.showSnapshot(syntheticSnapshot({2, 3, 1}, 0, step));
    QCOMPARE(inspector.history().historySize(), 0);  // nothing selected yet
    inspector.setNeuron(0, 2);             // clicked after the run
    QCOMPARE(inspector.history().historySize(), 50);
    QCOMPARE(int(inspector.history().plottedConnections().size()), 3);
    const QCPGraph* first = inspector.plot()->graph(0);
    QCOMPARE(first->dataCount(), 50);
    QCOMPARE(first->data()->constBegin()->key, 1.0);
    QCOMPARE((first->data()->constEnd() - 1)->key, 50.0);
    // The momentum line holds the neuron's values at those steps.
    QCOMPARE(float(first->data()->constBegin()->value), syntheticSnapshot({2, 3, 1}, 0, 1).layers[0].firstMoment(2, 0));
    QCOMPARE(float((first->data()->constEnd() - 1)->value), syntheticSnapshot({2, 3, 1}, 0, 50).layers[0].firstMoment(2, 0));
    // Another neuron: replayed from the archive as well; a later snapshot extends it.
    inspector.setNeuron(1, 0);
    QCOMPARE(inspector.history().historySize(), 50);
    inspector.showSnapshot(syntheticSnapshot({2, 3, 1}, 0, 51));
    QCOMPARE(inspector.history().historySize(), 51);
    QCOMPARE((inspector.plot()->graph(0)->data()->constEnd() - 1)->key, 51.0);
    // clear() and setRun() forget the archive.
    inspector.clear();
    QCOMPARE(inspector.archive().size(), 0);
    QCOMPARE(inspector.history().historySize(), 0);
    inspector.showSnapshot(syntheticSnapshot({2, 3, 1}, 0, 1));
    inspector.setRun(1);
    QCOMPARE(inspector.archive().size(), 0);
    QCOMPARE(inspector.history().historySize(), 0);
}

void TestViews::inspectorArchiveStaysWithinItsCapacity() {
    NeuronInspector inspector;
    const Snapshot big = syntheticSnapshot({784, 128, 10});
    const std::size_t bytes = 3 * sizeof(float) * std::size_t(big.layers[0].parameters.size() + big.layers[1].parameters.size());
    const long steps = 400;
    for (long step = 1; step <= steps; ++step) {
        Snapshot s = big;  // same matrices, new step: the archive's size is what is tested
        s.step = step;
        inspector.showSnapshot(s);
        QVERIFY(inspector.archive().size() <= inspector.archive().capacity());
    }
    const int capacity = inspector.archive().capacity();
    QVERIFY2(capacity >= 16 && std::size_t(capacity) * bytes <= SnapshotArchive::kDefaultBudget,
             qPrintable(QString::number(capacity)));
    QVERIFY(capacity < steps);  // so the archive had to thin itself
    QVERIFY(inspector.archive().size() >= capacity / 2);
    const std::vector<long> archived = inspector.archive().steps();
    QCOMPARE(archived.front(), 1L);  // still spans the whole run, evenly
    QVERIFY(archived.back() > steps - capacity);
    QVERIFY(archived.back() > steps * 3 / 4);
    for (std::size_t k = 1; k < archived.size(); ++k) QCOMPARE(archived[k] - archived[k - 1], archived[1] - archived[0]);
    inspector.setNeuron(0, 5);  // every archived snapshot (the first included) is intact and plotted
    QCOMPARE(inspector.history().historySize(), inspector.archive().size());
    QCOMPARE(inspector.plot()->graph(0)->data()->constBegin()->key, 1.0);
}

void TestViews::archiveThinsEvenlyAndRejectsRepeats() {
    // At most 19 snapshots: DecimationStride rounds the capacity up to 20. Steps 1..20 are kept,
    // then thinned to 1,3,..,19 (stride 2); 21..39 fill it again -> 1,5,..,37 (stride 4); 41..77
    // -> 1,9,..,73 (stride 8); then 81, 89, 97 are kept.
    SnapshotArchive archive(19, std::size_t(1) << 30);
    QCOMPARE(archive.capacity(), 0);  // fixed by the first snapshot
    int thinned = 0;
    for (long step = 1; step <= 100; ++step)
        thinned += archive.offer(syntheticSnapshot({2, 2, 1}, 0, step)) == SnapshotArchive::Offer::Thinned;
    QCOMPARE(archive.capacity(), 20);
    QCOMPARE(thinned, 3);
    std::vector<long> expected;
    for (long step = 1; step <= 97; step += 8) expected.push_back(step);
    QCOMPARE(archive.steps(), expected);
    QCOMPARE(archive.offer(syntheticSnapshot({2, 2, 1}, 0, 100)), SnapshotArchive::Offer::Repeat);
    QCOMPARE(archive.offer(syntheticSnapshot({2, 2, 1}, 0, 101)), SnapshotArchive::Offer::Skipped);  // 101 is not 1 + 8k
    // Only what the inspector plots is archived.
    QCOMPARE(archive.snapshots().front().layers[0].update.size(), 0);
    QVERIFY(archive.snapshots().front().layers[0].firstMoment.size() > 0);
    // A budget smaller than one snapshot still keeps 16; clear() forgets the capacity.
    SnapshotArchive tiny(20000, 1);
    tiny.offer(syntheticSnapshot({2, 2, 1}, 0, 1));
    QCOMPARE(tiny.capacity(), 16);
    tiny.clear();
    QCOMPARE(tiny.capacity(), 0);
    QCOMPARE(tiny.size(), 0);
}

void TestViews::inspectorPlotsTheLargestMomentumConnections() {
    NeuronInspector inspector;
    inspector.setNeuron(0, 3);
    inspector.setImageShape({28, 28});
    Snapshot s = syntheticSnapshot({784, 8, 10});
    s.layers[0].firstMoment.row(3).setConstant(0.001f);
    s.layers[0].firstMoment(3, 500) = -7.0f;  // the largest |momentum|
    s.layers[0].firstMoment(3, 784) = 6.0f;   // the bias, second
    inspector.showSnapshot(s);
    const std::vector<int>& plotted = inspector.history().plottedConnections();
    QCOMPARE(int(plotted.size()), kMaxPlottedConnections);
    QVERIFY(std::find(plotted.begin(), plotted.end(), 500) != plotted.end());
    QVERIFY(std::find(plotted.begin(), plotted.end(), 784) != plotted.end());
    // The image tab: 28 x 28 weights of neuron 3, pixel (x, y) = input y * 28 + x.
    QCPColorMap* weights = nullptr;
    for (int k = 0; k < inspector.imagePlot()->plottableCount(); ++k)
        if (auto* map = qobject_cast<QCPColorMap*>(inspector.imagePlot()->plottable(k)); map && !weights) weights = map;
    QVERIFY(weights);
    QCOMPARE(weights->data()->keySize(), 28);
    QCOMPARE(float(weights->data()->cell(5, 2)), s.layers[0].parameters(3, 2 * 28 + 5));
}

void TestViews::heatmapCellsHoldTheQuantity() {
    LayerHeatmapPanel view;
    const Snapshot s = syntheticSnapshot({4, 3, 2});
    view.showSnapshot(s);
    view.setLayer(0);
    view.setQuantity(Quantity::Gradient);
    QCPColorMapData* data = view.view()->colorMap()->data();
    QCOMPARE(data->keySize(), 5);  // 4 inputs + bias
    QCOMPARE(data->valueSize(), 3);
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 5; ++i) QCOMPARE(float(data->cell(i, j)), s.layers[0].gradient(j, i));
    const double limit = s.layers[0].gradient.cwiseAbs().maxCoeff();
    QCOMPARE(view.view()->colorMap()->dataRange().upper, limit);
    QCOMPARE(view.view()->colorMap()->dataRange().lower, -limit);
    // The map really paints with the diverging gradient (a colour scale imposes its own otherwise).
    QCPColorGradient gradient = view.view()->colorMap()->gradient();
    DivergingColorScale scale;
    scale.fitToMaximum(limit);
    QCOMPARE(QColor::fromRgb(gradient.color(limit, view.view()->colorMap()->dataRange())), scale.colorAt(limit));
    QCOMPARE(QColor::fromRgb(gradient.color(0.0, view.view()->colorMap()->dataRange())), QColor(Qt::white));

    view.setShowBias(false);
    QCOMPARE(view.view()->colorMap()->data()->keySize(), 4);
    view.setLayer(1);
    view.setQuantity(Quantity::Weight);
    QCOMPARE(view.view()->colorMap()->data()->keySize(), 3);
    QCOMPARE(float(view.view()->colorMap()->data()->cell(2, 1)), s.layers[1].parameters(1, 2));
    view.setQuantity(Quantity::SecondMoment);  // not kept by this rule, so not offered: the weights stay
    QCOMPARE(view.findChild<QuantitySelector*>()->findData(int(Quantity::SecondMoment)), -1);
    QCOMPARE(float(view.view()->colorMap()->data()->cell(2, 1)), s.layers[1].parameters(1, 2));
    view.view()->setQuantity(Quantity::SecondMoment);  // the view itself still says "not kept": empty
    QVERIFY(view.view()->colorMap()->data()->isEmpty());
    view.view()->setQuantity(Quantity::Weight);  // back in step with the panel's choice

    view.setRuns({QStringLiteral("a"), QStringLiteral("b")});
    view.setQuantity(Quantity::Weight);
    view.showSnapshot(syntheticSnapshot({4, 3, 2}, 1, 99));  // another run: ignored
    QCOMPARE(float(view.view()->colorMap()->data()->cell(2, 1)), s.layers[1].parameters(1, 2));
}

void TestViews::heatmapRedrawsA784x128Layer() {
    LayerHeatmapView view;
    view.resize(1000, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    std::vector<Snapshot> snapshots;
    for (long step = 1; step <= 4; ++step) snapshots.push_back(syntheticSnapshot({784, 128, 10}, 0, step));
    view.showSnapshot(snapshots.front());
    view.plot()->replot(QCustomPlot::rpImmediateRefresh);
    QCOMPARE(view.colorMap()->data()->keySize(), 785);
    // The redraws really repaint: another snapshot gives another picture.
    view.showSnapshot(snapshots[0]);
    view.plot()->replot(QCustomPlot::rpImmediateRefresh);
    const QImage first = view.plot()->grab().toImage();
    view.showSnapshot(snapshots[2]);
    view.plot()->replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY(view.plot()->grab().toImage() != first);
}

// Real training runs through all three views: both signs appear, nothing is left empty.
void TestViews::viewsShowTrainedNetworks() {
    const LastSnapshots sine = train("1-2-2-1", "toy:sine", 300, 0);
    QCOMPARE(int(sine.last.size()), 2);

    NetworkDiagramPanel diagram;
    diagram.resize(760, 460);
    diagram.setRuns({QStringLiteral("momentum"), QStringLiteral("neuron-mean")});
    diagram.show();
    QVERIFY(QTest::qWaitForWindowExposed(&diagram));
    diagram.showSnapshot(sine.last[0]);
    diagram.setQuantity(Quantity::Weight);
    diagram.view()->setSelectedNeuron(0, 1);
    const QImage weights = diagram.grab().toImage();
    saveShot(diagram, QStringLiteral("diagram-sine-weights"));
    const auto [blue, red] = blueAndRedPixels(weights);
    QVERIFY2(blue > 50 && red > 50, qPrintable(QStringLiteral("blue %1, red %2").arg(blue).arg(red)));
    diagram.setQuantity(Quantity::DeviationFromNeuronMean);
    saveShot(diagram, QStringLiteral("diagram-sine-deviation"));

    NeuronInspector inspector;
    inspector.resize(760, 620);
    inspector.show();
    QVERIFY(QTest::qWaitForWindowExposed(&inspector));
    inspector.setRun(1);
    inspector.setNeuron(1, 0);
    for (const Snapshot& snapshot : sine.history) inspector.showSnapshot(snapshot);
    QCOMPARE(inspector.history().historySize(), int(sine.history.size()));
    inspector.plot()->replot(QCustomPlot::rpImmediateRefresh);
    saveShot(inspector, QStringLiteral("inspector-sine"));

    LayerHeatmapPanel heatmap;
    heatmap.resize(760, 460);
    heatmap.setRuns({QStringLiteral("momentum"), QStringLiteral("neuron-mean")});
    heatmap.show();
    QVERIFY(QTest::qWaitForWindowExposed(&heatmap));
    heatmap.showSnapshot(sine.last[0]);
    heatmap.view()->plot()->replot(QCustomPlot::rpImmediateRefresh);
    saveShot(heatmap, QStringLiteral("heatmap-sine"));

    // Digits: 8 x 8 images, 64 inputs (the diagram truncates, the inspector shows images).
    const LastSnapshots digits = train("64-16-10", "digits", 60, 32);
    diagram.showSnapshot(digits.last[0]);
    diagram.setQuantity(Quantity::FirstMoment);
    saveShot(diagram, QStringLiteral("diagram-digits"));
    inspector.clear();  // a new training (steps start again at 1), as MainWindow does
    inspector.setImageShape({8, 8});
    inspector.setNeuron(0, 2);
    for (const Snapshot& snapshot : digits.history) inspector.showSnapshot(snapshot);
    QCOMPARE(int(inspector.history().plottedConnections().size()), kMaxPlottedConnections);
    inspector.plot()->replot(QCustomPlot::rpImmediateRefresh);
    saveShot(inspector, QStringLiteral("inspector-digits"));
    auto* tabs = inspector.findChild<QTabWidget*>();
    QVERIFY(tabs && tabs->isTabEnabled(1));
    tabs->setCurrentIndex(1);
    inspector.imagePlot()->replot(QCustomPlot::rpImmediateRefresh);
    saveShot(inspector, QStringLiteral("inspector-digits-image"));

    // 784-128-10 on Fashion-MNIST (the Debian package dataset-fashion-mnist), when installed.
    LastSnapshots fashion;
    try {
        fashion = train("784-128-10", "fashion-mnist", 40, 64);
    } catch (const std::exception& error) {
        QSKIP(qPrintable(QStringLiteral("no 784-input data: %1").arg(error.what())));
    }
    heatmap.resize(1000, 560);
    heatmap.showSnapshot(fashion.last[0]);
    heatmap.view()->plot()->replot(QCustomPlot::rpImmediateRefresh);
    saveShot(heatmap, QStringLiteral("heatmap-784"));
    QCOMPARE(heatmap.view()->colorMap()->data()->keySize(), 785);
    heatmap.setQuantity(Quantity::DeviationFromNeuronMean);
    heatmap.view()->plot()->replot(QCustomPlot::rpImmediateRefresh);
    saveShot(heatmap, QStringLiteral("heatmap-784-deviation"));
    diagram.showSnapshot(fashion.last[0]);
    saveShot(diagram, QStringLiteral("diagram-784"));
    inspector.setImageShape({28, 28});
    inspector.setNeuron(0, 5);
    for (const Snapshot& snapshot : fashion.history) inspector.showSnapshot(snapshot);
    inspector.imagePlot()->replot(QCustomPlot::rpImmediateRefresh);
    saveShot(inspector, QStringLiteral("inspector-784-image"));
    tabs->setCurrentIndex(0);
    inspector.plot()->replot(QCustomPlot::rpImmediateRefresh);
    saveShot(inspector, QStringLiteral("inspector-784"));
}

// The second moment's group mean: under the run's --second-moment-mean, the neuron's fan-in mean
// where it has none. v = [1 4 | 9; 16 4 | 1].
void TestViews::secondMomentGroupMeanFollowsTheRunsScope() {
    Snapshot s = handMadeSnapshot(MeanScope::None, BiasMode::Own);
    s.layers.front().secondMoment = rows2x3({1, 4, 9, 16, 4, 1});
    QVERIFY(sameMatrix(extractQuantity(s, 0, Quantity::SecondMomentGroupMean), rows2x3({2.5f, 2.5f, 9, 10, 10, 1})));
    s.secondMomentScope = SecondMomentScope::Layer;
    s.bias = BiasMode::Join;
    QVERIFY(sameMatrix(extractQuantity(s, 0, Quantity::SecondMomentGroupMean), Matrix::Constant(2, 3, 35.0f / 6.0f)));
    QVERIFY(sameMatrix(extractQuantity(s, 0, Quantity::SecondMoment), s.layers.front().secondMoment));
    s.layers.front().secondMoment = Matrix();
    QCOMPARE(extractQuantity(s, 0, Quantity::SecondMomentGroupMean).size(), 0);

    // The trainer's snapshots carry the run's sharing settings (adam-mini: fan-in second moment).
    Experiment experiment;
    experiment.data = "toy:sine";
    experiment.steps = 2;
    experiment.runs = {{"adam-mini", "adam-mini", optimizerInfo("adam-mini").defaults}};
    experiment.runs[0].hp.momentumMean = MeanScope::FanOut;
    experiment.runs[0].hp.momentumMeanStat = MeanStatistic::SignedAbsMean;
    LockstepTrainer trainer(experiment, loadDataSplit(experiment.data, experiment.seed));
    LastSnapshots observer;
    trainer.addObserver(&observer);
    RunControl control;
    trainer.run(control);
    const Snapshot& trained = observer.last.at(0);
    QCOMPARE(trained.secondMomentScope, SecondMomentScope::FanIn);
    QCOMPARE(trained.scope, MeanScope::FanOut);
    QCOMPARE(trained.statistic, MeanStatistic::SignedAbsMean);
    // adam-mini keeps v per neuron already: its group mean is v itself.
    QVERIFY(sameMatrix(extractQuantity(trained, 1, Quantity::SecondMomentGroupMean), trained.layers[1].secondMoment));
}

// A view offers only what the shown run's rule keeps; the quantity chosen comes back with a run
// that keeps it.
void TestViews::onlyKeptQuantitiesAreOffered() {
    Snapshot momentum = handMadeSnapshot();  // weights, gradient, first moment, update; no v
    Snapshot sgd = momentum;
    sgd.layers.front().firstMoment = Matrix();
    Snapshot adam = momentum;
    adam.layers.front().secondMoment = rows2x3({1, 4, 9, 16, 4, 1});
    QCOMPARE(offeredQuantities(adam), allQuantities());
    const std::vector<Quantity> forSgd = offeredQuantities(sgd);
    QCOMPARE(forSgd, (std::vector<Quantity>{Quantity::Weight, Quantity::Gradient, Quantity::Update}));
    QVERIFY(!keepsQuantity(momentum, Quantity::SecondMomentGroupMean) && keepsQuantity(momentum, Quantity::NeuronMeanMomentum));

    NetworkDiagramPanel panel;
    auto* combo = panel.findChild<QuantitySelector*>();
    QVERIFY(combo);
    panel.setQuantity(Quantity::NeuronMeanMomentum);
    panel.showSnapshot(sgd);
    QCOMPARE(combo->count(), 3);
    QCOMPARE(combo->currentText(), displayName(Quantity::Weight));  // stands in
    QVERIFY(panel.view()->toolTipAt(panel.view()->neuronCenter(0, 0)).contains(displayName(Quantity::Weight)));
    panel.showSnapshot(adam);
    QCOMPARE(combo->count(), int(allQuantities().size()));
    QCOMPARE(combo->currentText(), displayName(Quantity::NeuronMeanMomentum));  // comes back

    LayerHeatmapPanel heatmap;
    heatmap.showSnapshot(sgd);
    auto* heatmapQuantities = heatmap.findChild<QuantitySelector*>();
    QVERIFY(heatmapQuantities);
    QCOMPARE(heatmapQuantities->findText(displayName(Quantity::FirstMoment)), -1);
}

// Group sizes in the diagram's neuron tooltip and caption and in the inspector's title.
void TestViews::diagramAndInspectorShowGroupSizes() {
    Snapshot s = syntheticSnapshot({1, 2, 2, 1});  // fan-in, own bias
    NetworkDiagramView view;
    view.resize(600, 400);
    view.showSnapshot(s);
    const QString first = view.toolTipAt(view.neuronCenter(0, 1));
    QVERIFY2(first.contains("momentum fan-in: 1 connection per group, bias on its own"), qPrintable(first));
    const QString second = view.toolTipAt(view.neuronCenter(1, 0));
    QVERIFY2(second.contains("momentum fan-in: 2 connections per group, bias on its own"), qPrintable(second));
    s.bias = BiasMode::Join;
    s.secondMomentScope = SecondMomentScope::Factored;
    view.showSnapshot(s);
    const QString joined = view.toolTipAt(view.neuronCenter(1, 0));
    QVERIFY2(joined.contains("momentum fan-in: 3 connections per group, bias included") &&
                 joined.contains("second moment factored: rank-1 estimate of a 2 × 3 block"),
             qPrintable(joined));
    QCOMPARE(sharingCaption(s, 1), QStringLiteral("group 3"));
    s.scope = MeanScope::None;
    QCOMPARE(sharingCaption(s, 1), QStringLiteral("v 2 × 3 factored"));
    s.secondMomentScope = SecondMomentScope::None;
    QVERIFY(sharingLines(s, 1).isEmpty() && sharingCaption(s, 1).isEmpty() && sharingSummary(s, 1).isEmpty());
    s.scope = MeanScope::FanIn;  // the inspector's one line: states with the same scope together
    s.secondMomentScope = SecondMomentScope::FanIn;
    QCOMPARE(sharingSummary(s, 1), QStringLiteral("group: 3 connections (fan-in, momentum and v)"));
    s.secondMomentScope = SecondMomentScope::Layer;
    QCOMPARE(sharingSummary(s, 1), QStringLiteral("group: 3 connections (fan-in) · v group: 6 connections (layer)"));

    NeuronInspector inspector;
    inspector.setNeuron(1, 0);
    inspector.showSnapshot(syntheticSnapshot({1, 2, 2, 1}));
    auto* title = qobject_cast<QCPTextElement*>(inspector.plot()->plotLayout()->element(0, 0));
    QVERIFY(title);
    QVERIFY2(title->text().contains("group: 2 connections (fan-in)"), qPrintable(title->text()));
}

QTEST_MAIN(TestViews)
void TestViews::routerFansSnapshotsOutToEveryView() {
    using Shown = std::vector<std::pair<int, long>>;
    RecordingView latestOnly(false), history(true);
    SnapshotRouter router;
    router.add(latestOnly);
    router.add(history);

    router.setRuns({"a", "b"});
    QCOMPARE(latestOnly.runs, QStringList({"a", "b"}));
    QCOMPARE(history.runs, QStringList({"a", "b"}));

    // One delivery with two snapshots of run 0 and one of run 1.
    router.deliver({syntheticSnapshot({1, 1}, 0, 1), syntheticSnapshot({1, 1}, 1, 1), syntheticSnapshot({1, 1}, 0, 2)});
    QCOMPARE(latestOnly.shown, (Shown{{0, 2}, {1, 1}}));        // the latest per run
    QCOMPARE(history.shown, (Shown{{0, 1}, {1, 1}, {0, 2}}));  // all, in order
    QCOMPARE(router.latest(0)->step, 2L);
    QCOMPARE(router.latest(1)->step, 1L);
    QVERIFY(router.latest(2) == nullptr);

    // A view that switches run gets that run's latest snapshot at once; the other view nothing.
    latestOnly.shown.clear();
    history.shown.clear();
    latestOnly.chooseRun(1);
    QCOMPARE(latestOnly.shown, (Shown{{1, 1}}));
    QVERIFY(history.shown.empty());
    latestOnly.chooseRun(5);  // no snapshot of that run yet
    QCOMPARE(latestOnly.shown, (Shown{{1, 1}}));

    // clear() resets every view and forgets the latest snapshots.
    router.clear();
    QCOMPARE(latestOnly.clears, 1);
    QCOMPARE(history.clears, 1);
    QVERIFY(router.latest(0) == nullptr);
    history.chooseRun(0);
    QVERIFY(history.shown.empty());
}

#include "test_views.moc"
