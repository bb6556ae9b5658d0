// The GUI robot: the desktop app driven as a researcher drives it, through real mouse and key
// events on real widget coordinates, over run folders with 1, 2, 4 and 9 dense runs and a conv
// run, on 1366 x 768 and 1600 x 1000 screens, at the screen's size and the window's minimum. It clicks every drawn neuron,
// channel and a connection per neuron of every diagram panel, every heat-map row, every colour
// quantity, both comparison modes, every inspector and dock tab, scrubs to the first, a middle
// and the last step, forks, makes a refused Start, and exports the report. After each action:
// no Qt warning, an answer within kAnswerBound; after each scenario: no widget in a shown dock
// below its minimum size and every exported figure drawn (rows in its CSV, ink in its PNG).
// The monkey beside it sends seeded random clicks, drags, wheel turns and keys over the whole
// window (MOMENTUM_LAB_MONKEY_SEED replays a seed, MOMENTUM_LAB_MONKEY_SECONDS sets its length).
// The offscreen platform gets a screen of MOMENTUM_LAB_ROBOT_SCREEN's size (CTest runs the robot
// on 1366 x 768 and on 1600 x 1000; a configuration file, see main()).
#include "TestSettings.h"
#include "MainWindow.h"
#include "cli/Cli.h"
#include "experiment/ExperimentPanel.h"
#include "experiment/Presets.h"
#include "export/ExportController.h"
#include "export/ReportWriter.h"
#include "model/ComparisonHistory.h"
#include "optim/OptimizerCatalog.h"
#include "session/TrainingActions.h"
#include "session/TrainingSession.h"
#include "views/ComparisonBar.h"
#include "views/ConvergencePlot.h"
#include "views/LayerBlockList.h"
#include "views/LayerHeatmapView.h"
#include "views/NetworkDiagramView.h"
#include "views/NeuronInspector.h"
#include "views/OutputView.h"
#include "model/RunSelection.h"
#include "views/ViewControls.h"
#include "views/ViewRegistry.h"

#include <QAbstractScrollArea>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QHeaderView>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenu>
#include <QScrollBar>
#include <QRegularExpression>
#include <QSlider>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>
#include <QToolButton>
#include <QtTest>
#include <qcustomplot.h>

#include <random>

using namespace ml;

namespace {

// How long one action (a click and the redraws it causes) may take before the robot calls the
// app unresponsive. Generous (the slowest, exporting the report, takes about 2 s in a Release
// build), and 2.5 times that under the sanitizers, which run the same robot several times slower.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define MOMENTUM_LAB_ROBOT_SANITIZED 1
#endif
#endif
#ifdef MOMENTUM_LAB_ROBOT_SANITIZED
constexpr qint64 kAnswerBound = 20000;
#else
constexpr qint64 kAnswerBound = 8000;
#endif

// Every Qt warning, critical or fatal message while the robot runs (a test fails on any).
QStringList& caughtWarnings() {
    static QStringList warnings;
    return warnings;
}

void catchWarnings(QtMsgType type, const QMessageLogContext&, const QString& message) {
    // The offscreen platform's own notes are about the platform, not the app.
    if (message.contains(QLatin1String("This plugin does not support"))) return;
    if (type == QtDebugMsg || type == QtInfoMsg) {  // the monkey's seed, among others: shown, not failed
        fprintf(stderr, "%s\n", qPrintable(message));
        return;
    }
    caughtWarnings() << message;
    fprintf(stderr, "Qt message: %s\n", qPrintable(message));
}

// Fails the current test when a Qt warning arrived since the last call.
#define ROBOT_NO_WARNINGS(what)                                                                       \
    do {                                                                                              \
        const QStringList warnings = std::exchange(caughtWarnings(), {});                             \
        QVERIFY2(warnings.isEmpty(),                                                                  \
                 qPrintable(QStringLiteral("%1: %2").arg(what, warnings.join(QLatin1String("; "))))); \
    } while (false)

// Runs `action`, then lets the app settle (events, queued redraws); returns the milliseconds taken.
template <typename Action>
qint64 timed(Action&& action) {
    QElapsedTimer clock;
    clock.start();
    action();
    QApplication::processEvents();
    QApplication::processEvents();
    return clock.elapsed();
}

#define ROBOT_ACT(what, action)                                                                         \
    do {                                                                                                \
        const qint64 took = timed([&] { action; });                                                     \
        QVERIFY2(took < kAnswerBound, qPrintable(QStringLiteral("%1 took %2 ms").arg(what).arg(took))); \
        ROBOT_NO_WARNINGS(what);                                                                        \
    } while (false)

QString trainFolder(const QString& root, const QString& name, const QStringList& arguments) {
    const QString out = QDir(root).filePath(name);
    const int status = runCli(QStringList{"momentum-lab-cli", "train", "--out", out} + arguments);
    return status == 0 ? out : QString();
}

// A trained folder of a 2-8-6-2 network described as a recorded model's layers with no network
// (as the PyTorch recorder writes a model whose layers form no chain): the app shows blocks.
QString asRecordedBlocks(const QString& folder) {
    if (folder.isEmpty()) return folder;
    QFile file(QDir(folder).filePath("config.json"));
    if (!file.open(QIODevice::ReadOnly)) return {};
    QJsonObject config = QJsonDocument::fromJson(file.readAll()).object();
    file.close();
    config.remove("network");
    config["recorded-layers"] = QJsonArray{
        QJsonObject{{"name", "encoder.0"}, {"kind", "linear"}, {"shape", QJsonArray{8, 2}}, {"follows", QJsonValue()}},
        QJsonObject{{"name", "encoder.2"}, {"kind", "linear"}, {"shape", QJsonArray{6, 8}}, {"follows", "encoder.0"}},
        QJsonObject{{"name", "head"}, {"kind", "linear"}, {"shape", QJsonArray{2, 6}}, {"follows", QJsonValue()}}};
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) return {};
    file.write(QJsonDocument(config).toJson());
    return folder;
}

