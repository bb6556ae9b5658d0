// The three network views and what they share: quantity extraction from a snapshot, the diverging
// colour scale, the diagram's hit-testing (click, tooltip), the inspector's bounded history and
// connection choice, the heat-map's cells (and its redraw time for 784-128-10).
#include "data/DataRegistry.h"
#include "model/DecimatingHistory.h"
#include "optim/OptimizerCatalog.h"
#include "model/RunSelection.h"
#include "views/NeuronImagePlot.h"
#include "train/LockstepTrainer.h"
#include "views/DivergingColorScale.h"
#include "views/LayerHeatmapView.h"
#include "views/NetworkDiagramView.h"
#include "views/NeuronInspector.h"
#include "model/Quantity.h"
#include "common/RenderQueue.h"
#include "views/ConvergencePlot.h"
#include "views/ViewControls.h"
#include "views/ComparisonBar.h"
#include <QSlider>
#include <QToolButton>
#include "views/SharingGroups.h"
#include "views/SummaryPanel.h"
#include "model/RunSummaryModel.h"
#include "model/RunPalette.h"

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
    void snapshotTaken(const SharedSnapshot& shared) override {
        const Snapshot& snapshot = *shared;
        if (snapshot.run >= int(last.size())) last.resize(std::size_t(snapshot.run) + 1);
        last[std::size_t(snapshot.run)] = snapshot;
        history.push_back(snapshot);
    }
    std::vector<Snapshot> last;
    std::vector<Snapshot> history;  // every run's, in order
};

