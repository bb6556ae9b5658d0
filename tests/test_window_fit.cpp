// Everything the window shows fits its place on a 1366 x 768 screen: every dock's contents at
// their minimum size or more, no horizontal scroll bar, the experiment form (two runs) without a
// scroll bar at all, every summary column visible (two and nine runs), a small heat-map
// panel's "not kept" message inside its panel; also the loss plot at least twice as high as the accuracy
// strip, and every dock tab's name whole. The offscreen platform gets a 1366 x 768 screen
// (a configuration file, see main()), so the window lays itself out as on that screen.
#include "TestSettings.h"
#include "AppSettings.h"
#include "MainWindow.h"
#include "experiment/ExperimentPanel.h"
#include "optim/OptimizerCatalog.h"
#include "session/TrainingActions.h"
#include "session/TrainingSession.h"
#include "views/ConvergencePlot.h"
#include "views/LayerHeatmapView.h"
#include "views/NeuronHistoryPlot.h"
#include "views/NeuronInspector.h"
#include "views/SummaryPanel.h"

#include <QAbstractScrollArea>
#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QHeaderView>
#include <QRegularExpression>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QStandardPaths>
#include <QStyle>
#include <QTabBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <qcustomplot.h>

using namespace ml;

namespace {

Experiment sineExperiment(const std::vector<std::string>& optimizers) {
    Experiment experiment = defaultExperiment();  // the seed: 1-2-2-1 sine, momentum vs neuron-mean
    experiment.steps = 40;
    experiment.runs.clear();
    for (const std::string& name : optimizers) experiment.runs.push_back({name, name, optimizerInfo(name).defaults});
    return experiment;
}

// What does not fit in `dock`: widgets narrower or lower than their minimum (the layout squeezed
// them), scroll bars across (content cut at the right), hidden table columns.
QStringList misfits(QDockWidget* dock) {
    QStringList found;
    const auto name = [](const QWidget* widget) {
        return QStringLiteral("%1 (%2)").arg(widget->objectName(),
                                             QString::fromLatin1(widget->metaObject()->className()));
    };
    for (QWidget* widget : dock->findChildren<QWidget*>()) {
        if (!widget->isVisible() || widget->isWindow()) continue;
        if (widget->objectName().startsWith(QLatin1String("qt_")))
            continue;  // Qt's own parts (title buttons, a spin box's editor)
        // A scroll area's contents may be larger than the area: that is what it scrolls.
        if (qobject_cast<QAbstractScrollArea*>(widget->parentWidget() ? widget->parentWidget()->parentWidget()
                                                                      : nullptr))
            continue;
        // A header's minimum is its largest section at the narrowest width: its columns are checked below.
        if (qobject_cast<QHeaderView*>(widget)) continue;
        const QSizePolicy policy = widget->sizePolicy();
        const QSize hint = widget->minimumSizeHint();
        const int minimumWidth = widget->minimumWidth() > 0 ? widget->minimumWidth() : hint.width();
        const int minimumHeight = widget->minimumHeight() > 0 ? widget->minimumHeight() : hint.height();
        if (policy.horizontalPolicy() != QSizePolicy::Ignored && widget->width() < minimumWidth)
            found << QStringLiteral("%1 is %2 px wide, needs %3")
                         .arg(name(widget))
                         .arg(widget->width())
                         .arg(minimumWidth);
        if (policy.verticalPolicy() != QSizePolicy::Ignored && widget->height() < minimumHeight)
            found << QStringLiteral("%1 is %2 px high, needs %3")
                         .arg(name(widget))
                         .arg(widget->height())
                         .arg(minimumHeight);
        if (auto* area = qobject_cast<QAbstractScrollArea*>(widget); area && area->horizontalScrollBar()->isVisible())
            found << QStringLiteral("%1 scrolls sideways").arg(name(widget));
        if (auto* table = qobject_cast<QTableView*>(widget)) {
            const QHeaderView* header = table->horizontalHeader();
            // Every cell's longest word is readable (a squeezed column elides "running" to "r…g").
            for (int column = 0; column < header->count(); ++column) {
                if (header->isSectionHidden(column)) continue;
                for (int row = 0; row < table->model()->rowCount(); ++row) {
                    const QModelIndex index = table->model()->index(row, column);
                    int needed = 0;
                    for (const QString& word :
                         index.data().toString().split(QRegularExpression("\\s+"), Qt::SkipEmptyParts))
                        needed = std::max(needed, table->fontMetrics().horizontalAdvance(word) + 6);
                    if (!index.data(Qt::DecorationRole).isNull()) needed += table->iconSize().width() + 4;
                    if (header->sectionSize(column) < needed)
                        found << QStringLiteral("%1: '%2' needs %3 px, its column is %4")
                                     .arg(name(widget), index.data().toString())
                                     .arg(needed)
                                     .arg(header->sectionSize(column));
                }
            }
            for (int column = 0; column < header->count(); ++column) {
                if (header->isSectionHidden(column)) continue;
                const int right = header->sectionViewportPosition(column) + header->sectionSize(column);
                if (right > header->viewport()->width())
                    found << QStringLiteral("%1: column %2 ends at %3 px, the table shows %4")
                                 .arg(name(widget))
                                 .arg(column)
                                 .arg(right)
                                 .arg(header->viewport()->width());
            }
        }
    }
    return found;
}

QStringList windowMisfits(MainWindow& window) {
    QStringList found;
    const QRect shown(QPoint(0, 0), window.size());
    for (QDockWidget* dock : window.findChildren<QDockWidget*>())
        if (dock->isVisible() && shown.intersects(dock->geometry()))  // a tab behind another lies outside
            for (const QString& misfit : misfits(dock))
                found << QStringLiteral("%1 (%2 x %3 at %4, %5): %6")
                             .arg(dock->objectName())
                             .arg(dock->width())
                             .arg(dock->height())
                             .arg(dock->x())
                             .arg(dock->y())
                             .arg(misfit);
    return found;
}

// The same for the tabs behind the summary and the inspector (each raised in turn, then put back).
QStringList tabsBehindMisfits(MainWindow& window) {
    QStringList found;
    for (const char* tab : {"historyDock", "heatmapDock"}) {
        window.findChild<QDockWidget*>(tab)->raise();
        QApplication::processEvents();
        found += windowMisfits(window);
    }
    for (const char* tab : {"summaryDock", "inspectorDock"}) window.findChild<QDockWidget*>(tab)->raise();
    QApplication::processEvents();
    return found;
}

Experiment irisExperiment() {
    Experiment experiment = sineExperiment({"momentum", "neuron-mean", "adam", "sgd", "rmsprop"});
    experiment.network.setSizes({4, 3});
    experiment.network.activation = Activation::Identity;
    experiment.network.loss = LossKind::CrossEntropy;
    experiment.data = "iris";
    experiment.batchSize = 16;
    return experiment;
}

// The names on the window's dock tabs that do not fit their tab (QMainWindow's tab bars elide them).
QStringList elidedTabs(MainWindow& window) {
    QStringList found;
    for (QTabBar* bar : window.findChildren<QTabBar*>(Qt::FindDirectChildrenOnly)) {
        if (!bar->isVisible()) continue;
        const int padding = bar->style()->pixelMetric(QStyle::PM_TabBarTabHSpace, nullptr, bar);
        for (int tab = 0; tab < bar->count(); ++tab) {
            const int needed = bar->fontMetrics().horizontalAdvance(bar->tabText(tab)) + padding;
            if (bar->tabRect(tab).width() < needed || !bar->rect().contains(bar->tabRect(tab)))
                found << QStringLiteral("'%1' needs %2 px, its tab is %3 px at %4 (the bar is %5 px)")
                             .arg(bar->tabText(tab))
                             .arg(needed)
                             .arg(bar->tabRect(tab).width())
                             .arg(bar->tabRect(tab).x())
                             .arg(bar->width());
        }
    }
    return found;
}

void train(MainWindow& window, const Experiment& experiment) {
    window.experimentPanel()->setExperiment(experiment);
    window.trainingActions()->start()->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), SessionState::Finished, 20000);
    QApplication::processEvents();
}