// The screen the robot runs on (MOMENTUM_LAB_ROBOT_SCREEN, default 1366x768: the window lays
// its docks out for the screen it is on), and two window sizes on it: the whole screen less a
// 40 px panel, and the window's minimum size.
QSize robotScreen() {
    const QStringList size = qEnvironmentVariable("MOMENTUM_LAB_ROBOT_SCREEN", QStringLiteral("1366x768")).split('x');
    return size.size() == 2 ? QSize(size[0].toInt(), size[1].toInt()) : QSize(1366, 768);
}
struct WindowSize {
    QString name;
    QSize size;  // empty: the minimum
};
std::vector<WindowSize> windowSizes() {
    const QSize screen = robotScreen();
    return {{QStringLiteral("%1x%2").arg(screen.width()).arg(screen.height()), screen - QSize(0, 40)},
            {"minimum", QSize()}};
}

void showAt(MainWindow& window, QSize size) {
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.resize(size.isEmpty() ? window.minimumSizeHint().expandedTo(window.minimumSize()) : size);
    QApplication::processEvents();
}

// Widgets in shown docks that are smaller than their minimum (the layout squeezed them).
QStringList squeezedWidgets(MainWindow& window, bool atMinimum) {
    QStringList found;
    const QRect shown(QPoint(0, 0), window.size());
    for (QDockWidget* dock : window.findChildren<QDockWidget*>()) {
        if (!dock->isVisible() || !shown.intersects(dock->geometry())) continue;
        for (QWidget* widget : dock->findChildren<QWidget*>()) {
            if (!widget->isVisible() || widget->isWindow()) continue;
            if (widget->objectName().startsWith(QLatin1String("qt_"))) continue;
            if (qobject_cast<QAbstractScrollArea*>(widget->parentWidget() ? widget->parentWidget()->parentWidget()
                                                                          : nullptr))
                continue;  // a scroll area's contents may be larger than the area
            if (qobject_cast<QHeaderView*>(widget) || qobject_cast<QScrollBar*>(widget)) continue;
            if (qobject_cast<QTabBar*>(widget->parentWidget())) continue;  // a tab bar's own scroll arrows
            const QSizePolicy policy = widget->sizePolicy();
            const QSize hint = widget->minimumSizeHint();
            const int minimumWidth = widget->minimumWidth() > 0 ? widget->minimumWidth() : hint.width();
            const int minimumHeight = widget->minimumHeight() > 0 ? widget->minimumHeight() : hint.height();
            const QString name = QStringLiteral("%1/%2 (%3)")
                                     .arg(dock->objectName(), widget->objectName(),
                                          QString::fromLatin1(widget->metaObject()->className()));
            // Nothing scrolls sideways at the screen's size (the explainer's formula lines may). A table
            // may at the window's minimum, and beside the inspector on a 1366 px screen once it lists
            // more than four runs (a fork with its source overlaid: six rows of long labels).
            const bool tableMayScroll =
                qobject_cast<QTableView*>(widget) &&
                (atMinimum || (window.width() < 1400 && qobject_cast<QTableView*>(widget)->model()->rowCount() > 4));
            if (auto* area = qobject_cast<QAbstractScrollArea*>(widget);
                area && area->horizontalScrollBar()->isVisible() && !area->inherits("QPlainTextEdit") &&
                !tableMayScroll)
                found << QStringLiteral("%1 scrolls sideways").arg(name);
            if (policy.horizontalPolicy() != QSizePolicy::Ignored && widget->width() < minimumWidth)
                found << QStringLiteral("%1 is %2 px wide, needs %3").arg(name).arg(widget->width()).arg(minimumWidth);
            if (policy.verticalPolicy() != QSizePolicy::Ignored && widget->height() < minimumHeight)
                found
                    << QStringLiteral("%1 is %2 px high, needs %3").arg(name).arg(widget->height()).arg(minimumHeight);
        }
    }
    return found;
}

// Visible widgets in shown docks that overlap a visible sibling by more than a pixel or two
// (what a layout squeezed below its minimum does: controls printed over each other).
QStringList overlappingSiblings(MainWindow& window) {
    QStringList found;
    const QRect shown(QPoint(0, 0), window.size());
    for (QDockWidget* dock : window.findChildren<QDockWidget*>()) {
        if (!dock->isVisible() || !shown.intersects(dock->geometry())) continue;
        for (QWidget* parent : dock->findChildren<QWidget*>()) {
            if (!parent->isVisible() || qobject_cast<QAbstractScrollArea*>(parent)) continue;
            std::vector<QWidget*> children;
            for (QWidget* child : parent->findChildren<QWidget*>(Qt::FindDirectChildrenOnly))
                if (child->isVisible() && !child->isWindow() && !child->objectName().startsWith(QLatin1String("qt_")))
                    children.push_back(child);
            for (std::size_t i = 0; i < children.size(); ++i)
                for (std::size_t j = i + 1; j < children.size(); ++j) {
                    const QRect overlap = children[i]->geometry().intersected(children[j]->geometry());
                    if (overlap.width() > 2 && overlap.height() > 2)
                        found << QStringLiteral("%1: %2 (%3) overlaps %4 (%5) by %6 x %7 px")
                                     .arg(dock->objectName(), children[i]->metaObject()->className(),
                                          children[i]->objectName(), children[j]->metaObject()->className(),
                                          children[j]->objectName())
                                     .arg(overlap.width())
                                     .arg(overlap.height());
                }
        }
    }
    return found;
}

