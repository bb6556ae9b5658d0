// The neuron inspector's views stay readable where the inspector is docked (about 900 x 300 at
// 1366 x 768): "As image" and "Kernels" keep every image at its minimum height and print no
// text over other text; "Over steps" draws connections in colours no run has, keeps its strips as
// high as their labels need, and summarizes a wide neuron's other connections as a band.
#include "data/DataRegistry.h"
#include "model/RunPalette.h"
#include "optim/OptimizerCatalog.h"
#include "train/LockstepTrainer.h"
#include "views/KernelImagePlot.h"
#include "views/NeuronHistoryPlot.h"
#include "views/NeuronImagePlot.h"
#include "views/NeuronInspector.h"
#include "model/RunSelection.h"

#include <QScrollArea>
#include <QScrollBar>
#include <QWheelEvent>
#include <QTabWidget>
#include <QToolButton>
#include <QtTest>
#include <qcustomplot.h>

#include <cmath>

using namespace ml;

namespace {

const QSize kDocked(900, 300);  // the inspector dock at 1366 x 768

// A snapshot of a dense network of the given sizes, its entries distinct and varying with the step.
Snapshot denseSnapshot(const std::vector<int>& sizes, int run, long step, bool momentum = true) {
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
                layer.parameters(j, i) = std::sin(0.7f * float(j * in + i) + 0.05f * float(step + run));
        layer.gradient = 0.1f * layer.parameters.reverse();
        if (momentum) layer.firstMoment = 0.5f * layer.parameters + layer.gradient;
        layer.update = -0.01f * layer.parameters;
        snapshot.layers.push_back(layer);
    }
    return snapshot;
}

QStringList runLabels(int runs) {
    QStringList labels;
    for (int run = 0; run < runs; ++run) labels << QStringLiteral("run %1").arg(run);
    return labels;
}

std::vector<int> allRuns(int runs) {
    std::vector<int> shown(static_cast<std::size_t>(runs));
    std::iota(shown.begin(), shown.end(), 0);
    return shown;
}

// One drawn text of a plot and where it is (QCustomPlot's own placement rules, see
// QCPAxisPainterPrivate: tick labels beyond the tick and its padding, the axis label beyond them).
struct Text {
    QRect rect;
    QString what;
};

QSize textSize(const QFont& font, const QString& text) {
    return QFontMetrics(font).boundingRect(0, 0, 0, 0, Qt::TextDontClip | Qt::AlignHCenter, text).size();
}

void addAxisTexts(QCPAxis* axis, std::vector<Text>& texts) {
    if (!axis->visible() || !axis->axisRect()->visible() || !axis->axisRect()->layout()) return;
    const QRect r = axis->axisRect()->rect();
    const QCPAxis::AxisType side = axis->axisType();
    const bool horizontal = side == QCPAxis::atBottom || side == QCPAxis::atTop;
    int distance =
        axis->offset() + std::max(0, std::max(axis->tickLengthOut(), axis->subTicks() ? axis->subTickLengthOut() : 0));
    QSize largest(0, 0);
    if (axis->tickLabels() && !axis->tickVector().isEmpty()) {
        distance += axis->tickLabelPadding();
        for (int i = 0; i < axis->tickVector().size(); ++i) {
            const QString label = axis->tickVectorLabels().value(i);
            if (label.isEmpty()) continue;
            const QSize size = textSize(axis->tickLabelFont(), label);
            largest = largest.expandedTo(size);
            const int at = qRound(axis->coordToPixel(axis->tickVector()[i]));
            QRect box;
            if (side == QCPAxis::atBottom)
                box = QRect(at - size.width() / 2, r.bottom() + distance, size.width(), size.height());
            else if (side == QCPAxis::atTop)
                box = QRect(at - size.width() / 2, r.top() - distance - size.height(), size.width(), size.height());
            else if (side == QCPAxis::atLeft)
                box = QRect(r.left() - distance - size.width(), at - size.height() / 2, size.width(), size.height());
            else box = QRect(r.right() + distance, at - size.height() / 2, size.width(), size.height());
            texts.push_back({box, QStringLiteral("tick label '%1'").arg(label)});
        }
        distance += horizontal ? largest.height() : largest.width();
    }
    if (axis->label().isEmpty()) return;
    distance += axis->labelPadding();
    const QSize size = textSize(axis->labelFont(), axis->label());
    QRect box;
    if (side == QCPAxis::atBottom)
        box = QRect(r.center().x() - size.width() / 2, r.bottom() + distance, size.width(), size.height());
    else if (side == QCPAxis::atTop)
        box = QRect(r.center().x() - size.width() / 2, r.top() - distance - size.height(), size.width(), size.height());
    else if (side == QCPAxis::atLeft)
        box =
            QRect(r.left() - distance - size.height(), r.center().y() - size.width() / 2, size.height(), size.width());
    else box = QRect(r.right() + distance, r.center().y() - size.width() / 2, size.height(), size.width());
    texts.push_back({box, QStringLiteral("axis label '%1'").arg(axis->label())});
}