// A 1366 x 768 laptop and a 1600 x 1000 desktop screen, each less a 40 px panel.
const QSize kLaptopAndDesktop[] = {QSize(1366, 768 - 40), QSize(1600, 1000 - 40)};

// Shows `window` at `size` and waits until it is exposed at that size (fails the test otherwise).
void showAt(MainWindow& window, QSize size) {
    window.resize(size);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTRY_COMPARE(window.size(), size);
}

}  // namespace

class TestWindowFit : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        useOwnSettingsFolder();  // no saved layout or experiment, and no other test's
        QCOMPARE(QApplication::primaryScreen()->size(), QSize(1366, 768));
    }

    // The seed experiment (two runs) at 1366 x 768: the experiment form needs no scroll bar
    // (it used to scroll both ways), and every dock shows its contents at their minimum size.
    void everyDockFitsAt1366x768() {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCOMPARE(window.size(), QSize(1366, 768 - 40));
        auto* scroll = window.findChild<QDockWidget*>("experimentDock")->findChild<QScrollArea*>();
        QVERIFY(scroll);
        QApplication::processEvents();
        QVERIFY2(!scroll->horizontalScrollBar()->isVisible(), "the experiment form scrolls sideways");
        QVERIFY2(!scroll->verticalScrollBar()->isVisible(),
                 qPrintable(QStringLiteral("the experiment form needs %1 px, the dock shows %2")
                                .arg(window.experimentPanel()->sizeHint().height())
                                .arg(scroll->viewport()->height())));
        const QStringList before = windowMisfits(window) + tabsBehindMisfits(window);  // the history's long hint
        QVERIFY2(before.isEmpty(), qPrintable(before.join('\n')));

        train(window, sineExperiment({"momentum", "neuron-mean"}));
        const QStringList after = windowMisfits(window);
        QVERIFY2(after.isEmpty(), qPrintable(after.join('\n')));
        // The tabs behind: the run history (one kept comparison after a second start) and the heat-map.
        train(window, sineExperiment({"momentum", "neuron-mean"}));
        const QStringList behind = tabsBehindMisfits(window);
        QVERIFY2(behind.isEmpty(), qPrintable(behind.join('\n')));
    }

    // Nine runs with results at 1366 x 768 and 1600 x 1000: every summary column visible, nothing
    // squeezed (the experiment form may scroll vertically with nine runs, never sideways).
    void nineRunsFitAt1366And1600() {
        for (const QSize size : kLaptopAndDesktop) {
            MainWindow window;
            showAt(window, size);
            if (QTest::currentTestFailed()) return;
            train(window, sineExperiment({"sgd", "momentum", "nesterov", "adam", "adamw", "nero", "neuron-mean",
                                          "rmsprop", "adagrad"}));
            auto* table = window.findChild<SummaryPanel*>()->table();
            QCOMPARE(table->model()->rowCount(), 9);
            const QStringList found = windowMisfits(window);
            QVERIFY2(found.isEmpty(),
                     qPrintable(QStringLiteral("%1 x %2:\n").arg(size.width()).arg(size.height()) + found.join('\n')));
        }
    }

    // Four runs and a neuron with 33 incoming connections in the inspector dock at 1366 x 768:
    // every title line fits the plot's width (the run-style line was cut off at both ends) and the
    // sixteen connection names go under the strips instead of squeezing them to a sliver.
    void inspectorFitsItsDockWithFourRuns() {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        Experiment experiment = sineExperiment({"momentum", "neuron-mean", "adam", "sgd"});
        experiment.network.setSizes({1, 32, 4, 1});
        train(window, experiment);
        auto* inspector = window.findChild<NeuronInspector*>();
        QVERIFY(inspector);
        auto* plot = qobject_cast<NeuronHistoryPlot*>(inspector->plot());
        QVERIFY(plot);
        plot->replot();
        auto* hint = qobject_cast<QCPTextElement*>(plot->plotLayout()->element(0, 0));  // no neuron chosen yet
        QVERIFY(hint);
        QVERIFY2(hint->outerRect().width() >= plot->width() - 1,  // an empty legend under the strips once narrowed it
                 qPrintable(QStringLiteral("the hint is centred in %1 of %2 px")
                                .arg(hint->outerRect().width())
                                .arg(plot->width())));
        inspector->setNeuron(1, 0);  // layer 2's first neuron: 32 inputs and a bias
        QApplication::processEvents();
        plot->replot();
        QVERIFY2(plot->width() < kLegendBesideMinWidth, qPrintable(QString::number(plot->width())));
        QVERIFY(plot->legendBelow());
        auto* title = qobject_cast<QCPTextElement*>(plot->plotLayout()->element(0, 0));
        QVERIFY(title);
        QVERIFY2(title->text().count('\n') >= 3, qPrintable(title->text()));
        const QFontMetrics metrics(title->font());
        for (const QString& line : title->text().split('\n'))
            QVERIFY2(metrics.horizontalAdvance(line) <= plot->width(),
                     qPrintable(QStringLiteral("'%1' needs %2 px of %3")
                                    .arg(line)
                                    .arg(metrics.horizontalAdvance(line))
                                    .arg(plot->width())));
        QCPLegend* legend = plot->legend;
        for (int i = 0; i < plot->plotLayout()->elementCount(); ++i)
            if (auto* found = qobject_cast<QCPLegend*>(plot->plotLayout()->elementAt(i))) legend = found;
        QVERIFY(legend && legend->visible() && legend->itemCount() == 16 + 4);
        QVERIFY2(legend->columnCount() >= 2, "the legend under the strips uses one column");
        const QRect box = legend->outerRect();
        QVERIFY2(plot->rect().adjusted(0, 0, 1, 1).contains(box),  // a pixel of layout rounding
                 qPrintable(QStringLiteral("the legend (%1, %2, %3 x %4) runs out of the %5 x %6 plot")
                                .arg(box.x())
                                .arg(box.y())
                                .arg(box.width())
                                .arg(box.height())
                                .arg(plot->width())
                                .arg(plot->height())));
        for (QCPAxisRect* strip : plot->axisRects())
            QVERIFY2(strip->outerRect().height() >= 80 - 2,  // the inspector's default strip height, axes included
                     qPrintable(QStringLiteral("a strip is %1 px high").arg(strip->outerRect().height())));
    }

    // Classification data at 1366 x 768 and 1600 x 1000: the loss plot, the main figure, is at least
    // twice as high as the accuracy strip under it (at 1366 x 768 QCustomPlot's minimum sizes once
    // made the strip the higher of the two); without the strip the loss plot labels its own x axis.
    void lossPlotOutgrowsTheAccuracyStrip() {
        for (const QSize size : kLaptopAndDesktop) {
            MainWindow window;
            showAt(window, size);
            if (QTest::currentTestFailed()) return;
            train(window, irisExperiment());
            QCustomPlot* plot = window.convergencePlot()->plot();
            plot->replot();
            QCOMPARE(plot->axisRects().size(), 2);
            const QRect loss = plot->axisRect(0)->rect(), accuracy = plot->axisRect(1)->rect();
            QVERIFY2(loss.height() >= 2 * accuracy.height() && accuracy.height() > 0,
                     qPrintable(QStringLiteral("%1 x %2: the loss plot is %3 px high, the accuracy strip %4 px")
                                    .arg(size.width())
                                    .arg(size.height())
                                    .arg(loss.height())
                                    .arg(accuracy.height())));
            QVERIFY(!plot->axisRect(0)->axis(QCPAxis::atBottom)->tickLabels());  // the strip's x axis shows them
            QVERIFY(plot->axisRect(1)->axis(QCPAxis::atBottom)->tickLabels());

            train(window, sineExperiment({"momentum", "neuron-mean"}));  // no classes: no strip
            plot->replot();
            QCOMPARE(plot->axisRects().size(), 1);
            QCPAxis* x = plot->axisRect(0)->axis(QCPAxis::atBottom);
            QVERIFY(x->tickLabels() && !x->label().isEmpty());
            QVERIFY2(plot->axisRect(0)->rect().height() > loss.height(),
                     qPrintable(QString::number(plot->axisRect(0)->rect().height())));
        }
    }

    // The bottom row's dock tabs show their whole names at 1366 x 768 and 1600 x 1000 (the
    // the guide names the docks; "Neuron inspe…" and "Diagnos…" were all that showed at 1366).
    void dockTabNamesAreWhole() {
        for (const QSize size : kLaptopAndDesktop) {
            MainWindow window;
            showAt(window, size);
            if (QTest::currentTestFailed()) return;
            QApplication::processEvents();
            int tabs = 0;
            for (QTabBar* bar : window.findChildren<QTabBar*>(Qt::FindDirectChildrenOnly))
                tabs += bar->isVisible() ? bar->count() : 0;
            QVERIFY2(
                tabs >= 6,
                qPrintable(QString::number(tabs)));  // inspector, heat-map, explainer, diagnostics; summary, history
            const QStringList elided = elidedTabs(window);
            QVERIFY2(elided.isEmpty(),
                     qPrintable(QStringLiteral("%1 x %2:\n").arg(size.width()).arg(size.height()) + elided.join('\n')));
        }
    }

    // A small multiple without values (momentum has no second moment) hides its axes and wraps
    // "second moment: not kept by this optimizer" inside its panel instead of running over it.
    void heatmapMessageFitsASmallPanel() {
        LayerHeatmapView view;
        view.resize(440, 300);  // the heat-map dock's size at 1366 x 768
        Matrix values(2, 3);
        values << 1, -2, 0.5, 0.25, 3, -1;
        // Three runs side by side: adam keeps a second moment, momentum does not, sgd's folder has final weights only.
        std::vector<LayerHeatmapView::Map> maps{
            {"adam", values, {}, 0}, {"momentum", Matrix(), {}, 0}, {"sgd", Matrix(), "not saved in this folder", 0}};
        view.setQuantity(Quantity::SecondMoment);
        view.showMatrices(maps, "layer 1: 2 → 2");
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.plot()->replot();
        int messages = 0;
        for (int i = 0; i < view.plot()->itemCount(); ++i) {
            auto* text = qobject_cast<QCPItemText*>(view.plot()->item(i));
            if (!text || !text->visible() || text->text() == "bias") continue;
            ++messages;
            QCPAxisRect* panel = text->position->axisRect();
            QVERIFY(panel);
            QVERIFY2(!panel->axis(QCPAxis::atBottom)->visible() && !panel->axis(QCPAxis::atLeft)->visible(),
                     "an empty panel keeps its axes");
            const QRect box = QFontMetrics(text->font()).boundingRect(QRect(), Qt::AlignCenter, text->text());
            const QRect room = panel->outerRect();  // the panel with its (hidden) axes' margins
            QVERIFY2(box.width() <= room.width() && box.height() <= room.height() &&
                         room.contains(text->position->pixelPosition().toPoint()),
                     qPrintable(QStringLiteral("'%1' needs %2 x %3 px, the panel is %4 x %5")
                                    .arg(text->text())
                                    .arg(box.width())
                                    .arg(box.height())
                                    .arg(room.width())
                                    .arg(room.height())));
            QVERIFY2(text->text().simplified().contains(messages == 1 ? "not kept by this optimizer"
                                                                      : "not saved in this folder"),
                     qPrintable(text->text()));
        }
        QCOMPARE(messages, 2);
    }
};

// A 1366 x 768 offscreen screen (the platform's default is 800 x 600): a configuration file.
int main(int argc, char* argv[]) {
    QTemporaryDir directory;
    const QString config = directory.filePath("screen.json");
    QFile file(config);
    if (!file.open(QIODevice::WriteOnly)) return 1;
    file.write(R"({"screens": [{"name": "1366x768", "x": 0, "y": 0, "width": 1366, "height": 768,
                   "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]})");
    file.close();
    qputenv("QT_QPA_PLATFORM", QStringLiteral("offscreen:configfile=%1").arg(config).toLocal8Bit());
    QApplication app(argc, argv);
    TestWindowFit test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_window_fit.moc"