QDockWidget* dock(MainWindow& window, const char* name) { return window.findChild<QDockWidget*>(name); }

// Clicks tab `index` of `bar` where it is drawn.
void clickTab(QTabBar* bar, int index) {
    if (!bar->isVisible()) return;
    QTest::mouseClick(bar, Qt::LeftButton, {}, bar->tabRect(index).center());
}

// Steps a combo box through every entry with the keyboard, calling `each` after each.
template <typename Each>
void throughEveryEntry(QComboBox* combo, Each&& each) {
    if (!combo->isVisible() || !combo->isEnabled()) return;
    const int start = combo->currentIndex();
    combo->setFocus();
    QTest::keyClick(combo, Qt::Key_Home);
    each();
    for (int i = 1; i < combo->count(); ++i) {
        QTest::keyClick(combo, Qt::Key_Down);
        each();
    }
    combo->setCurrentIndex(start);
}

// With MOMENTUM_LAB_ROBOT_SHOTS=DIR the robot saves what the window shows at its main moments
// (DIR/<scenario>-<view>.png), for a developer to look at.
void shot(QWidget& window, const QString& name) {
    const QString folder = qEnvironmentVariable("MOMENTUM_LAB_ROBOT_SHOTS");
    if (folder.isEmpty()) return;
    QDir().mkpath(folder);
    QApplication::processEvents();
    QString file = name;
    file.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9]+")), QStringLiteral("-"));
    window.grab().save(QDir(folder).filePath(file + ".png"));
}

// The PNG holds something besides the background.
bool hasInk(const QString& path) {
    const QImage image(path);
    if (image.isNull()) return false;
    const QRgb background = image.pixel(0, 0);
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2)
            if (image.pixel(x, y) != background) return true;
    return false;
}

// Lines of a text file (0 when it is missing).
int lineCount(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return 0;
    return static_cast<int>(file.readAll().count('\n'));
}

}  // namespace

class TestRobot : public QObject {
    Q_OBJECT

    QTemporaryDir root_;
    std::map<QString, QString> folders_;  // scenario -> run folder

    // Clicks every drawn neuron (channel) of every diagram canvas, and a connection into each
    // neuron of the first canvas; the inspector must follow each click.
    void clickEveryNeuron(MainWindow& window, const QString& where) {
        auto* diagram = window.findChild<NetworkDiagramPanel*>();
        QVERIFY(diagram);
        for (NetworkDiagramView* canvas : diagram->canvases()) {
            if (!canvas->isVisible() || !canvas->hasSnapshot()) continue;
            const NetworkUnits& units = canvas->units();
            for (int layer = 0; layer < static_cast<int>(units.layers.size()); ++layer) {
                for (int neuron = 0; neuron < units.layers[static_cast<std::size_t>(layer)].outputs; ++neuron) {
                    const QPointF center = canvas->neuronCenter(layer, neuron);
                    if (center.isNull()) continue;  // not drawn (a wide layer shows 16)
                    const QString what =
                        QStringLiteral("%1: click layer %2 neuron %3").arg(where).arg(layer).arg(neuron);
                    ROBOT_ACT(what, QTest::mouseClick(canvas, Qt::LeftButton, {}, center.toPoint()));
                    NeuronInspector* inspector = window.neuronInspector();
                    // A recorded model's block is drawn alone: its neurons are that layer's.
                    const int expected = diagram->pickedBlock() >= 0 ? diagram->pickedBlock() : layer;
                    QVERIFY2(inspector->layer() == expected && inspector->neuron() == neuron, qPrintable(what));
                    if (canvas != diagram->canvases().front()) continue;
                    const QPointF from = canvas->neuronCenter(layer - 1, 0);
                    if (from.isNull()) continue;
                    const QPoint middle = ((from + center) / 2).toPoint();
                    ROBOT_ACT(what + " connection", QTest::mouseClick(canvas, Qt::LeftButton, {}, middle));
                }
            }
        }
    }

    // Raises each inspector tab, and each dock tab of the window, by clicking it.
    void clickEveryTab(MainWindow& window, const QString& where) {
        QTabWidget* tabs = window.neuronInspector()->tabs();
        dock(window, "inspectorDock")->raise();
        QApplication::processEvents();
        for (int i = 0; i < tabs->count(); ++i)
            ROBOT_ACT(QStringLiteral("%1: inspector tab %2").arg(where, tabs->tabText(i)), clickTab(tabs->tabBar(), i));
        tabs->setCurrentIndex(0);
        for (QTabBar* bar : window.findChildren<QTabBar*>(Qt::FindDirectChildrenOnly))
            for (int i = 0; i < bar->count(); ++i)
                ROBOT_ACT(QStringLiteral("%1: dock tab %2").arg(where, bar->tabText(i)), clickTab(bar, i));
        dock(window, "summaryDock")->raise();
        dock(window, "inspectorDock")->raise();
        QApplication::processEvents();
    }