LastSnapshots train(const std::string& sizes, const std::string& data, long steps, long batch) {
    Experiment experiment;
    experiment.network.setLayers(sizes);
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

// A RunSelection fed with the given runs' snapshots (run index = snapshot.run).
void feed(RunSelection& selection, const std::vector<Snapshot>& snapshots) {
    for (const Snapshot& snapshot : snapshots) selection.deliver({snapshot});
}

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

    // The summary's colour swatch is one QIcon per run, handed out again on every paint: a bare QColor
    // made the delegate paint a new pixmap each time, which Qt's icon engine cached under a new key
    // (QPixmapCache grew towards its 10 MB limit while training repainted the table). Drawn as before.
    void summarySwatchIsOneIconPerRun() {
        RunSummaryModel model;
        model.reset({"a", "b"}, {"sgd", "adam"});
        for (int row = 0; row < 2; ++row) {
            const QVariant first = model.index(row, RunSummaryModel::Run).data(Qt::DecorationRole);
            const QVariant again = model.index(row, RunSummaryModel::Run).data(Qt::DecorationRole);
            QCOMPARE(first.userType(), int(QMetaType::QIcon));
            QVERIFY(!first.value<QIcon>().isNull());
            QCOMPARE(first.value<QIcon>().cacheKey(), again.value<QIcon>().cacheKey());
        }
        QVERIFY(model.index(0, RunSummaryModel::Run).data(Qt::DecorationRole).value<QIcon>().cacheKey() !=
                model.index(1, RunSummaryModel::Run).data(Qt::DecorationRole).value<QIcon>().cacheKey());
        QTableView table;
        table.setModel(&model);
        table.resize(400, 120);
        const QImage image = table.grab().toImage();
        for (int row = 0; row < 2; ++row) {  // the swatch's middle has exactly the run's colour
            const QRect cell = table.visualRect(model.index(row, RunSummaryModel::Run));
            const int side = table.style()->pixelMetric(QStyle::PM_SmallIconSize);
            const QPoint middle =
                table.viewport()->mapTo(&table, cell.topLeft()) + QPoint(4 + side / 2, cell.height() / 2);
            QCOMPARE(image.pixelColor(middle * image.devicePixelRatio()), runColor(row));
        }
    }

    // One naming scheme across views: the diagram's tooltip and both inspector tabs say "layer 1, neuron 1".
    void viewsNameNeuronsAlike() {
        NetworkDiagramView diagram;
        diagram.resize(600, 400);
        diagram.showSnapshot(syntheticSnapshot({2, 3, 1}));
        QVERIFY2(diagram.toolTipAt(diagram.neuronCenter(0, 1)).startsWith("layer 1, neuron 1"),
                 qPrintable(diagram.toolTipAt(diagram.neuronCenter(0, 1))));
        RunSelection selection;
        NeuronInspector inspector(&selection);
        inspector.setNeuron(0, 1);  // parameter layer 0, row 1
        for (QCustomPlot* plot : {inspector.plot(), inspector.imagePlot()}) {
            QStringList titles;
            for (const QCPTextElement* title : plot->findChildren<QCPTextElement*>())
                titles << title->text().simplified();  // wrapped to the width
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
    void renderQueueDrawsOnePerTurn();
    void viewsShareSnapshotsAndAskCheaply();
    void committedHistoryNeverReallocates();
    void sideBySideSharesOneScaleInEveryView();
    void differenceShowsAMinusB();
    void scrubbedStepReplaysRecordedSnapshots();
    void newQuantitiesAndOnlyKeptOnesOffered();
    void scrubberSliderAndPlayMoveTheStep();
    void inspectorPlotsTheLargestMomentumConnections();
    void heatmapCellsHoldTheQuantity();
    void heatmapRedrawsA784x128Layer();
    void viewsShowTrainedNetworks();
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
    QCOMPARE(int(allQuantities().size()), 10);
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
    QTest::newRow("none: fan-in row means")
        << MeanScope::None << BiasMode::Own << rows2x3({1.5f, 1.5f, 3, 4.5f, 4.5f, 9});
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
        QVERIFY2(std::abs(fromGradient.red() - fromScale.red()) <= 3 &&
                     std::abs(fromGradient.green() - fromScale.green()) <= 3 &&
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
    for (int k = 1; k < history.size(); ++k)                     // evenly spaced
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
    QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(2, 2));                        // empty space
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
    QVERIFY2(neuron.contains(QStringLiteral("bias")) &&
                 neuron.contains(QString::number(double(s.layers[1].gradient(0, 2)), 'g', 4)),
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
    QVERIFY2(view.toolTipAt(strongest).contains(QString("neuron %1").arg(strength.back().second)),
             qPrintable(view.toolTipAt(strongest)));
    QImage image(QSize(600, 400), QImage::Format_ARGB32);
    QPainter painter(&image);
    view.render(painter, image.size());  // export path: paints without a window
    painter.end();
    QVERIFY(image.pixelColor(300, 200) != QColor());
}

void TestViews::diagramPanelShowsOnlyTheChosenRun() {
    RunSelection selection;
    NetworkDiagramPanel panel(&selection);
    selection.begin({QStringLiteral("momentum"), QStringLiteral("neuron-mean")});
    QCOMPARE(int(panel.canvases().size()), 2);  // side by side by default
    selection.deliver({syntheticSnapshot({1, 2, 1}, 1)});
    QVERIFY(!panel.canvases()[0]->hasSnapshot());  // run 0 has none yet
    QVERIFY(panel.canvases()[1]->hasSnapshot());
    selection.setShown({1});
    QCOMPARE(int(panel.canvases().size()), 1);
    QVERIFY(panel.view()->hasSnapshot());
    selection.setShown({0});
    QVERIFY(!panel.view()->hasSnapshot());  // the other run's picture is not kept on screen
}

void TestViews::inspectorKeepsHistoryBounded() {
    RunSelection selection;
    NeuronInspector inspector(&selection);
    selection.begin({QStringLiteral("a"), QStringLiteral("b")});
    selection.setShown({0});
    inspector.setHistoryCapacity(100);
    inspector.setNeuron(0, 1);
    for (long step = 1; step <= 1000; ++step)
        selection.deliver({syntheticSnapshot({2, 2, 1}, 0, step), syntheticSnapshot({2, 2, 1}, 1, step)});
    QVERIFY(inspector.history().historySize() <= 100);
    QVERIFY(inspector.history().historySize() >= 50);
    const int size = inspector.history().historySize();
    selection.deliver({syntheticSnapshot({2, 2, 1}, 0, 1000)});  // re-delivered: ignored
    QCOMPARE(inspector.history().historySize(), size);
    QCOMPARE(int(inspector.history().plottedConnections().size()), 3);  // 2 inputs + bias
    QCOMPARE(inspector.plot()->graphCount(), 3 * 3 + 1);
    for (int g = 0; g < inspector.plot()->graphCount(); ++g) QVERIFY(inspector.plot()->graph(g)->dataCount() <= 100);
    QVERIFY(inspector.plot()->graph(0)->data()->at(inspector.plot()->graph(0)->dataCount() - 1)->key > 900);
    // The bold line is the neuron's fan-in mean of the first moment (own bias: weights only).
    const Snapshot last = syntheticSnapshot({2, 2, 1}, 0, long(inspector.plot()->graph(9)->data()->constEnd()[-1].key));
    const double mean = 0.5 * (last.layers[0].firstMoment(1, 0) + last.layers[0].firstMoment(1, 1));
    QCOMPARE(float(inspector.plot()->graph(9)->data()->constEnd()[-1].value), float(mean));
}

// Every run's history is recorded, shown or not: switching runs after training shows all of it,
// and two runs overlay in one plot.
void TestViews::inspectorShowsTheWholeRunWhenSelectedLate() {
    RunSelection selection;
    NeuronInspector inspector(&selection);
    selection.begin({QStringLiteral("a"), QStringLiteral("b")});
    selection.setShown({0});
    for (long step = 1; step <= 50; ++step)
        selection.deliver({syntheticSnapshot({2, 3, 1}, 0, step), syntheticSnapshot({2, 3, 1}, 1, step)});
    QCOMPARE(inspector.history().historySize(), 0);  // nothing selected yet
    inspector.setNeuron(0, 2);                       // clicked after the run
    QCOMPARE(inspector.history().historySize(), 50);
    QCOMPARE(int(inspector.history().plottedConnections().size()), 3);
    const QCPGraph* first = inspector.plot()->graph(0);
    QCOMPARE(first->dataCount(), 50);
    QCOMPARE(first->data()->constBegin()->key, 1.0);
    QCOMPARE((first->data()->constEnd() - 1)->key, 50.0);
    QCOMPARE(float(first->data()->constBegin()->value), syntheticSnapshot({2, 3, 1}, 0, 1).layers[0].firstMoment(2, 0));
    QCOMPARE(float((first->data()->constEnd() - 1)->value),
             syntheticSnapshot({2, 3, 1}, 0, 50).layers[0].firstMoment(2, 0));
    // Switching to run b after training: its whole history, from step 1.
    selection.setShown({1});
    QCOMPARE(inspector.history().plottedRuns(), std::vector<int>({1}));
    QCOMPARE(inspector.history().historySize(), 50);
    QCOMPARE(float(inspector.plot()->graph(0)->data()->constBegin()->value),
             syntheticSnapshot({2, 3, 1}, 1, 1).layers[0].firstMoment(2, 0));
    // Both runs overlaid: one set of graphs (and a mean) per run, each with its whole history.
    selection.setShown({0, 1});
    QCOMPARE(inspector.history().plottedRuns(), std::vector<int>({0, 1}));
    QCOMPARE(inspector.plot()->graphCount(), 2 * (3 * 3 + 1));
    for (int g = 0; g < inspector.plot()->graphCount(); ++g) QCOMPARE(inspector.plot()->graph(g)->dataCount(), 50);
    // A later snapshot extends every run.
    selection.deliver({syntheticSnapshot({2, 3, 1}, 0, 51), syntheticSnapshot({2, 3, 1}, 1, 51)});
    for (int g = 0; g < inspector.plot()->graphCount(); ++g) QCOMPARE(inspector.plot()->graph(g)->dataCount(), 51);
    // Following one connection: one line per run and strip, in the runs' colours.
    inspector.setConnection(0, 2, 1);
    QCOMPARE(inspector.history().plottedConnections(), std::vector<int>({1}));
    QCOMPARE(inspector.plot()->graphCount(), 2 * 3);
    QCOMPARE(float((inspector.plot()->graph(3)->data()->constEnd() - 1)->value),
             syntheticSnapshot({2, 3, 1}, 1, 51).layers[0].firstMoment(2, 1));  // run b's momentum
    QCOMPARE(inspector.plot()->graph(3)->pen().color(), runColor(1));
    // A new comparison forgets the archives.
    selection.begin({QStringLiteral("a")});
    QCOMPARE(inspector.history().historySize(), 0);
}

void TestViews::inspectorArchiveStaysWithinItsCapacity() {
    RunSelection selection;
    NeuronInspector inspector(&selection);
    selection.begin({QStringLiteral("a")});
    const Snapshot big = syntheticSnapshot({784, 128, 10});
    std::size_t bytes = 0;
    for (const LayerSnapshot& layer : big.layers)
        bytes +=
            sizeof(float) * std::size_t(layer.parameters.size() + layer.gradient.size() + layer.firstMoment.size() +
                                        layer.secondMoment.size() + layer.update.size());
    const long steps = 400;
    const SnapshotArchive& archive = *selection.store().archive(0);
    for (long step = 1; step <= steps; ++step) {
        Snapshot s = big;  // same matrices, new step: the archive's size is what is tested
        s.step = step;
        selection.deliver({s});
        QVERIFY(archive.size() <= archive.capacity());
    }
    const int capacity = archive.capacity();
    QVERIFY2(capacity >= 16 && std::size_t(capacity) * bytes <= RunSnapshots::kTotalBudget,
             qPrintable(QString::number(capacity)));
    QVERIFY(capacity < steps);           // so the archive had to thin itself
    QCOMPARE(archive.size(), capacity);  // and stays full (flat memory) while it thins
    const std::vector<long> archived = archive.steps();
    QCOMPARE(archived.front(), 1L);  // still spans the whole run
    QVERIFY(archived.back() > steps - capacity);
    QVERIFY(archived.back() > steps * 3 / 4);
    // Evenly at the stride, or at twice it where a round of thinning has passed.
    long gap = archived[1] - archived[0];
    for (std::size_t k = 1; k < archived.size(); ++k) gap = std::min(gap, archived[k] - archived[k - 1]);
    for (std::size_t k = 1; k < archived.size(); ++k)
        QVERIFY(archived[k] - archived[k - 1] == gap || archived[k] - archived[k - 1] == 2 * gap);
    QCOMPARE(archive.latest()->step, steps);  // the newest is always at hand
    inspector.setNeuron(0, 5);                // every archived snapshot (the first included) and the latest are plotted
    QCOMPARE(inspector.history().historySize(), archive.size() + (archived.back() == steps ? 0 : 1));
    QCOMPARE(inspector.plot()->graph(0)->data()->constBegin()->key, 1.0);
}

// A view keeps the archive's snapshot itself (no ~2 MB copy per panel for MNIST), the
// offered quantities are decided without extracting them (and agree with extracting them), and
// the convergence plot's replot waits for a turn of the RenderQueue of its own.
void TestViews::viewsShareSnapshotsAndAskCheaply() {
    const SharedSnapshot shared = std::make_shared<const Snapshot>(syntheticSnapshot({3, 2, 1}));
    NetworkDiagramView diagram;
    diagram.showSnapshot(shared);
    LayerHeatmapView heatmap;
    heatmap.showSnapshot(shared);
    QCOMPARE(shared.use_count(), 3L);  // held by both views, not copied
    RunSelection selection;
    NetworkDiagramPanel panel(&selection);
    selection.begin({QStringLiteral("a"), QStringLiteral("b")});
    selection.deliver(std::vector<SharedSnapshot>{shared});
    QCOMPARE(selection.panels().front().snapshot.get(), shared.get());
    QCOMPARE(panel.findChild<NetworkDiagramView*>()->hasSnapshot(), true);
    QVERIFY(shared.use_count() > 4);  // + the archive (latest and kept) + the panel's canvas

    Snapshot withStart = syntheticSnapshot({3, 2, 1});
    Parameters initial;
    for (const LayerSnapshot& layer : withStart.layers) initial.push_back(layer.parameters * 0.5f);
    withStart.initialParameters = std::make_shared<const Parameters>(initial);
    Snapshot plain = syntheticSnapshot({3, 2, 1});
    for (LayerSnapshot& layer : plain.layers) layer.firstMoment = Matrix(), layer.secondMoment = Matrix();
    Snapshot other = syntheticSnapshot({4, 2, 1}, 1);  // another shape: no difference with the others
    for (const Snapshot* s : {&withStart, &plain, &other})
        for (const Quantity q : allQuantities())
            for (int layer = -1; layer <= 2; ++layer)
                QCOMPARE(keepsQuantity(*s, q, layer), extractQuantity(*s, layer, q).size() > 0);
    const std::vector<SharedSnapshot> snapshots{std::make_shared<const Snapshot>(withStart),
                                                std::make_shared<const Snapshot>(plain),
                                                std::make_shared<const Snapshot>(other)};
    for (const SharedSnapshot& a : snapshots)
        for (const SharedSnapshot& b : snapshots) {
            RunSelection::Panel difference;
            difference.run = 0, difference.minus = 1, difference.snapshot = a, difference.minusSnapshot = b;
            for (const Quantity q : allQuantities())
                QCOMPARE(RunSelection::keeps(difference, q), RunSelection::values(difference, 0, q).size() > 0);
        }

    MetricsHistory history(1000);
    history.reset({"a"}, 0);
    ConvergencePlot plot;
    plot.setHistory(&history);
    for (QCoreApplication::processEvents(); RenderQueue::instance().pending(plot.plot());)
        QCoreApplication::sendPostedEvents();
    StepMetrics m;
    m.run = 0, m.step = 1, m.trainLoss = 1.0f;
    history.append(m);
    plot.refresh();
    QVERIFY(RenderQueue::instance().pending(plot.plot()));
    QCOMPARE(plot.plottedPoints(), 1);  // the data is there at once; only the drawing waits
}

// The metrics history's Train track is committed up front: filling it and thinning it never
// moves its memory (so resident memory does not creep up over a long training).
void TestViews::committedHistoryNeverReallocates() {
    DecimatingHistory history(2, 64);
    history.commitCapacity();
    const double* steps = history.steps().constData();
    const double* series = history.series(1).constData();
    for (int step = 1; step <= 1000; ++step) history.append(step, {1.0, 2.0});
    QVERIFY(history.stride() > 1);  // thinned several times
    QCOMPARE(history.steps().constData(), steps);
    QCOMPARE(history.series(1).constData(), series);
    QVERIFY(history.steps().capacity() >= 64);
}

void TestViews::renderQueueDrawsOnePerTurn() {
    // sendPostedEvents() is one turn: what is posted during it waits for the next.
    QObject a, b;
    auto* gone = new QObject;
    QStringList drawn;
    RenderQueue& queue = RenderQueue::instance();
    queue.request(&a, [&] { drawn << "a1"; });
    queue.request(&b, [&] { drawn << "b"; });
    queue.request(&a, [&] { drawn << "a2"; });  // replaces a's pending drawing, keeps its place
    queue.request(gone, [&] { drawn << "gone"; });
    delete gone;  // its drawing is dropped
    QVERIFY(queue.pending(&a) && queue.pending(&b));
    QCoreApplication::sendPostedEvents();  // the turn after the request: nothing drawn yet
    QVERIFY(drawn.isEmpty());
    QCoreApplication::sendPostedEvents();
    QCOMPARE(drawn, QStringList{"a2"});
    QVERIFY(!queue.pending(&a));
    QCoreApplication::sendPostedEvents();
    QCOMPARE(drawn, (QStringList{"a2", "b"}));
    for (int turn = 0; turn < 3; ++turn) QCoreApplication::sendPostedEvents();
    QCOMPARE(drawn, (QStringList{"a2", "b"}));
}

void TestViews::archiveThinsEvenlyAndRejectsRepeats() {
    // At most 19 snapshots: DecimationStride rounds the capacity up to 20. Steps 1..20 are kept;
    // then the stride is 2 and each of 21, 23, .., 39 replaces one of 2, 4, .., 20 (oldest first):
    // 1, 3, .., 39. Stride 4: 41, 45, .., 77 replace 3, 7, .., 39: 1, 5, .., 77. The size stays 20.
    SnapshotArchive archive(19, std::size_t(1) << 30);
    QCOMPARE(archive.capacity(), 0);  // fixed by the first snapshot
    int thinned = 0;
    auto offerUpTo = [&](long first, long last) {
        for (long step = first; step <= last; ++step) {
            thinned += archive.offer(syntheticSnapshot({2, 2, 1}, 0, step)) == SnapshotArchive::Offer::Thinned;
            if (step >= 20) QCOMPARE(archive.size(), 20);  // full from then on: flat, never halved
        }
    };
    auto everyFrom1 = [](long stride, long last) {
        std::vector<long> steps;
        for (long step = 1; step <= last; step += stride) steps.push_back(step);
        return steps;
    };
    offerUpTo(1, 39);
    QCOMPARE(archive.capacity(), 20);
    QCOMPARE(archive.steps(), everyFrom1(2, 39));
    offerUpTo(40, 77);
    QCOMPARE(archive.steps(), everyFrom1(4, 77));
    QCOMPARE(thinned, 20);
    // Stride 8, mid-round at step 100: 81, 89, 97 replaced 5, 13, 21; 29 .. 77 still every 4th.
    offerUpTo(78, 100);
    std::vector<long> expected{1, 9, 17, 25};
    for (long step = 29; step <= 81; step += 4) expected.push_back(step);
    expected.push_back(89);
    expected.push_back(97);
    QCOMPARE(archive.steps(), expected);
    QCOMPARE(archive.offer(syntheticSnapshot({2, 2, 1}, 0, 100)), SnapshotArchive::Offer::Repeat);
    QCOMPARE(archive.offer(syntheticSnapshot({2, 2, 1}, 0, 101)),
             SnapshotArchive::Offer::Skipped);  // 101 is not 1 + 8k
    // Every matrix is archived (the scrubber replays any quantity); at() finds the step shown.
    QVERIFY(archive.snapshots().front()->layers[0].update.size() > 0);
    QCOMPARE(archive.at(10)->step, 9L);
    QCOMPARE(archive.at(-1)->step, 101L);  // the latest offered, kept though not archived
    QVERIFY(archive.at(0) == nullptr);
    // A budget smaller than one snapshot still keeps 16; clear() forgets the capacity.
    SnapshotArchive tiny(20000, 1);
    tiny.offer(syntheticSnapshot({2, 2, 1}, 0, 1));
    QCOMPARE(tiny.capacity(), 16);
    tiny.clear();
    QCOMPARE(tiny.capacity(), 0);
    QCOMPARE(tiny.size(), 0);
}

void TestViews::inspectorPlotsTheLargestMomentumConnections() {
    RunSelection selection;
    NeuronInspector inspector(&selection);
    selection.begin({QStringLiteral("a")});
    inspector.setNeuron(0, 3);
    inspector.setImageShape({28, 28});
    Snapshot s = syntheticSnapshot({784, 8, 10});
    s.layers[0].firstMoment.row(3).setConstant(0.001f);
    s.layers[0].firstMoment(3, 500) = -7.0f;  // the largest |momentum|
    s.layers[0].firstMoment(3, 784) = 6.0f;   // the bias, second
    selection.deliver({s});
    const std::vector<int>& plotted = inspector.history().plottedConnections();
    QCOMPARE(int(plotted.size()), kMaxPlottedConnections);
    QVERIFY(std::find(plotted.begin(), plotted.end(), 500) != plotted.end());
    QVERIFY(std::find(plotted.begin(), plotted.end(), 784) != plotted.end());
    // Image inputs are named by pixel (row, column): input 500 = row 17, column 24.
    QCOMPARE(connectionName(0, 500, 784, {28, 28}), QStringLiteral("pixel (17, 24)"));
    QCOMPARE(connectionName(0, 784, 784, {28, 28}), QStringLiteral("bias"));
    // The image tab: 28 x 28 weights of neuron 3, pixel (x, y) = input y * 28 + x.
    QCPColorMap* weights = nullptr;
    for (int k = 0; k < inspector.imagePlot()->plottableCount(); ++k)
        if (auto* map = qobject_cast<QCPColorMap*>(inspector.imagePlot()->plottable(k)); map && !weights) weights = map;
    QVERIFY(weights);
    QCOMPARE(weights->data()->keySize(), 28);
    QCOMPARE(float(weights->data()->cell(5, 2)), s.layers[0].parameters(3, 2 * 28 + 5));
}

void TestViews::heatmapCellsHoldTheQuantity() {
    RunSelection selection;
    LayerHeatmapPanel view(&selection);
    selection.begin({QStringLiteral("a"), QStringLiteral("b")});
    selection.setShown({0});
    const Snapshot s = syntheticSnapshot({4, 3, 2});
    selection.deliver({s});
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
    // Not kept by the run: not offered (and a map of what is not kept says so, not blank).
    QCOMPARE(view.findChild<QuantitySelector*>()->findData(int(Quantity::SecondMoment)), -1);
    view.view()->showMatrices({{QStringLiteral("run"), Matrix(), QString()}}, QString());
    QVERIFY(view.view()->colorMap()->data()->isEmpty());
    view.view()->setQuantity(Quantity::Weight);  // back in step with the panel's choice

    view.setQuantity(Quantity::Weight);
    selection.deliver({syntheticSnapshot({4, 3, 2}, 1, 99)});  // a run not shown: not drawn
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

    RunSelection selection;
    NetworkDiagramPanel diagram(&selection);
    diagram.resize(760, 460);
    selection.begin({QStringLiteral("momentum"), QStringLiteral("neuron-mean")});
    selection.setShown({0});
    diagram.show();
    QVERIFY(QTest::qWaitForWindowExposed(&diagram));
    feed(selection, sine.history);
    diagram.setQuantity(Quantity::Weight);
    diagram.setSelectedNeuron(0, 1);
    const QImage weights = diagram.grab().toImage();
    saveShot(diagram, QStringLiteral("diagram-sine-weights"));
    const auto [blue, red] = blueAndRedPixels(weights);
    QVERIFY2(blue > 50 && red > 50, qPrintable(QStringLiteral("blue %1, red %2").arg(blue).arg(red)));
    diagram.setQuantity(Quantity::DeviationFromNeuronMean);
    saveShot(diagram, QStringLiteral("diagram-sine-deviation"));

    NeuronInspector inspector(&selection);
    inspector.resize(760, 620);
    inspector.show();
    QVERIFY(QTest::qWaitForWindowExposed(&inspector));
    selection.setShown({1});
    inspector.setNeuron(1, 0);
    QCOMPARE(inspector.history().historySize(), int(sine.history.size()) / 2);
    inspector.plot()->replot(QCustomPlot::rpImmediateRefresh);
    saveShot(inspector, QStringLiteral("inspector-sine"));

    LayerHeatmapPanel heatmap(&selection);
    heatmap.resize(760, 460);
    selection.setShown({0});
    heatmap.show();
    QVERIFY(QTest::qWaitForWindowExposed(&heatmap));
    heatmap.view()->plot()->replot(QCustomPlot::rpImmediateRefresh);
    saveShot(heatmap, QStringLiteral("heatmap-sine"));

    // Digits: 8 x 8 images, 64 inputs (the diagram truncates, the inspector shows images).
    const LastSnapshots digits = train("64-16-10", "digits", 60, 32);
    selection.begin({QStringLiteral("momentum"), QStringLiteral("neuron-mean")});  // a new training
    selection.setShown({0});
    inspector.setImageShape({8, 8});
    inspector.setNeuron(0, 2);
    feed(selection, digits.history);
    diagram.setQuantity(Quantity::FirstMoment);
    saveShot(diagram, QStringLiteral("diagram-digits"));
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
    selection.begin({QStringLiteral("momentum"), QStringLiteral("neuron-mean")});
    selection.setShown({0});
    inspector.setImageShape({28, 28});
    inspector.setNeuron(0, 5);
    feed(selection, fashion.history);
    heatmap.resize(1000, 560);
    heatmap.view()->plot()->replot(QCustomPlot::rpImmediateRefresh);
    saveShot(heatmap, QStringLiteral("heatmap-784"));
    QCOMPARE(heatmap.view()->colorMap()->data()->keySize(), 785);
    heatmap.setQuantity(Quantity::DeviationFromNeuronMean);
    heatmap.view()->plot()->replot(QCustomPlot::rpImmediateRefresh);
    saveShot(heatmap, QStringLiteral("heatmap-784-deviation"));
    saveShot(diagram, QStringLiteral("diagram-784"));
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
    std::vector<Quantity> allButWeightChange = allQuantities();  // a hand-made snapshot has no w0
    std::erase(allButWeightChange, Quantity::WeightChange);
    QCOMPARE(offeredQuantities(adam), allButWeightChange);
    const std::vector<Quantity> forSgd = offeredQuantities(sgd);
    QCOMPARE(forSgd, (std::vector<Quantity>{Quantity::Weight, Quantity::Gradient, Quantity::Update}));
    QVERIFY(!keepsQuantity(momentum, Quantity::SecondMomentGroupMean) &&
            keepsQuantity(momentum, Quantity::NeuronMeanMomentum));

    RunSelection selection;
    NetworkDiagramPanel panel(&selection);
    LayerHeatmapPanel heatmap(&selection);
    auto* combo = panel.findChild<QuantitySelector*>();
    QVERIFY(combo);
    panel.setQuantity(Quantity::NeuronMeanMomentum);
    selection.begin({QStringLiteral("run")});
    sgd.step = 1;
    selection.deliver({sgd});
    QCOMPARE(combo->count(), 3);
    QCOMPARE(combo->currentText(), displayName(Quantity::Weight));  // stands in
    auto* heatmapQuantities = heatmap.findChild<QuantitySelector*>();
    QVERIFY(heatmapQuantities);
    QCOMPARE(heatmapQuantities->findText(displayName(Quantity::FirstMoment)), -1);
    adam.step = 2;
    selection.deliver({adam});
    QCOMPARE(combo->count(), int(allQuantities().size()) - 1);                  // all but w - w0 (no initial weights)
    QCOMPARE(combo->currentText(), displayName(Quantity::NeuronMeanMomentum));  // comes back
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

    RunSelection selection;
    NeuronInspector inspector(&selection);
    selection.begin({QStringLiteral("run")});
    inspector.setNeuron(1, 0);
    selection.deliver({syntheticSnapshot({1, 2, 2, 1})});
    auto* title = qobject_cast<QCPTextElement*>(inspector.plot()->plotLayout()->element(0, 0));
    QVERIFY(title);
    QVERIFY2(title->text().simplified().contains("group: 2 connections (fan-in)"),
             qPrintable(title->text()));  // wrapped to the width
}

// Two runs side by side: every panel of a view on ONE colour limit, the largest of the runs'
// (a run with 10x larger values does not get its own scale).
void TestViews::sideBySideSharesOneScaleInEveryView() {
    RunSelection selection;
    NetworkDiagramPanel diagram(&selection);
    LayerHeatmapPanel heatmap(&selection);
    NeuronInspector inspector(&selection);
    diagram.resize(800, 400);
    selection.begin({QStringLiteral("small"), QStringLiteral("large")});
    Snapshot small = syntheticSnapshot({3, 2, 1}, 0, 5);
    Snapshot large = syntheticSnapshot({3, 2, 1}, 1, 5);
    for (LayerSnapshot& layer : large.layers) layer.parameters *= 10.0f;
    selection.deliver({small, large});
    diagram.setQuantity(Quantity::Weight);
    heatmap.setQuantity(Quantity::Weight);
    heatmap.setLayer(0);
    QCOMPARE(int(diagram.canvases().size()), 2);
    const double largest = std::max(diagram.canvases()[0]->fittedLimit(), diagram.canvases()[1]->fittedLimit());
    QVERIFY(diagram.canvases()[1]->fittedLimit() > 5 * diagram.canvases()[0]->fittedLimit());
    for (NetworkDiagramView* canvas : diagram.canvases()) QCOMPARE(canvas->colorLimit(), largest);
    // The heat-map: one map per run, both on the one colour scale, spanning the larger run.
    const std::vector<QCPColorMap*> maps = heatmap.view()->colorMaps();
    QCOMPARE(int(maps.size()), 2);
    const double layerMax = large.layers[0].parameters.cwiseAbs().maxCoeff();
    for (QCPColorMap* map : maps) {
        QCOMPARE(map->colorScale(), heatmap.view()->colorScale());
        QCOMPARE(map->dataRange().upper, layerMax);
        QCOMPARE(map->dataRange().lower, -layerMax);
    }
    QCOMPARE(float(maps[1]->data()->cell(1, 0)), large.layers[0].parameters(0, 1));
    // "As image": one row per run, one scale per column shared by the rows.
    inspector.setImageShape({1, 3});
    inspector.setNeuron(0, 1);
    QCOMPARE(inspector.images()->rowCount(), 2);
    QCOMPARE(inspector.images()->weightScale()->dataRange().upper,
             double(large.layers[0].parameters.row(1).head(3).cwiseAbs().maxCoeff()));
    // A fixed limit is one limit too.
    heatmap.setColorLimit(0.5);
    for (QCPColorMap* map : heatmap.view()->colorMaps()) QCOMPARE(map->dataRange().upper, 0.5);
}

void TestViews::differenceShowsAMinusB() {
    RunSelection selection;
    NetworkDiagramPanel diagram(&selection);
    LayerHeatmapPanel heatmap(&selection);
    selection.begin({QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")});
    const Snapshot a = syntheticSnapshot({3, 2, 1}, 0, 4);
    Snapshot b = syntheticSnapshot({3, 2, 1}, 1, 4);
    for (LayerSnapshot& layer : b.layers)
        layer.firstMoment = layer.firstMoment.cwiseAbs() * 0.5f, layer.parameters *= -2.0f;
    selection.deliver({a, b, syntheticSnapshot({3, 2, 1}, 2, 4)});
    selection.setShown({0, 1});
    selection.setMode(RunSelection::Mode::Difference);
    heatmap.setQuantity(Quantity::FirstMoment);
    heatmap.setLayer(0);
    QCOMPARE(int(heatmap.view()->colorMaps().size()), 1);
    const Matrix expected = a.layers[0].firstMoment - b.layers[0].firstMoment;
    QCPColorMapData* data = heatmap.view()->colorMap()->data();
    for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 4; ++i) QCOMPARE(float(data->cell(i, j)), expected(j, i));
    // Its own symmetric scale: max |A − B|, not the runs' own ranges.
    QCOMPARE(heatmap.view()->colorMap()->dataRange().upper, double(expected.cwiseAbs().maxCoeff()));
    QCOMPARE(heatmap.view()->colorMap()->dataRange().lower, -double(expected.cwiseAbs().maxCoeff()));
    // The diagram: one canvas, captioned A − B, whose fitted limit is that of the difference.
    QCOMPARE(int(diagram.canvases().size()), 1);
    const std::vector<RunSelection::Panel> panels = selection.panels();
    QCOMPARE(int(panels.size()), 1);
    QVERIFY(panels[0].caption.startsWith(QStringLiteral("a − b")));
    const Matrix weights = RunSelection::values(panels[0], 1, Quantity::Weight);
    QVERIFY((weights - (a.layers[1].parameters - b.layers[1].parameters)).cwiseAbs().maxCoeff() == 0.0f);
    // A quantity one run does not keep has no difference.
    Snapshot noMomentum = syntheticSnapshot({3, 2, 1}, 2, 5);
    for (LayerSnapshot& layer : noMomentum.layers) layer.firstMoment = Matrix();
    selection.deliver({noMomentum});
    selection.setShown({0, 2});
    QCOMPARE(RunSelection::values(selection.panels()[0], 0, Quantity::FirstMoment).size(), 0);
}

void TestViews::scrubbedStepReplaysRecordedSnapshots() {
    RunSelection selection;
    NetworkDiagramPanel diagram(&selection);
    selection.begin({QStringLiteral("a")});
    for (long step = 1; step <= 30; ++step) selection.deliver({syntheticSnapshot({2, 2, 1}, 0, step)});
    QCOMPARE(selection.steps().size(), std::size_t(30));
    QVERIFY(diagram.view()->toolTipAt({}).isEmpty() || true);
    QCOMPARE(selection.panels()[0].snapshot->step, 30L);  // live: the latest
    selection.setStep(12);
    QCOMPARE(selection.panels()[0].snapshot->step, 12L);
    QVERIFY(selection.panels()[0].caption.contains(QStringLiteral("step 12")));
    // New snapshots do not move a replayed step.
    selection.deliver({syntheticSnapshot({2, 2, 1}, 0, 31)});
    QCOMPARE(selection.panels()[0].snapshot->step, 12L);
    selection.setStep(-1);
    QCOMPARE(selection.panels()[0].snapshot->step, 31L);
}

void TestViews::newQuantitiesAndOnlyKeptOnesOffered() {
    Snapshot s = syntheticSnapshot({3, 2, 1});
    Parameters initial;
    for (const LayerSnapshot& layer : s.layers) initial.push_back(layer.parameters * 0.5f);
    s.initialParameters = std::make_shared<const Parameters>(initial);
    const Matrix change = extractQuantity(s, 0, Quantity::WeightChange);
    QVERIFY((change - s.layers[0].parameters * 0.5f).cwiseAbs().maxCoeff() < 1e-6f);
    // Spread of row j: population std of a_j0..a_j2 (bias excluded), on every entry of the row.
    const Matrix spread = extractQuantity(s, 0, Quantity::MomentumSpread);
    for (int j = 0; j < 2; ++j) {
        const Eigen::VectorXd a = s.layers[0].firstMoment.row(j).head(3).transpose().cast<double>();
        const double mean = a.mean();
        const double expected = std::sqrt((a.array() - mean).square().sum() / 3.0);
        for (int i = 0; i < 4; ++i) QVERIFY(std::abs(spread(j, i) - expected) < 1e-5);
    }
    // Without initial weights or a first moment, neither is kept, and the selectors drop them.
    Snapshot plain = syntheticSnapshot({3, 2, 1});
    for (LayerSnapshot& layer : plain.layers) layer.firstMoment = Matrix(), layer.secondMoment = Matrix();
    QCOMPARE(extractQuantity(plain, 0, Quantity::WeightChange).size(), 0);
    QCOMPARE(extractQuantity(plain, 0, Quantity::MomentumSpread).size(), 0);
    RunSelection selection;
    NetworkDiagramPanel diagram(&selection);
    selection.begin({QStringLiteral("sgd")});
    selection.deliver({plain});
    const std::vector<Quantity> offered = selection.availableQuantities();
    for (Quantity q : {Quantity::FirstMoment, Quantity::SecondMoment, Quantity::MomentumSpread, Quantity::WeightChange})
        QVERIFY2(std::find(offered.begin(), offered.end(), q) == offered.end(), qPrintable(displayName(q)));
    auto* combo = diagram.findChild<QuantitySelector*>();
    QVERIFY(combo);
    QCOMPARE(combo->count(), int(offered.size()));
}

// The toolbar's slider picks a recorded step (its right end: live); play walks the recording
// and stops at live.
void TestViews::scrubberSliderAndPlayMoveTheStep() {
    RunSelection selection;
    ComparisonBar bar(&selection);
    selection.begin({QStringLiteral("a"), QStringLiteral("b")});
    for (long step = 10; step <= 50; step += 10)
        selection.deliver({syntheticSnapshot({2, 2, 1}, 0, step), syntheticSnapshot({2, 2, 1}, 1, step)});
    QCOMPARE(bar.scrubber()->maximum(), 5);  // 5 recorded steps + live
    QCOMPARE(bar.scrubber()->value(), 5);
    QCOMPARE(selection.step(), -1L);
    bar.scrubber()->setValue(1);
    QCOMPARE(selection.step(), 20L);
    bar.scrubber()->setValue(5);
    QCOMPARE(selection.step(), -1L);
    bar.setPlaying(true);  // from the first recorded step
    QCOMPARE(selection.step(), 10L);
    QTRY_COMPARE_WITH_TIMEOUT(selection.step(), 30L, 2000);
    QTRY_COMPARE_WITH_TIMEOUT(selection.step(), -1L, 3000);  // played to the end: live again
    QVERIFY(!bar.playButton()->isChecked());
    // The mode box switches the selection to A − B.
    bar.modeBox()->setCurrentIndex(1);
    QVERIFY(selection.isDifference());
}

QTEST_MAIN(TestViews)
#include "test_views.moc"