// Every text the plot draws: titles and headings, tick labels and axis labels of every visible
// axis (colour scales' included). Each box is trimmed by a pixel for rounding.
std::vector<Text> drawnTexts(QCustomPlot* plot) {
    std::vector<Text> texts;
    for (QCPAxis* axis : plot->findChildren<QCPAxis*>()) addAxisTexts(axis, texts);
    for (QCPTextElement* element : plot->findChildren<QCPTextElement*>()) {
        if (!element->visible() || element->text().isEmpty() || !element->layout()) continue;
        const QSize size = textSize(element->font(), element->text());
        texts.push_back({QRect(element->rect().center() - QPoint(size.width() / 2, size.height() / 2), size),
                         QStringLiteral("title '%1'").arg(element->text().simplified())});
    }
    for (Text& text : texts) text.rect.adjust(1, 1, -1, -1);
    return texts;
}

// "what" and "what" overlap at (x, y), or empty.
QString firstOverlap(const std::vector<Text>& texts) {
    for (std::size_t a = 0; a < texts.size(); ++a)
        for (std::size_t b = a + 1; b < texts.size(); ++b)
            if (texts[a].rect.intersects(texts[b].rect))
                return QStringLiteral("%1 overlaps %2 at (%3, %4)")
                    .arg(texts[a].what, texts[b].what)
                    .arg(texts[a].rect.intersected(texts[b].rect).x())
                    .arg(texts[a].rect.intersected(texts[b].rect).y());
    return {};
}

std::vector<QCPColorMap*> colorMaps(QCustomPlot* plot) {
    std::vector<QCPColorMap*> maps;
    for (int k = 0; k < plot->plottableCount(); ++k)
        if (auto* map = qobject_cast<QCPColorMap*>(plot->plottable(k))) maps.push_back(map);
    return maps;
}

// Lays the plot out as it is shown (twice: views that adjust ranges after a layout settle).
void layOut(QCustomPlot* plot) {
    QApplication::processEvents();
    plot->replot(QCustomPlot::rpImmediateRefresh);
    QApplication::processEvents();
    plot->replot(QCustomPlot::rpImmediateRefresh);
}

void showDocked(NeuronInspector& inspector, int tab) {
    inspector.resize(kDocked);
    inspector.show();
    QVERIFY(QTest::qWaitForWindowExposed(&inspector));
    inspector.tabs()->setCurrentIndex(tab);
    QApplication::processEvents();
}