    // Every registered view (views/ViewRegistry.h) brought to the front of its dock, as the View menu
    // does (a dock hidden at first is opened and closed again): a new view is visited with no line here.
    void raiseEveryView(MainWindow& window, const QString& where) {
        const QSize size = window.size();
        for (const ViewRegistration& view : viewRegistry()) {
            if (!view.dock) continue;
            QDockWidget* place = dock(window, qPrintable(view.dock->objectName));
            QVERIFY2(place, qPrintable(QStringLiteral("%1: no dock for the view %2").arg(where, view.name)));
            const bool hidden = place->isHidden();
            if (hidden) ROBOT_ACT(where + ": open " + view.name, place->toggleViewAction()->trigger());
            ROBOT_ACT(where + ": raise " + view.name, place->raise());
            QVERIFY2(place->isVisible(), qPrintable(where + ": " + view.name + " is not shown"));
            shot(window, where + " view " + view.name);
            if (!hidden) continue;
            ROBOT_ACT(where + ": close " + view.name, place->toggleViewAction()->trigger());
            // Opened at 1366 x 768, the loss landscape widens and heightens the window beyond the
            // screen (its plots' minimum sizes); the rest of the visit is at the window's own size.
            window.resize(size);
            QApplication::processEvents();
        }
        dock(window, "summaryDock")->raise();
        dock(window, "inspectorDock")->raise();
        QApplication::processEvents();
    }

    // Every colour quantity of the diagram and the heat-map, in both comparison modes.
    void switchQuantitiesAndModes(MainWindow& window, const QString& where) {
        auto* bar = window.findChild<ComparisonBar*>();
        QVERIFY(bar);
        QComboBox* mode = bar->modeBox();
        for (int m = 0; m < mode->count(); ++m) {
            mode->setCurrentIndex(m);
            QApplication::processEvents();
            for (QuantitySelector* quantities : window.findChildren<QuantitySelector*>()) {
                throughEveryEntry(quantities, [&] {
                    ROBOT_ACT(QStringLiteral("%1: mode %2, quantity %3")
                                  .arg(where, mode->itemText(m), quantities->currentText()),
                              (void)0);
                });
                if (QTest::currentTestFailed()) return;
            }
        }
        mode->setCurrentIndex(0);
    }

    // Compare ▾: each run's box unticked and ticked again by a click, in one visit of the menu
    // (it stays open after each click); the button names the runs shown.
    void tickRunsInCompareMenu(MainWindow& window, const QString& where) {
        auto* button = window.findChild<QToolButton*>("compareRuns");
        QVERIFY(button);
        if (!button->isVisible()) return;
        const std::vector<int> before = window.runSelection()->shown();
        bool stayedOpen = true;
        int clicked = 0;
        QTimer::singleShot(50, [&] {
            QMenu* menu = button->menu();
            for (QCheckBox* box : menu->findChildren<QCheckBox*>()) {
                if (!box->isVisible()) continue;
                QTest::mouseClick(box, Qt::LeftButton, {}, QPoint(box->height() / 2, box->height() / 2));
                QTest::mouseClick(box, Qt::LeftButton, {}, QPoint(box->height() / 2, box->height() / 2));
                stayedOpen = stayedOpen && menu->isVisible();
                ++clicked;
            }
            menu->close();
        });
        ROBOT_ACT(where + ": Compare menu", QTest::mouseClick(button, Qt::LeftButton));
        QVERIFY2(stayedOpen, qPrintable(where + ": the Compare menu closed after a click"));
        QCOMPARE(clicked, window.runSelection()->labels().size());
        std::vector<int> after = window.runSelection()->shown();
        std::vector<int> expected = before;
        std::sort(after.begin(), after.end());
        std::sort(expected.begin(), expected.end());
        QVERIFY2(after == expected, qPrintable(where + ": unticking and ticking each run changed what is shown"));
    }

    // The scrubber to the first, a middle and the last step (keys on the slider).
    void scrub(MainWindow& window, const QString& where) {
        QSlider* slider = window.findChild<ComparisonBar*>()->scrubber();
        if (!slider->isVisible() || !slider->isEnabled()) return;
        slider->setFocus();
        ROBOT_ACT(where + ": scrub to the first step", QTest::keyClick(slider, Qt::Key_Home));
        // A few single steps, then page by page towards the middle: every key is a redraw of every
        // view, and a long training has hundreds of saved steps (minutes under the sanitizers).
        const int middle = (slider->minimum() + slider->maximum()) / 2;
        for (int i = 0; i < 4 && slider->value() < middle; ++i) QTest::keyClick(slider, Qt::Key_Right);
        for (int i = 0; i < 12 && slider->value() + slider->pageStep() <= middle; ++i)
            QTest::keyClick(slider, Qt::Key_PageUp);
        ROBOT_ACT(where + ": scrub to a middle step", (void)0);
        ROBOT_ACT(where + ": scrub to the last step", QTest::keyClick(slider, Qt::Key_End));
    }

    // Exports the report and checks every figure in it: a PNG with ink, a CSV with rows.
    void exportReport(MainWindow& window, const QString& where) {
        QTemporaryDir temporary;
        QString folder = temporary.path();
        if (const QString shots = qEnvironmentVariable("MOMENTUM_LAB_ROBOT_SHOTS");
            !shots.isEmpty())  // kept to look at
            folder = QDir(shots).filePath("report-" + QString(where).replace(QRegularExpression("[^A-Za-z0-9]+"), "-"));
        QDir().mkpath(folder);
        const QDir out(folder);
        auto* exporter = window.findChild<ExportController*>();
        QVERIFY(exporter);
        QStringList written;
        ROBOT_ACT(where + ": export the report", written = exporter->writeReport(out.path(), FigureOptions{}));
        QVERIFY2(written.contains("index.html"), qPrintable(where));
        int figures = 0;
        for (const QString& file : written) {
            if (!file.endsWith(".png")) continue;
            ++figures;
            const QString path = QDir(out.path()).filePath(file);
            QVERIFY2(hasInk(path), qPrintable(QStringLiteral("%1: %2 is blank").arg(where, file)));
            const QString csv = path.chopped(4) + ".csv";
            if (QFileInfo::exists(csv))
                QVERIFY2(lineCount(csv) >= 2,
                         qPrintable(QStringLiteral("%1: %2 has no rows").arg(where, QFileInfo(csv).fileName())));
        }
        QVERIFY2(figures >= 2, qPrintable(where));
        // Each registered view's figures are in the report, or left out there with their reason.
        const QString index = QString::fromUtf8([&] {
            QFile file(out.filePath("index.html"));
            return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
        }());
        for (const NamedFigure& figure : window.figures())
            QVERIFY2(written.contains(figure.name + ".png") ||
                         index.contains("<li>" + figure.caption.toHtmlEscaped() + ": " +
                                        figure.leftOutBecause.toHtmlEscaped() + "</li>"),
                     qPrintable(QStringLiteral("%1: %2 neither written nor left out").arg(where, figure.name)));
    }

    // A recorded model's blocks: each clicked, then each of its neurons.
    void clickEveryBlock(MainWindow& window, const QString& where) {
        auto* blocks = window.findChild<LayerBlockList*>("layerBlocks");
        if (!blocks || !blocks->isVisible()) return;
        auto* diagram = window.findChild<NetworkDiagramPanel*>();
        for (int block = 0; block < blocks->count(); ++block) {
            const QString what = QStringLiteral("%1: click block %2").arg(where, blocks->layerName(block));
            const QRect rect = blocks->visualItemRect(blocks->item(block));
            ROBOT_ACT(what, QTest::mouseClick(blocks->viewport(), Qt::LeftButton, {}, rect.center()));
            QVERIFY2(diagram->pickedBlock() == block, qPrintable(what));
            shot(window, what);
            clickEveryNeuron(window, what);
            if (QTest::currentTestFailed()) return;
        }
    }

    void drive(MainWindow& window, const QString& where) {
        raiseEveryView(window, where);
        if (QTest::currentTestFailed()) return;
        clickEveryTab(window, where);
        if (QTest::currentTestFailed()) return;
        clickEveryNeuron(window, where);
        if (QTest::currentTestFailed()) return;
        clickEveryBlock(window, where);
        if (QTest::currentTestFailed()) return;
        // The first hidden neuron (channel) once more, and each inspector tab shown with it.
        auto* canvas = window.findChild<NetworkDiagramPanel*>()->canvases().front();
        if (const QPointF first = canvas->neuronCenter(0, 0); !first.isNull()) {
            ROBOT_ACT(where + ": click layer 0 neuron 0",
                      QTest::mouseClick(canvas, Qt::LeftButton, {}, first.toPoint()));
            QTabWidget* tabs = window.neuronInspector()->tabs();
            for (int i = 0; i < tabs->count(); ++i) {
                if (!tabs->isTabEnabled(i) || !tabs->isTabVisible(i)) continue;
                ROBOT_ACT(QStringLiteral("%1: inspector tab %2").arg(where, tabs->tabText(i)),
                          clickTab(tabs->tabBar(), i));
                shot(window, where + " " + tabs->tabText(i));
            }
            tabs->setCurrentIndex(0);
        }
        switchQuantitiesAndModes(window, where);
        if (QTest::currentTestFailed()) return;
        scrub(window, where);
        if (QTest::currentTestFailed()) return;
        tickRunsInCompareMenu(window, where);
        if (QTest::currentTestFailed()) return;
        // Each run shown alone, then all of them again.
        RunSelection* selection = window.runSelection();
        const std::vector<int> shown = selection->shown();
        for (int run = 0; run < selection->labels().size(); ++run)
            ROBOT_ACT(QStringLiteral("%1: show run %2 alone").arg(where).arg(run), selection->setShown({run}));
        selection->setShown(shown);
        const QStringList squeezed = squeezedWidgets(window, where.contains("minimum")) + overlappingSiblings(window);
        QVERIFY2(squeezed.isEmpty(), qPrintable(where + ":\n" + squeezed.join('\n')));
        exportReport(window, where);
    }

private Q_SLOTS:
    void initTestCase() {
        useOwnSettingsFolder();
        QVERIFY(root_.isValid());
        const QStringList xor_{"--network", "2-8-2",   "--loss", "cross-entropy",     "--data", "toy:xor", "--batch",
                               "50",        "--steps", "60",     "--snapshots-every", "10"};
        folders_["one run"] = trainFolder(root_.path(), "one", xor_ + QStringList{"--optimizer", "momentum"});
        folders_["two runs"] =
            trainFolder(root_.path(), "two", xor_ + QStringList{"--optimizer", "momentum,neuron-mean"});
        folders_["four runs"] =
            trainFolder(root_.path(), "four", xor_ + QStringList{"--optimizer", "momentum,neuron-mean,adam,sgd"});
        folders_["nine runs"] = trainFolder(
            root_.path(), "nine",
            xor_ + QStringList{"--optimizer", "sgd,momentum,nesterov,adam,adamw,nero,neuron-mean,rmsprop,adagrad"});
        folders_["image runs"] =
            trainFolder(root_.path(), "image",
                        {"--network", "64-16-10", "--loss", "cross-entropy", "--data", "digits", "--batch", "32",
                         "--steps", "40", "--snapshots-every", "10", "--optimizer", "momentum,neuron-mean,adam,sgd"});
        folders_["conv"] = trainFolder(root_.path(), "conv",
                                       {"--network", "1x8x8-conv4k3-pool2-10", "--activation", "relu", "--loss",
                                        "cross-entropy", "--data", "digits", "--batch", "32", "--steps", "30",
                                        "--snapshots-every", "10", "--optimizer", "momentum,neuron-mean,adam"});
        folders_["recorded blocks"] = asRecordedBlocks(
            trainFolder(root_.path(), "blocks",
                        {"--network", "2-8-6-2", "--loss", "cross-entropy", "--data", "toy:xor", "--batch", "50",
                         "--steps", "40", "--snapshots-every", "10", "--optimizer", "momentum,neuron-mean,adam"}));
        // tests/studies/tiny.json: two optimizers, 3 tuning trials each, 3 seeds, 60 steps (under a second).
        const QString study = root_.filePath("study");
        folders_["study"] =
            runCli({"momentum-lab-cli", "study", QStringLiteral(MOMENTUM_LAB_SOURCE_DIR "/tests/studies/tiny.json"),
                    "--out", study, "--jobs", "2", "--quiet"}) == 0
                ? study
                : QString();
        for (const auto& [name, folder] : folders_) QVERIFY2(!folder.isEmpty(), qPrintable(name + ": the CLI failed"));
        caughtWarnings().clear();
        qInstallMessageHandler(catchWarnings);
    }