// CIE76 distance of two colours in CIELAB (D65): about 2.3 is just noticeable, over 20 a
// different colour at a glance.
double labDistance(const QColor& a, const QColor& b) {
    auto lab = [](const QColor& c) {
        auto linear = [](double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
        const double r = linear(c.redF()), g = linear(c.greenF()), bl = linear(c.blueF());
        const double x = (0.4124 * r + 0.3576 * g + 0.1805 * bl) / 0.95047, y = 0.2126 * r + 0.7152 * g + 0.0722 * bl,
                     z = (0.0193 * r + 0.1192 * g + 0.9505 * bl) / 1.08883;
        auto f = [](double t) { return t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116.0; };
        return std::array<double, 3>{116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
    };
    const auto p = lab(a), q = lab(b);
    return std::hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
}

// A history plot fed with `runs` runs of a {inputs, 4, 2} network over 20 steps, neuron 1 of
// layer 0 (momentum kept unless `momentum` is false for run 0).
struct HistoryFixture {
    RunSelection selection;
    NeuronInspector inspector{&selection};
    NeuronHistoryPlot* plot() { return qobject_cast<NeuronHistoryPlot*>(inspector.plot()); }
    HistoryFixture(int inputs, int runs, bool firstKeepsMomentum = true) {
        selection.begin(runLabels(runs));
        selection.setShown(allRuns(runs));
        inspector.setNeuron(0, 1);
        for (long step = 1; step <= 20; ++step) {
            std::vector<Snapshot> snapshots;
            for (int run = 0; run < runs; ++run)
                snapshots.push_back(denseSnapshot({inputs, 4, 2}, run, step, run > 0 || firstKeepsMomentum));
            selection.deliver(snapshots);
        }
    }
};

}  // namespace

class TestInspectorViews : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // "As image" of a 28 x 28 first-layer neuron, docked, with 4 and 9 runs: every image keeps its
    // minimum height (the tab scrolls instead) and no caption, tick label or colour-scale label is
    // printed over another.
    void imageTabIsReadableDocked_data() {
        QTest::addColumn<int>("runs");
        QTest::newRow("4 runs") << 4;
        QTest::newRow("9 runs") << 9;
    }
    void imageTabIsReadableDocked() {
        QFETCH(int, runs);
        RunSelection selection;
        NeuronInspector inspector(&selection);
        selection.begin(runLabels(runs));
        selection.setShown(allRuns(runs));
        inspector.setImageShape({28, 28});
        inspector.setNeuron(0, 1);
        std::vector<Snapshot> snapshots;
        for (int run = 0; run < runs; ++run)
            snapshots.push_back(denseSnapshot({784, 4, 2}, run, 5, run != 3));  // run 3 keeps no momentum
        selection.deliver(snapshots);
        showDocked(inspector, 1);
        QCustomPlot* plot = inspector.imagePlot();
        layOut(plot);
        QCOMPARE(inspector.images()->rowCount(), runs);
        const std::vector<QCPColorMap*> maps = colorMaps(plot);
        QCOMPARE(int(maps.size()), 2 * runs);
        for (QCPColorMap* map : maps)
            QVERIFY2(
                map->keyAxis()->axisRect()->rect().height() >= kMinImageHeight,
                qPrintable(QStringLiteral("an image is %1 px high").arg(map->keyAxis()->axisRect()->rect().height())));
        const QString overlap = firstOverlap(drawnTexts(plot));
        QVERIFY2(overlap.isEmpty(), qPrintable(overlap));
        // The rows that do not fit scroll, with the wheel over the images too (QCustomPlot takes
        // every wheel event it is given).
        QScrollArea* scroll = nullptr;
        for (QWidget* w = plot->parentWidget(); w && !scroll; w = w->parentWidget())
            scroll = qobject_cast<QScrollArea*>(w);
        QVERIFY(scroll && scroll->verticalScrollBar()->maximum() > 0);
        const QPointF at(plot->width() / 2.0, 40.0);
        QWheelEvent wheel(at, plot->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
        QApplication::sendEvent(plot, &wheel);
        QVERIFY(!wheel.isAccepted());  // a real wheel event then goes on to the scroll area
        QVERIFY(!plot->testAttribute(Qt::WA_NoMousePropagation));
    }

    // "Kernels" of a conv channel (4 input channels of 3 x 3), docked, with 4 and 9 runs.
    void kernelTabIsReadableDocked_data() {
        QTest::addColumn<int>("runs");
        QTest::newRow("4 runs") << 4;
        QTest::newRow("9 runs") << 9;
    }
    void kernelTabIsReadableDocked() {
        QFETCH(int, runs);
        Experiment experiment;
        experiment.network.setLayers("1x8x8-conv4k3-conv4k3-pool2-10");
        experiment.network.loss = LossKind::CrossEntropy;
        experiment.network.activation = Activation::Relu;
        experiment.data = "digits";
        experiment.steps = 1;
        experiment.batchSize = 16;
        const char* optimizers[] = {"momentum", "neuron-mean", "adam", "sgd"};
        for (int run = 0; run < runs; ++run) {
            const char* name = optimizers[run % 4];
            experiment.runs.push_back(
                {QStringLiteral("%1 %2").arg(name).arg(run).toStdString(), name, optimizerInfo(name).defaults});
        }
        RunSelection selection;
        NeuronInspector inspector(&selection);
        selection.begin(runLabels(runs));
        selection.setShown(allRuns(runs));
        LockstepTrainer trainer(experiment, loadDataSplit(experiment.data, experiment.seed));
        std::vector<Snapshot> last(static_cast<std::size_t>(runs));
        struct Keep : TrainingObserver {
            std::vector<Snapshot>* last;
            bool wantsSnapshot(int, long) override { return true; }
            void snapshotTaken(const SharedSnapshot& s) override { (*last)[static_cast<std::size_t>(s->run)] = *s; }
        } keep;
        keep.last = &last;
        trainer.addObserver(&keep);
        RunControl control;
        trainer.run(control);
        selection.deliver(last);
        inspector.setNeuron(1, 2);  // the second conv layer: 4 input channels
        QVERIFY(inspector.tabs()->isTabEnabled(2));
        showDocked(inspector, 2);
        QCustomPlot* plot = inspector.kernels();
        layOut(plot);
        QCOMPARE(inspector.kernels()->columnCount(), runs);
        for (QCPColorMap* map : colorMaps(plot))
            QVERIFY2(
                map->keyAxis()->axisRect()->rect().height() >= kMinKernelImageHeight,
                qPrintable(QStringLiteral("an image is %1 px high").arg(map->keyAxis()->axisRect()->rect().height())));
        const QString overlap = firstOverlap(drawnTexts(plot));
        QVERIFY2(overlap.isEmpty(), qPrintable(overlap));
    }

    // The image tabs open in a separate resizable window that shows the same images.
    void imageTabOpensInItsOwnWindow() {
        RunSelection selection;
        NeuronInspector inspector(&selection);
        selection.begin(runLabels(2));
        selection.setShown(allRuns(2));
        inspector.setImageShape({8, 8});
        inspector.setNeuron(0, 1);
        selection.deliver({denseSnapshot({64, 4, 2}, 0, 5), denseSnapshot({64, 4, 2}, 1, 5)});
        showDocked(inspector, 1);
        QToolButton* button = inspector.openInWindowButton();
        QVERIFY(button && button->isVisible());
        button->click();
        NeuronImagePlot* copy = inspector.imageWindow();
        QVERIFY(copy);
        QVERIFY(copy->window() != inspector.window() && copy->window()->isVisible());
        QCOMPARE(copy->rowCount(), 2);
        QCOMPARE(copy->image(1, 0)->data()->cell(3, 2), inspector.images()->image(1, 0)->data()->cell(3, 2));
        inspector.tabs()->setCurrentIndex(0);
        QVERIFY(!button->isVisible());  // "Over steps" has no such window
        copy->window()->close();
        QApplication::processEvents();
        QApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
        QVERIFY(!inspector.imageWindow());
    }

    // With several runs no connection line has a colour near a run's colour (Tableau 10): the
    // runs' own lines are the bold neuron means, which keep their run's colour.
    void connectionColoursAreNoRunColours() {
        HistoryFixture fixture(3, 4);
        NeuronHistoryPlot* plot = fixture.plot();
        int connections = 0, means = 0;
        for (int g = 0; g < plot->graphCount(); ++g) {
            QCPGraph* graph = plot->graph(g);
            const QColor color = graph->pen().color();
            if (graph->name().endsWith(QStringLiteral("neuron mean"))) {
                ++means;
                QVERIFY2(
                    std::find_if(fixture.selection.shown().begin(), fixture.selection.shown().end(),
                                 [&](int run) { return runColor(run) == color; }) != fixture.selection.shown().end(),
                    qPrintable(graph->name()));
                continue;
            }
            if (graph->brush().style() != Qt::NoBrush || graph->channelFillGraph()) continue;
            ++connections;
            for (int run = 0; run < 10; ++run)
                QVERIFY2(labDistance(color, runColor(run)) >= 20.0,
                         qPrintable(QStringLiteral("connection '%1' (%2) looks like run %3 (%4): distance %5")
                                        .arg(graph->name(), color.name())
                                        .arg(run)
                                        .arg(runColor(run).name())
                                        .arg(labDistance(color, runColor(run)))));
        }
        QCOMPARE(means, 4);
        QCOMPARE(connections, 4 * 4 * 3);  // 3 inputs and the bias, per run and strip
        // The legend names every connection colour and every mean.
        int named = 0;
        for (QCPLegend* legend : plot->findChildren<QCPLegend*>()) named += legend->itemCount();
        QVERIFY2(named >= 4 + 4, qPrintable(QString::number(named)));
    }

    // A neuron with 40 inputs: its 16 largest connections are drawn, and per run and strip a band
    // whose edges enclose, at every step, the median of the other connections.
    void wideNeuronHasABandOfTheOtherConnections() {
        HistoryFixture fixture(40, 2);
        NeuronHistoryPlot* plot = fixture.plot();
        const std::vector<int>& plotted = plot->plottedConnections();
        QCOMPARE(int(plotted.size()), kMaxPlottedConnections);
        std::vector<QCPGraph*> filled;
        for (int g = 0; g < plot->graphCount(); ++g)
            if (plot->graph(g)->channelFillGraph() && plot->graph(g)->brush().style() != Qt::NoBrush)
                filled.push_back(plot->graph(g));
        QCOMPARE(int(filled.size()), 2 * 3);  // two runs, three strips
        const Snapshot& last = *fixture.selection.store().archive(1)->latest();
        const Matrix* strips[] = {&last.layers[0].firstMoment, &last.layers[0].gradient, &last.layers[0].parameters};
        for (int strip = 0; strip < 3; ++strip) {
            std::vector<double> others;
            for (int column = 0; column <= 40; ++column)
                if (std::find(plotted.begin(), plotted.end(), column) == plotted.end())
                    others.push_back((*strips[strip])(1, column));
            std::sort(others.begin(), others.end());
            const double median = (others[(others.size() - 1) / 2] + others[others.size() / 2]) / 2;
            QCPGraph* upper = nullptr;  // the run 1 band of this strip: on the strip's axes
            for (QCPGraph* graph : filled)
                if (graph->valueAxis() == plot->axisRects().at(strip)->axis(QCPAxis::atLeft) &&
                    graph->name().startsWith(QStringLiteral("run 1")))
                    upper = graph;
            QVERIFY2(upper, qPrintable(QStringLiteral("no band in strip %1").arg(strip)));
            const double hi = (upper->data()->constEnd() - 1)->value,
                         lo = (upper->channelFillGraph()->data()->constEnd() - 1)->value;
            QVERIFY2(
                lo <= median && median <= hi,
                qPrintable(
                    QStringLiteral("strip %1: median %2 outside [%3, %4]").arg(strip).arg(median).arg(lo).arg(hi)));
            QVERIFY(lo < hi);
        }
    }

    // At the smallest strip height the box offers (60 px), docked: every strip is as high as its
    // tick labels need (no two labels overlap, none reaches into another strip) and no y-label is
    // longer than its strip, even when run 1 keeps no momentum.
    void stripsAreAsHighAsTheirLabelsNeed() {
        HistoryFixture fixture(3, 4, false);
        fixture.inspector.setStripHeight(60);
        showDocked(fixture.inspector, 0);
        NeuronHistoryPlot* plot = fixture.plot();
        layOut(plot);
        const QString overlap = firstOverlap(drawnTexts(plot));
        QVERIFY2(overlap.isEmpty(), qPrintable(overlap));
        for (QCPAxisRect* strip : plot->axisRects()) {
            QCPAxis* y = strip->axis(QCPAxis::atLeft);
            const int label = QFontMetrics(y->labelFont()).horizontalAdvance(y->label());
            QVERIFY2(label <= strip->rect().height(),
                     qPrintable(QStringLiteral("y-label '%1' needs %2 px of a %3 px strip")
                                    .arg(y->label())
                                    .arg(label)
                                    .arg(strip->rect().height())));
            QVERIFY2(y->tickVector().size() >= 2,
                     qPrintable(QStringLiteral("'%1' has %2 ticks").arg(y->label()).arg(y->tickVector().size())));
            const int line = QFontMetrics(y->tickLabelFont()).height();
            for (int i = 0; i < y->tickVector().size(); ++i) {
                const double at = y->coordToPixel(y->tickVector()[i]);
                QVERIFY2(at - line / 2.0 >= strip->outerRect().top() - 1 &&
                             at + line / 2.0 <= strip->outerRect().bottom() + 1,
                         qPrintable(QStringLiteral("'%1' tick label %2 reaches out of its strip")
                                        .arg(y->label(), y->tickVectorLabels().value(i))));
            }
        }
    }
};

QTEST_MAIN(TestInspectorViews)
#include "test_inspector_views.moc"