    void cleanupTestCase() { qInstallMessageHandler(nullptr); }

    void everyViewOfEveryFolderAtEverySize_data() {
        QTest::addColumn<QString>("scenario");
        QTest::addColumn<int>("size");
        const std::vector<WindowSize> sizes = windowSizes();
        for (const char* scenario :
             {"one run", "two runs", "four runs", "nine runs", "image runs", "conv", "recorded blocks"})
            for (int s = 0; s < static_cast<int>(sizes.size()); ++s)
                QTest::newRow(
                    qPrintable(QStringLiteral("%1 at %2").arg(scenario, sizes[static_cast<std::size_t>(s)].name)))
                    << QString(scenario) << s;
    }

    void everyViewOfEveryFolderAtEverySize() {
        QFETCH(QString, scenario);
        QFETCH(int, size);
        const WindowSize shown = windowSizes()[static_cast<std::size_t>(size)];
        MainWindow window;
        showAt(window, shown.size);
        if (QTest::currentTestFailed()) return;
        ROBOT_ACT("open " + scenario, window.openRunFolder(folders_[scenario]));
        drive(window, QStringLiteral("%1 at %2").arg(scenario, shown.name));
        if (scenario == "image runs" &&
            !QTest::currentTestFailed()) {  // a folder of image data shows its neurons as images
            QTabWidget* tabs = window.neuronInspector()->tabs();
            QVERIFY2(window.neuronInspector()->layer() == 0 && tabs->isTabEnabled(1),
                     "As image is not offered for a digits folder");
        }
    }

    // A finished comparison forked, and a run-history overlay: their views hold up as well.
    void forkedAndOverlaidComparisons() {
        MainWindow window;
        showAt(window, windowSizes().front().size);
        window.openRunFolder(folders_["four runs"]);
        QApplication::processEvents();
        const std::vector<RunSpec> branches{{"momentum", "momentum", optimizerInfo("momentum").defaults},
                                            {"neuron-mean", "neuron-mean", optimizerInfo("neuron-mean").defaults}};
        // A run folder holds no trainer state: the fork needs a training of this window.
        Experiment experiment = window.experimentPanel()->experiment();
        window.experimentPanel()->setExperiment(experiment);
        ROBOT_ACT("start", window.trainingActions()->start()->trigger());
        QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), SessionState::Finished, 30000);
        QString refusal;
        QVERIFY2(window.forkRun(0, branches, experiment.steps + 20, &refusal), qPrintable(refusal));
        QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), SessionState::Finished, 30000);
        ROBOT_NO_WARNINGS("fork");
        shot(window, "fork");
        drive(window, "fork");
        if (QTest::currentTestFailed()) return;
        QVERIFY(window.runHistory()->size() >= 1);
        ROBOT_ACT("overlay the first record",
                  QVERIFY(window.overlayKept(window.runHistory()->records().front().number)));
        drive(window, "history overlay");
    }

    // The xor preset with four runs trained live with the output view open: it follows the
    // training, draws every run side by side, and replays with the scrubber.
    void outputViewOfTheXorPreset() {
        MainWindow window;
        showAt(window, windowSizes().front().size);
        Experiment experiment = findPreset("xor").experiment;
        for (const char* rule : {"adam", "sgd"}) experiment.runs.push_back({rule, rule, optimizerInfo(rule).defaults});
        window.experimentPanel()->setExperiment(experiment);
        QDockWidget* place = dock(window, "outputDock");
        QVERIFY(place);
        ROBOT_ACT("open the output view", place->toggleViewAction()->trigger());
        ROBOT_ACT("raise the output view", place->raise());
        ROBOT_ACT("start the xor preset", window.trainingActions()->start()->trigger());
        QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), SessionState::Finished, 60000);
        ROBOT_NO_WARNINGS("xor preset trained");
        auto* view = window.findChild<OutputView*>();
        QVERIFY(view && view->isVisible());
        QVERIFY2(view->message().isEmpty(), qPrintable(view->message()));
        QCOMPARE(view->columnCount(), 4);
        shot(window, "xor preset view network-output");
        scrub(window, "xor preset");
        QVERIFY2(view->message().isEmpty() && view->columnCount() == 4, qPrintable(view->message()));
    }

    // Nine xor runs side by side with the diagram's neuron functions on: every canvas draws them,
    // through the scrubber's steps too.
    void neuronFunctionsOfNineRuns() {
        MainWindow window;
        showAt(window, windowSizes().front().size);
        ROBOT_ACT("open nine runs", window.openRunFolder(folders_["nine runs"]));
        window.runSelection()->setShown({0, 1, 2, 3, 4, 5, 6, 7, 8});
        auto* diagram = window.findChild<NetworkDiagramPanel*>();
        auto* toggle = diagram->findChild<QCheckBox*>(QStringLiteral("neuronFunctions"));
        QVERIFY(toggle && toggle->isEnabled());
        ROBOT_ACT("neuron functions on",
                  QTest::mouseClick(toggle, Qt::LeftButton, {}, QPoint(8, toggle->height() / 2)));
        QVERIFY(diagram->thumbnailsShown());
        for (NetworkDiagramView* canvas : diagram->canvases()) QVERIFY(canvas->thumbnails());
        shot(window, "nine runs neuron functions");
        scrub(window, "nine runs neuron functions");
        ROBOT_ACT("neuron functions off", toggle->click());
    }

    // A study folder's window, at the screen's size and its minimum: every tab raised by a click,
    // nothing squeezed or overprinted, no Qt warning.
    void studyWindowHoldsUp() {
        MainWindow window;
        showAt(window, windowSizes().front().size);
        ROBOT_ACT("open the study", window.openStudy(folders_["study"]));
        QWidget* study = nullptr;
        for (QWidget* top : QApplication::topLevelWidgets())
            if (top != &window && top->isVisible() && top->inherits("ml::StudyWindow")) study = top;
        QVERIFY2(study, "no study window opened");
        for (const WindowSize& size : windowSizes()) {
            study->resize(size.size.isEmpty() ? study->minimumSizeHint() : size.size);
            QApplication::processEvents();
            for (QTabBar* bar : study->findChildren<QTabBar*>())
                for (int i = 0; i < bar->count(); ++i)
                    ROBOT_ACT(QStringLiteral("study at %1: tab %2").arg(size.name, bar->tabText(i)), clickTab(bar, i));
            shot(*study, "study at " + size.name);
            QStringList squeezed;
            for (QWidget* widget : study->findChildren<QWidget*>()) {
                if (!widget->isVisible() || widget->objectName().startsWith(QLatin1String("qt_"))) continue;
                if (qobject_cast<QAbstractScrollArea*>(widget->parentWidget() ? widget->parentWidget()->parentWidget()
                                                                              : nullptr))
                    continue;
                if (qobject_cast<QHeaderView*>(widget) || qobject_cast<QScrollBar*>(widget) ||
                    qobject_cast<QTabBar*>(widget->parentWidget()))
                    continue;
                const QSize least = widget->minimumSizeHint().expandedTo(widget->minimumSize());
                if ((widget->sizePolicy().horizontalPolicy() != QSizePolicy::Ignored &&
                     widget->width() < least.width()) ||
                    (widget->sizePolicy().verticalPolicy() != QSizePolicy::Ignored &&
                     widget->height() < least.height()))
                    squeezed << QStringLiteral("%1 is %2 x %3, needs %4 x %5")
                                    .arg(widget->metaObject()->className())
                                    .arg(widget->width())
                                    .arg(widget->height())
                                    .arg(least.width())
                                    .arg(least.height());
            }
            QVERIFY2(squeezed.isEmpty(),
                     qPrintable(QStringLiteral("study at %1:\n").arg(size.name) + squeezed.join('\n')));
        }
        study->close();
    }

    // A Start refused for bad input changes nothing on screen: no run-history entry, the same
    // curves, the same diagram.
    void aRefusedStartChangesNothing() {
        MainWindow window;
        showAt(window, windowSizes().front().size);
        window.openRunFolder(folders_["two runs"]);
        QApplication::processEvents();
        const int kept = window.runHistory()->size();
        const int graphs = window.convergencePlot()->plot()->graphCount();
        auto* diagram = window.findChild<NetworkDiagramPanel*>();
        QVERIFY(diagram->view()->hasSnapshot());
        Experiment experiment = window.experimentPanel()->experiment();
        experiment.data = "csv:" + root_.filePath("missing.csv").toStdString();
        window.experimentPanel()->setExperiment(experiment);
        QTimer closer;  // the refusal's message box
        QObject::connect(&closer, &QTimer::timeout, [] {
            if (QWidget* box = QApplication::activeModalWidget()) box->close();
        });
        closer.start(20);
        window.trainingActions()->start()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(!window.session()->isBusy(), 20000);
        QApplication::processEvents();
        ROBOT_NO_WARNINGS("refused start");
        QVERIFY2(window.statusBar()->currentMessage().contains("missing.csv"),
                 qPrintable(window.statusBar()->currentMessage()));
        QCOMPARE(window.runHistory()->size(), kept);
        QCOMPARE(window.convergencePlot()->plot()->graphCount(), graphs);
        QVERIFY(diagram->view()->hasSnapshot());
    }

    // Seeded random clicks, drags, wheel turns and keys over the whole window. Dialogs that open
    // are closed again; the seed is printed so that a failure replays exactly.
    void monkey() {
        const quint32 seed = qEnvironmentVariableIsSet("MOMENTUM_LAB_MONKEY_SEED")
                                 ? qEnvironmentVariable("MOMENTUM_LAB_MONKEY_SEED").toUInt()
                                 : static_cast<quint32>(QDateTime::currentMSecsSinceEpoch());
        const double seconds = qEnvironmentVariableIsSet("MOMENTUM_LAB_MONKEY_SECONDS")
                                   ? qEnvironmentVariable("MOMENTUM_LAB_MONKEY_SECONDS").toDouble()
                                   : 10.0;
        qInfo("monkey seed %u (MOMENTUM_LAB_MONKEY_SEED=%u replays it), %.0f s", seed, seed, seconds);
        MainWindow window;
        showAt(window, windowSizes().front().size);
        window.openRunFolder(folders_["four runs"]);
        QApplication::processEvents();
        QTimer closer;  // a dialog or menu opened by a random click is closed at its next turn
        QObject::connect(&closer, &QTimer::timeout, [] {
            if (QWidget* popup = QApplication::activePopupWidget()) popup->close();
            if (QWidget* modal = QApplication::activeModalWidget()) modal->close();
        });
        closer.start(50);
        std::mt19937 random(seed);
        const auto pick = [&random](int n) {
            return std::uniform_int_distribution<int>(0, std::max(0, n - 1))(random);
        };
        QElapsedTimer clock;
        clock.start();
        long events = 0;
        while (clock.elapsed() < seconds * 1000) {
            const QPoint at(pick(window.width()), pick(window.height()));
            QWidget* target = window.childAt(at);
            if (!target) target = &window;
            const QPoint local = target->mapFrom(&window, at);
            const int kind = pick(10);
            const QString what = QStringLiteral("monkey event %1 (kind %2 at %3,%4 on %5)")
                                     .arg(events)
                                     .arg(kind)
                                     .arg(at.x())
                                     .arg(at.y())
                                     .arg(target->metaObject()->className());
            const qint64 took = timed([&] {
                if (kind < 5) {
                    QTest::mouseClick(target, Qt::LeftButton, {}, local);
                } else if (kind == 5) {
                    QTest::mousePress(target, Qt::LeftButton, {}, local);
                    QTest::mouseMove(target, local + QPoint(pick(80) - 40, pick(80) - 40));
                    QTest::mouseRelease(target, Qt::LeftButton, {}, local + QPoint(pick(80) - 40, pick(80) - 40));
                } else if (kind == 6) {
                    QWheelEvent wheel(local, target->mapToGlobal(local), {}, QPoint(0, pick(2) ? 120 : -120),
                                      Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
                    QApplication::sendEvent(target, &wheel);
                } else if (kind == 7) {
                    QTest::mouseDClick(target, Qt::LeftButton, {}, local);
                } else {
                    static const Qt::Key keys[] = {Qt::Key_Down, Qt::Key_Up, Qt::Key_Tab,   Qt::Key_Space, Qt::Key_Home,
                                                   Qt::Key_End,  Qt::Key_1,  Qt::Key_Minus, Qt::Key_Escape};
                    QTest::keyClick(target, keys[pick(9)]);
                }
            });
            QVERIFY2(took < kAnswerBound,
                     qPrintable(QStringLiteral("seed %1: %2 took %3 ms").arg(seed).arg(what).arg(took)));
            const QStringList warnings = std::exchange(caughtWarnings(), {});
            QVERIFY2(warnings.isEmpty(),
                     qPrintable(QStringLiteral("seed %1: %2: %3").arg(seed).arg(what, warnings.join("; "))));
            ++events;
        }
        // Whatever the monkey started, the window still closes cleanly.
        window.session()->stop();
        QTRY_VERIFY_WITH_TIMEOUT(window.session()->state() != SessionState::Running, 30000);
        qInfo("monkey: %ld events", events);
        QVERIFY(events > 0);
    }
};

// The robot's screen as an offscreen screen (the platform's default is 800 x 600): a configuration file.
int main(int argc, char* argv[]) {
    QTemporaryDir directory;
    const QString config = directory.filePath("screen.json");
    QFile file(config);
    if (!file.open(QIODevice::WriteOnly)) return 1;
    const QSize screen = robotScreen();
    file.write(QStringLiteral(R"({"screens": [{"name": "robot", "x": 0, "y": 0, "width": %1, "height": %2,
                   "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]})")
                   .arg(screen.width())
                   .arg(screen.height())
                   .toUtf8());
    file.close();
    qputenv("QT_QPA_PLATFORM", QStringLiteral("offscreen:configfile=%1").arg(config).toLocal8Bit());
    QApplication app(argc, argv);
    TestRobot test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_robot.moc"
