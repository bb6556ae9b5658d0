// The desktop app's non-visual guarantees: the training bridge streams every step and the
// latest snapshots and stops cleanly, controls change its state, no thread outlives its owner,
// the convergence history stays bounded, exports are valid files, run folders open.
#include "TestSettings.h"
#include "AppSettings.h"
#include "TestSupport.h"
#include "cli/Cli.h"
#include "data/DataRegistry.h"
#include "experiment/ExperimentPanel.h"
#include "experiment/HyperParameterForm.h"
#include "experiment/SeedSpinBox.h"
#include "command/ExportCommand.h"
#include "export/Figure.h"
#include "export/FigureSizeDialog.h"
#include "export/ReportWriter.h"
#include "InputError.h"
#include "MainWindow.h"
#include "model/MetricsHistory.h"
#include "model/RunComparison.h"
#include "model/RunSummaryModel.h"
#include "optim/OptimizerCatalog.h"
#include "session/FolderSnapshots.h"
#include "common/Mailbox.h"
#include "session/ProgressIndicator.h"
#include "session/SpeedControl.h"
#include "session/TrainingActions.h"
#include "session/TrainingFeed.h"
#include "session/TrainingSession.h"
#include "views/DiagnosticsDock.h"
#include "views/FeatureMapView.h"
#include "views/LayerHeatmapView.h"
#include "views/NetworkDiagramView.h"
#include "views/NeuronInspector.h"
#include "model/RunSelection.h"
#include "model/ComparisonHistory.h"
#include "views/ViewControls.h"
#include "train/LockstepTrainer.h"
#include "runfolder/RunFolderLayout.h"
#include "runfolder/RunFolderReader.h"
#include "runfolder/RunFolderWriter.h"
#include "runfolder/SnapshotFile.h"
#include "views/ConvergencePlot.h"

#include <QAction>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QJsonDocument>
#include <QProcess>
#include <QRegularExpression>
#include <QDockWidget>
#include <qcustomplot.h>

#include <functional>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QTimer>
#include <QTabWidget>
#include <QToolBar>
#include <QScreen>
#include <QSlider>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTemporaryFile>
#include <QXmlStreamReader>
#include <QtTest>
#include <qcustomplot.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <limits>
#include <thread>
#include <unistd.h>
#include <cstdio>
#include <map>
#include <random>

using namespace ml;

namespace {

HyperParameters optimizerDefaults(const std::string& name) { return optimizerInfo(name).defaults; }

Experiment sineExperiment(long steps) {
    Experiment experiment;
    experiment.name = "test sine";
    experiment.network.setSizes({1, 2, 2, 1});
    experiment.data = "toy:sine";
    experiment.steps = steps;
    experiment.evalEvery = 10;
    experiment.runs = {{"momentum", "momentum", optimizerDefaults("momentum")},
                       {"neuron-mean", "neuron-mean", optimizerDefaults("neuron-mean")}};
    return experiment;
}

std::vector<StepMetrics> collectMetrics(const QSignalSpy& spy) {
    std::vector<StepMetrics> all;
    for (const QList<QVariant>& arguments : spy) {
        const auto batch = arguments.at(0).value<std::vector<StepMetrics>>();
        all.insert(all.end(), batch.begin(), batch.end());
    }
    return all;
}

// Share of pixels that are not (near) white.
double inkFraction(const QImage& image) {
    long ink = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            if (qGray(image.pixel(x, y)) < 200) ++ink;
    return double(ink) / (double(image.width()) * image.height());
}

QByteArray readBytes(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// What `export` prints on stderr for these arguments.
QString exportMessage(const QStringList& arguments) {
    QTemporaryFile capture;
    capture.open();
    const int saved = dup(fileno(stderr));
    fflush(stderr);
    dup2(capture.handle(), fileno(stderr));
    runExportCommand(arguments);
    fflush(stderr);
    dup2(saved, fileno(stderr));
    close(saved);
    capture.seek(0);
    return QString::fromUtf8(capture.readAll());
}

// The visible texts of a heat-map ("... not kept by this optimizer"), or "".
QString heatmapMessage(LayerHeatmapView* view) {
    QStringList texts;
    for (int i = 0; i < view->plot()->itemCount(); ++i)
        if (auto* text = qobject_cast<QCPItemText*>(view->plot()->item(i)); text && text->visible())
            texts << text->text().simplified();  // wrapped to its panel
    return texts.join(" | ");
}

// A finished CLI-style run folder of a tiny toy:xor experiment.
QString writeRunFolder(const QString& directory, const std::function<void(Experiment&)>& adjust = {}) {
    Experiment experiment;
    experiment.name = "xor folder";
    experiment.network.setSizes({2, 4, 2});
    experiment.network.loss = LossKind::CrossEntropy;
    experiment.data = "toy:xor";
    experiment.steps = 60;
    experiment.evalEvery = 5;
    experiment.runs = {{"sgd", "sgd", optimizerDefaults("sgd")}, {"adam", "adam", optimizerDefaults("adam")}};
    if (adjust) adjust(experiment);
    LockstepTrainer trainer(experiment, loadDataSplit(experiment.data, experiment.seed));
    RunFolderWriter writer(directory, trainer);
    trainer.addObserver(&writer);
    RunControl control;
    trainer.run(control);
    writer.finish();
    return directory;
}

}  // namespace

class TestUi : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        useOwnSettingsFolder();  // no saved layout or experiment, and no other test's
    }

    void sessionStreamsEveryStepAndLatestSnapshots() {
        TrainingSession session;
        QSignalSpy metrics(&session, &TrainingSession::metricsArrived);
        QSignalSpy snapshots(&session, &TrainingSession::snapshotsArrived);
        QSignalSpy finished(&session, &TrainingSession::runFinished);
        QVERIFY(session.start(sineExperiment(400)));
        QTRY_COMPARE_WITH_TIMEOUT(session.state(), SessionState::Finished, 20000);

        const std::vector<StepMetrics> all = collectMetrics(metrics);
        QCOMPARE(all.size(), std::size_t(800));  // every step of both runs, no loss, no duplicates
        std::map<int, long> lastStep;
        for (const StepMetrics& m : all) {
            QCOMPARE(m.step, lastStep[m.run] + 1);
            lastStep[m.run] = m.step;
        }
        // A 1-2-2-1 network is small: its snapshots are all kept (every step of a 400-step run),
        // in order, so the inspector can show the whole history.
        std::map<int, long> lastSnapshot;
        std::map<int, int> count;
        for (const QList<QVariant>& arguments : snapshots)
            for (const SharedSnapshot& s : arguments.at(0).value<std::vector<SharedSnapshot>>()) {
                QVERIFY(s->step > lastSnapshot[s->run]);
                QCOMPARE(int(s->layers.size()), 3);
                lastSnapshot[s->run] = s->step;
                ++count[s->run];
            }
        QCOMPARE(count[0], 400);
        QCOMPARE(count[1], 400);
        QCOMPARE(lastSnapshot[0], 400L);
        QCOMPARE(lastSnapshot[1], 400L);
        QCOMPARE(finished.count(), 2);
        QCOMPARE(finished.at(0).at(1).value<RunResult>().status, RunStatus::Done);
    }

    void feedCoalescesSnapshotsOfLargeNetworksOnly() {
        for (const std::size_t parameters : {std::size_t(100), std::size_t(100000)}) {
            TrainingFeed feed(std::chrono::milliseconds(0));
            TrainingPlan plan;
            plan.labels = {"a"};
            plan.totalSteps = 10;
            plan.parameterCount = parameters;
            feed.announce(plan);
            for (long step = 1; step <= 3; ++step) {
                QVERIFY(feed.wantsSnapshot(0, step));
                Snapshot snapshot;
                snapshot.step = step;
                feed.snapshotTaken(std::make_shared<const Snapshot>(snapshot));
            }
            const TrainingFeed::Delivery delivery = feed.take();
            const bool small = parameters <= kSmallNetworkParameters;
            QCOMPARE(delivery.snapshots.size(), small ? std::size_t(3) : std::size_t(1));
            QCOMPARE(delivery.snapshots.back()->step, 3L);  // the latest always arrives
        }
    }

    void pauseStepAndStopChangeState() {
        TrainingSession session;
        QSignalSpy metrics(&session, &TrainingSession::metricsArrived);
        QSignalSpy finished(&session, &TrainingSession::runFinished);
        QVERIFY(session.start(sineExperiment(1000000), /*paused=*/true));
        QCOMPARE(session.state(), SessionState::Paused);
        QTest::qWait(200);
        QCOMPARE(collectMetrics(metrics).size(), std::size_t(0));  // paused: nothing trained

        session.stepOnce();
        session.stepOnce();
        session.stepOnce();
        QTRY_COMPARE_WITH_TIMEOUT(collectMetrics(metrics).size(), std::size_t(6), 5000);  // 3 steps x 2 runs
        QTest::qWait(150);
        QCOMPARE(collectMetrics(metrics).size(), std::size_t(6));  // and not one more

        session.resume();
        QCOMPARE(session.state(), SessionState::Running);
        QTRY_VERIFY_WITH_TIMEOUT(collectMetrics(metrics).size() > 100, 5000);
        session.pause();
        QCOMPARE(session.state(), SessionState::Paused);
        session.stop();
        QCOMPARE(session.state(), SessionState::Stopping);
        QTRY_COMPARE_WITH_TIMEOUT(session.state(), SessionState::Finished, 5000);
        QCOMPARE(finished.count(), 2);
        QCOMPARE(finished.at(0).at(1).value<RunResult>().status, RunStatus::Stopped);
        // A new training can start after the previous one ended.
        QVERIFY(session.start(sineExperiment(20)));
        QTRY_COMPARE_WITH_TIMEOUT(session.state(), SessionState::Finished, 5000);
    }

    void speedLimitIsRespected() {
        TrainingSession session;
        session.setMaxStepsPerSecond(50);
        QSignalSpy metrics(&session, &TrainingSession::metricsArrived);
        QVERIFY(session.start(sineExperiment(1000000)));
        QTest::qWait(500);
        session.stop();
        QTRY_COMPARE_WITH_TIMEOUT(session.state(), SessionState::Finished, 5000);
        const std::size_t steps = collectMetrics(metrics).size() / 2;
        QVERIFY2(steps >= 10 && steps <= 40, qPrintable(QString::number(steps)));
    }

    void destroyingSessionMidRunJoinsTheThread_data() {
        QTest::addColumn<bool>("paused");
        QTest::newRow("running") << false;
        QTest::newRow("paused") << true;
    }
    void destroyingSessionMidRunJoinsTheThread() {
        QFETCH(bool, paused);
        auto* session = new TrainingSession;
        QSignalSpy metrics(session, &TrainingSession::metricsArrived);
        session->start(sineExperiment(100000000));
        QTRY_VERIFY_WITH_TIMEOUT(!metrics.isEmpty(), 5000);
        QCOMPARE(TrainingSession::liveTrainingThreads(), 1);
        if (paused) session->pause();
        QElapsedTimer clock;
        clock.start();
        delete session;
        QVERIFY2(clock.elapsed() < 3000, "the destructor must stop the training promptly");
        QCOMPARE(TrainingSession::liveTrainingThreads(), 0);
    }

    // The hand-over between threads (common/Mailbox.h): calls posted from two other threads run
    // on the receiver's thread (here the GUI thread, as in the app), each poster's in its order;
    // dropped calls never run.
    void mailboxRunsPostedCallsOnTheReceiversThreadInOrder() {
        QObject receiver;
        auto* mailbox = new Mailbox(&receiver);
        mailbox->startPolling();
        std::vector<int> ran;  // written on this thread only, by the posted calls
        bool allOnThread = true;
        auto postAll = [&](int first) {
            for (int i = first; i < first + 500; ++i)
                mailbox->post([&, i] {
                    allOnThread = allOnThread && QThread::currentThread() == receiver.thread();
                    ran.push_back(i);
                });
        };
        std::thread a(postAll, 0), b(postAll, 1000);
        a.join();
        b.join();
        QTRY_COMPARE_WITH_TIMEOUT(ran.size(), 1000u, 10000);
        QVERIFY(allOnThread);
        std::vector<int> fromA, fromB;
        for (int i : ran) (i < 1000 ? fromA : fromB).push_back(i);
        QCOMPARE(fromA.size(), 500u);
        QCOMPARE(fromB.size(), 500u);
        QVERIFY(std::is_sorted(fromA.begin(), fromA.end()));
        QVERIFY(std::is_sorted(fromB.begin(), fromB.end()));

        QObject here;
        auto* dropping = new Mailbox(&here);
        dropping->startPolling();
        std::atomic<bool> dropped{true};
        std::thread([&] { dropping->post([&] { dropped = false; }); }).join();
        dropping->dropPending();
        QTest::qWait(100);  // several polling intervals: nothing is left to run
        QVERIFY(dropped);
        std::thread([&] { dropping->post([&] { dropped = false; }); }).join();
        QTRY_VERIFY(!dropped);  // and the box still works
    }

    void closingTheWindowMidRunJoinsTheThread() {
        auto* window = new MainWindow;
        QSignalSpy metrics(window->session(), &TrainingSession::metricsArrived);
        Experiment experiment = sineExperiment(100000000);
        window->experimentPanel()->setExperiment(experiment);
        window->trainingActions()->start()->trigger();
        QCOMPARE(window->session()->state(), SessionState::Running);
        QTRY_VERIFY_WITH_TIMEOUT(!metrics.isEmpty(), 5000);
        QTRY_VERIFY_WITH_TIMEOUT(window->convergencePlot()->plottedPoints() > 0, 5000);
        QCOMPARE(TrainingSession::liveTrainingThreads(), 1);
        delete window;
        QCOMPARE(TrainingSession::liveTrainingThreads(), 0);
    }

    void windowOpensOnTheSineDiagramPreset() {
        MainWindow window;
        const Experiment experiment = window.experimentPanel()->experiment();
        QCOMPARE(experiment.data, std::string("toy:sine"));
        QCOMPARE(experiment.network.text(), std::string("1-2-2-1"));
        QVERIFY(window.windowTitle().startsWith(QString::fromUtf8("Momentum Lab — ")));
        QVERIFY(window.trainingActions()->start()->isEnabled());
    }

    // The Export menu and the report include the inspector's feature maps, drawn up
    // to date even while their tab is not on screen.
    void figuresIncludeTheFeatureMaps() {
        MainWindow window;
        const std::vector<NamedFigure> figures = window.figures();
        const auto maps = std::find_if(figures.begin(), figures.end(),
                                       [](const NamedFigure& figure) { return figure.name == "feature-maps"; });
        QVERIFY(maps != figures.end());
        FeatureMapView* view = window.neuronInspector()->featureMaps();
        QCOMPARE(maps->figure.plot(), view->plot());
        QCOMPARE(view->message(), QStringLiteral("Click a channel of a conv layer."));  // the sine network has none
        QVERIFY(!maps->figure.render(FigureFormat::Png, {400, 300, 96, "maps"}).isEmpty());
    }

    // QSpinBox is int-only: a large seed must reach the experiment unchanged (the CLI trains with it).
    void panelKeepsA64BitSeed() {
        ExperimentPanel panel;
        Experiment experiment = sineExperiment(10);
        for (const std::uint64_t seed :
             {std::uint64_t(1) << 40, std::numeric_limits<std::uint64_t>::max(), std::uint64_t(0)}) {
            experiment.seed = seed;
            panel.setExperiment(experiment);
            QCOMPARE(panel.experiment().seed, seed);
        }
        // Typed: digits up to 2^64 - 1 are accepted, one more or a letter is refused as typed.
        auto* box = panel.findChild<SeedSpinBox*>();
        QVERIFY(box);
        box->findChild<QLineEdit*>()->clear();
        QTest::keyClicks(box, "18446744073709551615");
        QCOMPARE(panel.experiment().seed, std::numeric_limits<std::uint64_t>::max());
        QString tooLarge = "18446744073709551616", letters = "12a";
        int position = 0;
        QCOMPARE(box->validate(tooLarge, position), QValidator::Invalid);
        QCOMPARE(box->validate(letters, position), QValidator::Invalid);
        // The arrows step without wrapping around.
        box->stepBy(1);
        QCOMPARE(box->value(), std::numeric_limits<std::uint64_t>::max());
        box->setValue(1);
        box->stepBy(-3);
        QCOMPARE(box->value(), std::uint64_t(0));
        box->stepBy(5);
        QCOMPARE(panel.experiment().seed, std::uint64_t(5));
    }

    void historyDecimationKeepsMemoryBounded() {
        const int capacity = 1000;
        MetricsHistory history(capacity);
        history.reset({"a", "b"}, 100);
        ConvergencePlot plot;
        plot.setHistory(&history);
        std::vector<StepMetrics> batch;
        const long steps = 1000000;
        for (long step = 1; step <= steps; ++step) {
            for (int run = 0; run < 2; ++run) {
                StepMetrics m;
                m.run = run;
                m.step = step;
                m.epoch = int((step - 1) / 100 + 1);
                m.trainLoss = 1.0f / float(step);
                if (step % 10 == 0) {
                    m.testLoss = 1.0f / float(step);
                    m.testAccuracy = 0.5f;
                }
                m.wallMs = double(step);
                batch.push_back(m);
            }
            if (batch.size() >= 20000) {
                history.append(batch);
                batch.clear();
                plot.refresh();
            }
        }
        history.append(batch);
        plot.refresh();
        QVERIFY(history.storedPoints() <= std::size_t(4 * capacity));
        QVERIFY(history.storedPoints() >= std::size_t(2 * capacity));  // still dense
        const DecimatingHistory& train = history.track(0, MetricsHistory::Track::Train);
        QVERIFY(train.steps().back() > steps - 2 * train.stride());  // covers the whole run
        QCOMPARE(train.steps().front(), 1.0);
        QVERIFY(plot.plottedPoints() <= 6 * capacity);
        QVERIFY(plot.plottedPoints() > 0);
    }

    // The training-loss curves keep one block of points at the Train track's cap: refilled in place
    // after each decimation, never reallocated (which grew the live heap as the tracks filled).
    void trainCurvesKeepOneBlockAtTheirCap() {
        const int capacity = 1000;
        MetricsHistory history(capacity);
        history.reset({"a", "b"}, 100);
        ConvergencePlot plot;
        plot.setHistory(&history);
        std::vector<QCPGraph*> trainCurves;
        for (int i = 0; i < plot.plot()->graphCount(); ++i)
            if (plot.plot()->graph(i)->name() == "a" || plot.plot()->graph(i)->name() == "b")
                trainCurves.push_back(plot.plot()->graph(i));
        QCOMPARE(int(trainCurves.size()), 2);
        std::vector<const QCPGraphData*> blocks;
        for (long step = 1; step <= 20000; ++step) {
            for (int run = 0; run < 2; ++run) {
                StepMetrics m;
                m.run = run;
                m.step = step;
                m.epoch = 1;
                m.trainLoss = 1.0f / float(step);
                history.append(m);
            }
            if (step % 37 != 0) continue;
            plot.refresh();
            for (std::size_t k = 0; k < trainCurves.size(); ++k) {
                const QSharedPointer<QCPGraphDataContainer> points = trainCurves[k]->data();
                QVERIFY(points->size() <= capacity);
                const QCPGraphData* block = &*points->constBegin();
                if (blocks.size() <= k) blocks.push_back(block);
                QVERIFY2(block == blocks[k], "the curve's points moved to another block");
            }
        }
        QVERIFY(history.decimations(0, MetricsHistory::Track::Train) >= 4);
        QCOMPARE(trainCurves[0]->dataCount(), history.track(0, MetricsHistory::Track::Train).size());
    }

    // A run folder read from disk (streamed into a MetricsDigest) plots exactly the points the live
    // run plotted: one decimation policy, the same budget (small here: 1,000 points, 100,000 rows).
    void folderFromDiskPlotsWhatTheLiveRunPlotted() {
        const int capacity = 1000;
        MetricsHistory live(capacity);
        live.reset({"a"}, 0);
        RunFolder folder;
        folder.runs.emplace_back();
        folder.runs[0].spec.label = "a";
        folder.runs[0].metrics = MetricsDigest(capacity);
        for (long step = 1; step <= 100000; ++step) {
            StepMetrics m;
            m.step = step;
            m.epoch = int((step - 1) / 300 + 1);
            m.trainLoss = 1.0f / float(step);
            if (step % 10 == 0 || step % 7 == 0) {
                m.testLoss = 2.0f / float(step);
                m.testAccuracy = float(step % 97) / 97.0f;
            }
            m.wallMs = double(step);
            live.append(m);
            folder.runs[0].metrics.add(m);
        }
        RunComparison opened(nullptr, capacity);
        opened.showFolder(folder);
        for (const MetricsHistory::Track track : {MetricsHistory::Track::Train, MetricsHistory::Track::Evaluation}) {
            const DecimatingHistory& expected = live.track(0, track);
            const DecimatingHistory& actual = opened.history().track(0, track);
            QVERIFY(expected.size() < capacity && expected.size() >= capacity / 2);
            QCOMPARE(actual.steps(), expected.steps());
            for (int k = 0; k < (track == MetricsHistory::Track::Train ? 3 : 4); ++k)
                QCOMPARE(actual.series(k), expected.series(k));
        }
        QCOMPARE(opened.history().stepsPerEpoch(), 300L);
        // No summary figures in this folder: the table shows the last batch loss, read from the last row.
        const RunSummaryModel& table = *opened.summary();
        QCOMPARE(table.data(table.index(0, RunSummaryModel::TrainLoss)).toString(),
                 QString::number(1.0 / 100000.0, 'g', 4));
    }

    void denseGraphsAreDrawnWithThinPens() {
        // Wide or dashed-wide pens on 200k oscillating points go through Qt's path stroker and
        // took seconds per frame (measured: 5.5 s vs 7-10 ms replot; see docs/guide/app.md, "Long runs").
        // The guard is the pen choice, checked here without timing anything.
        MetricsHistory history;
        history.reset({"a", "b"}, 0);
        std::vector<StepMetrics> batch;
        for (long step = 1; step <= 5000; ++step)
            for (int run = 0; run < 2; ++run) {
                StepMetrics m;
                m.run = run;
                m.step = step;
                m.epoch = 1;
                m.trainLoss = step % 2 ? 0.1f : 0.001f;
                if (step % 100 == 0) m.testLoss = 0.05f;
                batch.push_back(m);
            }
        history.append(batch);
        ConvergencePlot plot;
        plot.resize(900, 500);
        plot.setHistory(&history);
        int graphs = 0;
        for (int i = 0; i < plot.plot()->graphCount(); ++i) {
            const QCPGraph* graph = plot.plot()->graph(i);
            if (graph->dataCount() <= 300) continue;
            ++graphs;
            QVERIFY2(graph->pen().widthF() <= 1.0, qPrintable(graph->name()));
        }
        QVERIFY(graphs >= 2);
    }

    void figureExportsAreValidFiles() {
        MetricsHistory history;
        history.reset({"momentum"}, 10);
        for (long step = 1; step <= 50; ++step) {
            StepMetrics m;
            m.step = step;
            m.epoch = 1;
            m.trainLoss = 1.0f / float(step);
            history.append(m);
        }
        ConvergencePlot plot;
        plot.setHistory(&history);
        const Figure figure = Figure::ofPlot(plot.plot());
        FigureOptions options;
        options.width = 640;
        options.height = 400;
        options.dpi = 192;

        QImage image;
        QVERIFY(image.loadFromData(figure.render(FigureFormat::Png, options), "PNG"));
        QCOMPARE(image.size(), QSize(1280, 800));  // dpi 192 = twice the pixels
        QVERIFY2(inkFraction(image) > 0.01, "the plot must draw axes, labels and curves");

        const QByteArray pdf = figure.render(FigureFormat::Pdf, options);
        QVERIFY(pdf.startsWith("%PDF"));
        QVERIFY(pdf.size() > 1000);

        const QByteArray svg = figure.render(FigureFormat::Svg, options);
        QXmlStreamReader xml(svg);  // well-formed XML whose root is <svg>
        QVERIFY(xml.readNextStartElement());
        QCOMPARE(xml.name(), QStringLiteral("svg"));
        while (!xml.atEnd()) xml.readNext();
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QVERIFY(QSvgRenderer(svg).isValid());
        QVERIFY(svg.contains("<path") || svg.contains("<polyline"));

        QTemporaryDir dir;
        const QString path = dir.filePath("plot.svg");
        figure.save(path, options);
        QVERIFY(QFileInfo(path).size() > 0);
        QVERIFY_THROWS_EXCEPTION(InputError, figure.save(dir.filePath("plot.bmp"), options));
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, figure.save(dir.filePath("missing/sub/plot.png"), options));
    }

    void openingARunFolderFillsPlotAndSummary() {
        QTemporaryDir dir;
        writeRunFolder(dir.filePath("run"));
        MainWindow window;
        QCOMPARE(window.convergencePlot()->plottedPoints(), 0);
        window.openRunFolder(dir.filePath("run"));
        QVERIFY(window.convergencePlot()->plottedPoints() >= 2 * 60);
        QCOMPARE(window.comparison()->summary()->rowCount(), 2);
        QCOMPARE(window.comparison()->summary()->result(1).label, std::string("adam"));
        QVERIFY(std::isfinite(window.comparison()->summary()->result(1).finalTestAccuracy));
        QVERIFY(window.windowTitle().contains("xor folder"));
        // The final weights reach the snapshot views.
        const std::vector<SharedSnapshot> finalWeights = finalSnapshots(readRunFolder(dir.filePath("run")));
        QCOMPARE(int(finalWeights.size()), 2);
        QCOMPARE(finalWeights[1]->label, std::string("adam"));
        QCOMPARE(finalWeights[1]->layers.front().parameters.rows(), 4);
    }

    void exportCommandWritesPlotFiles() {
        QTemporaryDir dir;
        dir.setAutoRemove(qEnvironmentVariableIsEmpty("MOMENTUM_LAB_KEEP_TEST_OUTPUT"));  // to look at the files
        const QString run = writeRunFolder(dir.filePath("run"));
        const QString out = dir.filePath("out");
        QCOMPARE(runExportCommand({run, "--out", out, "--width", "800", "--height", "500", "--dpi", "96"}), 0);
        QImage png(QDir(out).filePath("convergence.png"));
        QCOMPARE(png.size(), QSize(800, 500));
        QVERIFY(inkFraction(png) > 0.01);
        QFile pdf(QDir(out).filePath("convergence.pdf"));
        QVERIFY(pdf.open(QIODevice::ReadOnly));
        QVERIFY(pdf.read(4) == "%PDF");
        QVERIFY(QSvgRenderer(QDir(out).filePath("convergence.svg")).isValid());
        QVERIFY(QFileInfo(QDir(out).filePath("index.html")).size() > 0);
        // The convergence plot as pgfplots too: the .tex reads the CSV beside it (800 px = 211.7 mm).
        QFile tex(QDir(out).filePath("convergence.tex"));
        QVERIFY(tex.open(QIODevice::ReadOnly));
        const QByteArray texText = tex.readAll();
        QVERIFY(texText.contains("{convergence.csv}") && texText.contains("width=211.7mm"));
        QVERIFY(QFileInfo(QDir(out).filePath("convergence.csv")).size() > 100);
        QFile index(QDir(out).filePath("index.html"));
        QVERIFY(index.open(QIODevice::ReadOnly) && index.readAll().contains("href=\"convergence.tex\""));
        QVERIFY(QSvgRenderer(QDir(out).filePath("network-diagram.svg")).isValid());  // final weights of run 0
        QVERIFY(QFileInfo(QDir(out).filePath("runs/adam.csv")).size() > 0);

        QCOMPARE(runExportCommand({dir.filePath("no-such-run"), "--out", out}), 2);
        QCOMPARE(runExportCommand({run}), 2);  // no --out
        QCOMPARE(runExportCommand({run, "--out", out, "--dpi", "zero"}), 2);
    }

    // export chooses runs, quantity, step, smoothing and size; each choice is checked (exit 2 with
    // the option named); the default size is report-sized (16 cm at 300 dpi).
    void exportCommandChoosesRunsQuantityStepSmoothingAndSize() {
        QTemporaryDir dir;
        const QString run = dir.filePath("run");
        QCOMPARE(runCli({"momentum-lab-cli", "train", "--network", "2-4-2", "--loss", "cross-entropy", "--data",
                         "toy:xor", "--batch", "50", "--steps", "40", "--optimizer", "momentum,sgd,adam",
                         "--snapshots-every", "10", "--quiet", "--out", run}),
                 0);
        const QString out = dir.filePath("out");
        QCOMPARE(runExportCommand({run, "--out", out, "--run", "adam", "--run", "momentum", "--quantity", "momentum",
                                   "--step", "20", "--smoothing", "0.6", "--hyperparameters"}),
                 0);
        QImage png(QDir(out).filePath("convergence.png"));
        QCOMPARE(png.size(), QSize(1891, 1063));  // 16 cm x 9 cm at 300 dpi (605 x 340 layout pixels)
        QCOMPARE(png.dotsPerMeterX(), 11811);     // 300 dpi
        // The same figure at 96 dpi, scaled up, inks about as much: labels keep their point size
        // (they were once scaled twice at 300 dpi, tripling the ink of the text).
        const QString low = dir.filePath("low");
        QCOMPARE(runExportCommand({run, "--out", low, "--run", "adam", "--run", "momentum", "--dpi", "96"}), 0);
        const QString high = dir.filePath("high");
        QCOMPARE(runExportCommand({run, "--out", high, "--run", "adam", "--run", "momentum"}), 0);
        const double ink96 = inkFraction(QImage(QDir(low).filePath("convergence.png")).scaled(png.size()));
        const double ink300 = inkFraction(QImage(QDir(high).filePath("convergence.png")));
        QVERIFY2(ink300 < ink96 * 1.3, qPrintable(QString("%1 at 300 dpi, %2 at 96 dpi").arg(ink300).arg(ink96)));
        const QString svg = QString::fromUtf8(readBytes(QDir(out).filePath("convergence.svg")));
        QVERIFY2(svg.contains("smoothing: EMA 0.60"), "the figure states its smoothing");
        QVERIFY(svg.contains("lr 0.001"));  // adam's key hyper-parameter in the legend
        QVERIFY(!svg.contains(">sgd<"));    // not chosen
        // The app's diagram: both chosen runs side by side at the chosen step, by the chosen quantity.
        const QString diagram = QString::fromUtf8(readBytes(QDir(out).filePath("network-diagram.svg")));
        QVERIFY2(diagram.contains("adam · step 20") && diagram.contains("momentum · step 20") &&
                     diagram.contains("(first moment)"),
                 "the diagram shows the chosen runs at the chosen step");
        QVERIFY(!diagram.contains("sgd"));
        QVERIFY(QFileInfo::exists(QDir(out).filePath("layer-heatmap.png")));
        QVERIFY(!QFileInfo::exists(QDir(out).filePath("runs/sgd.csv")));

        auto refused = [&](const QStringList& extra, const QString& expected) {
            const int status = runExportCommand(QStringList{run, "--out", out} + extra);
            if (status != 2) qWarning() << extra << "gave" << status;
            return status == 2 && exportMessage(QStringList{run, "--out", out} + extra).contains(expected);
        };
        QVERIFY(refused({"--run", "lion"}, "--run 'lion': no such run"));
        QVERIFY(
            refused({"--quantity", "speed"}, "--quantity speed: unknown; expected one of weight, gradient, momentum"));
        QVERIFY(refused({"--step", "25"},
                        "--step 25: run 'momentum' saved no snapshot at that step (saved steps: 10, 20, 30, 40"));
        QVERIFY(refused({"--run", "sgd", "--quantity", "momentum"},
                        "--quantity momentum: run 'sgd' at step 40: not kept by this optimizer"));
        QVERIFY(refused({"--smoothing", "1"}, "--smoothing 1: expected a number from 0 to 0.99"));
        QVERIFY(refused({"--width", "5"}, "--width 5: expected a whole number from 16 to 20000"));
        QVERIFY(refused({"--width", "600", "--width-cm", "16"}, "expected only one of them"));
        QVERIFY(refused({"--dpi", "zero"}, "--dpi zero"));
        QVERIFY(refused({"--frobnicate"}, "frobnicate"));
        // A folder without snapshots has the final weights only.
        writeRunFolder(dir.filePath("plain"));
        QCOMPARE(runExportCommand({dir.filePath("plain"), "--out", out, "--quantity", "gradient"}), 2);
        QVERIFY(exportMessage({dir.filePath("plain"), "--out", out, "--quantity", "gradient"})
                    .contains("not saved in this folder"));
    }

    // The convergence plot: hover values, legend clicks, offset curves, the note under the legend
    // and an accuracy strip of at least a third of the plots' height with nine runs.
    void convergencePlotHoverLegendOffsetAndStrip() {
        RunComparison runs;
        TrainingPlan plan;
        for (int i = 0; i < 9; ++i) plan.labels.push_back("run " + std::to_string(i));
        plan.stepsPerEpoch = 10;
        runs.begin(sineExperiment(100), plan);
        std::vector<StepMetrics> metrics;
        for (int i = 0; i < 9; ++i)
            for (long step = 1; step <= 100; ++step) {
                StepMetrics m;
                m.run = i;
                m.step = step;
                m.epoch = int((step - 1) / 10 + 1);
                m.trainLoss = 1.0f / float(step);  // nine identical curves
                if (step % 10 == 0) m.testLoss = 2.0f / float(step), m.testAccuracy = 0.5f, m.fullTrainLoss = 1.0f;
                metrics.push_back(m);
            }
        runs.addMetrics(metrics);
        ConvergencePlot plot;
        plot.setHistory(&runs.history());
        plot.resize(900, 600);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        plot.refresh();
        plot.plot()->replot();
        const QString hover = plot.valuesAt(50.2);
        QVERIFY2(hover.contains("run 0: loss 0.02, test 0.04, accuracy 0.5") && hover.contains("run 8: loss 0.02"),
                 qPrintable(hover));
        // Identical curves: offset reveals them; the hover values stay the true ones.
        plot.setOffsetCurves(true);
        QVERIFY(plot.noteText().contains("offset"));
        QVERIFY(plot.valuesAt(50).contains("run 8: loss 0.02,"));
        double drawn0 = 0, drawn8 = 0;
        for (int g = 0; g < plot.plot()->graphCount(); ++g) {
            QCPGraph* graph = plot.plot()->graph(g);
            if (graph->name() == "run 0") drawn0 = graph->data()->at(49)->value;
            if (graph->name() == "run 8") drawn8 = graph->data()->at(49)->value;
        }
        QVERIFY2(drawn8 > drawn0 * 1.1, qPrintable(QString("%1 %2").arg(drawn0).arg(drawn8)));
        plot.setOffsetCurves(false);
        // A legend click hides run 3 (and its hover line), a second one shows it again.
        QCPLegend* legend = plot.legend();
        int entries = 0;
        for (int i = 0; i < legend->itemCount(); ++i) entries += legend->item(i) ? 1 : 0;  // the grid has empty cells
        QCOMPARE(entries, 9);
        const QRect entry = legend->item(3)->outerRect();
        QTest::mouseClick(plot.plot(), Qt::LeftButton, {}, entry.center());
        QVERIFY(!plot.runVisible(3));
        QVERIFY(!plot.valuesAt(50).contains("run 3:"));
        QTest::mouseClick(plot.plot(), Qt::LeftButton, {}, entry.center());
        QVERIFY(plot.runVisible(3));
        // The note explains the line styles and the smoothing.
        QVERIFY(plot.noteText().contains("solid: training (batch) loss") &&
                plot.noteText().contains("dashed: test loss"));
        QVERIFY(plot.noteText().contains("smoothing: none"));
        plot.setSmoothing(0.3);
        QVERIFY(plot.noteText().contains("smoothing: EMA 0.30"));
        // The accuracy strip: at least a third of the two plots' height, with nine runs.
        plot.plot()->replot();
        QCPAxisRect* loss = plot.plot()->axisRect(0);
        QCPAxisRect* accuracy = plot.plot()->axisRect(1);
        QVERIFY2(accuracy->outerRect().height() * 3 >= (loss->outerRect().height() + accuracy->outerRect().height()),
                 qPrintable(QString("%1 of %2").arg(accuracy->outerRect().height()).arg(loss->outerRect().height())));
    }

    // Determinism across the two front ends: the window's training (TrainingSession and its worker
    // thread, fed into RunComparison) exported as the report's run data gives the same bytes as
    // `momentum-lab-cli train` on the report's experiment.json: each run's metrics CSV and
    // summary.csv, wall time masked; and the CLI's config.json is that experiment (plus its "init").
    void windowTrainingMatchesTheCliRunFolder() {
        Experiment experiment;
        experiment.name = "determinism";
        experiment.network.setSizes({4, 6, 3});
        experiment.network.activation = Activation::Relu;
        experiment.network.loss = LossKind::CrossEntropy;
        experiment.data = "iris";
        experiment.batchSize = 16;
        experiment.epochs = 3;
        experiment.evalEvery = 4;
        experiment.seed = 20261202;
        experiment.runs = {{"momentum", "momentum", optimizerDefaults("momentum")},
                           {"neuron-mean", "neuron-mean", optimizerDefaults("neuron-mean")},
                           {"adam", "adam", optimizerDefaults("adam")}};
        MainWindow window;
        window.experimentPanel()->setExperiment(experiment);
        window.trainingActions()->start()->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), SessionState::Finished, 30000);
        QTemporaryDir dir;
        const QString gui = dir.filePath("gui"), cli = dir.filePath("cli");
        ReportWriter(*window.comparison(), {}, FigureOptions()).write(gui);

        QProcess process;
        process.start(MOMENTUM_LAB_CLI, {"train", "--config", gui + "/experiment.json", "--out", cli, "--quiet"});
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitCode(), 0);
        const std::map<QString, QByteArray> guiFiles = ml::test::folderContents(gui);
        const std::map<QString, QByteArray> cliFiles = ml::test::folderContents(cli);
        QVERIFY(guiFiles.count("summary.csv") && cliFiles.count("summary.csv"));
        QCOMPARE(guiFiles.at("summary.csv"), cliFiles.at("summary.csv"));
        const RunFolderLayout layout(cli, {"momentum", "neuron-mean", "adam"});
        for (int run = 0; run < layout.runCount(); ++run) {
            const QString guiCsv = "runs/" + window.comparison()->metricsCsvFileName(run);
            const QString cliCsv = QDir(cli).relativeFilePath(layout.metricsFile(run));
            QVERIFY2(guiFiles.count(guiCsv) && cliFiles.count(cliCsv), qPrintable(guiCsv + " / " + cliCsv));
            QVERIFY(guiFiles.at(guiCsv).count('\n') == 1 + 3 * 8);  // header + every step (120 rows / 16 = 8 per epoch)
            QVERIFY2(guiFiles.at(guiCsv) == cliFiles.at(cliCsv), qPrintable(guiCsv + " differs from " + cliCsv));
        }
        QJsonObject cliConfig = QJsonDocument::fromJson(cliFiles.at("config.json")).object();
        QVERIFY(cliConfig.contains("init"));  // the CLI also writes the initial weights it drew
        cliConfig.remove("init");
        QCOMPARE(cliConfig, QJsonDocument::fromJson(guiFiles.at("experiment.json")).object());
    }

    // The CSV export and the report name a run's CSV alike: after the run's folder in a CLI run folder.
    void runCsvNamesFollowTheRunFolder() {
        const std::string label = "momentum 0.9 (β)";
        RunComparison runs;
        TrainingPlan plan;
        plan.labels = {label, "adam"};
        plan.stepsPerEpoch = 10;
        runs.begin(sineExperiment(10), plan);
        QTemporaryDir dir;
        const QString runFolder = RunFolderLayout(dir.path(), {label, "adam"}).runDirectory(0);
        QCOMPARE(runs.metricsCsvFileName(0), QFileInfo(runFolder).fileName() + ".csv");
        QCOMPARE(runs.metricsCsvFileName(0), QString::fromUtf8("momentum_0.9__β_.csv"));  // the rule, by hand
        const QStringList written = ReportWriter(runs, {}, FigureOptions()).write(dir.path());
        QVERIFY2(written.contains("runs/" + runs.metricsCsvFileName(0)), qPrintable(written.join(", ")));
        QVERIFY(written.contains("runs/adam.csv"));
        QFile index(QDir(dir.path()).filePath("index.html"));
        QVERIFY(index.open(QIODevice::ReadOnly));
        QVERIFY(QString::fromUtf8(index.readAll()).contains("href=\"runs/" + runs.metricsCsvFileName(0) + "\""));
    }

    // An opened folder's instrument settings (its config.json) show in the Diagnostics dock's
    // controls: what that run recorded, none where it recorded none.
    void openedFolderSetsTheDiagnosticsControls() {
        QTemporaryDir dir;
        writeRunFolder(dir.filePath("instruments"), [](Experiment& e) {
            e.diagnosticsEvery = 7;
            e.gradientSnr = false;
            e.curvatureEvery = 30;
        });
        writeRunFolder(dir.filePath("plain"));
        MainWindow window;
        auto* dock = window.findChild<DiagnosticsDock*>();
        QVERIFY(dock);
        dock->setLiveEvery(3);
        window.openRunFolder(dir.filePath("instruments"));
        Experiment shown;
        dock->applyInstruments(shown);
        QCOMPARE(dock->liveEvery(), 7L);
        QCOMPARE(shown.gradientSnr, false);
        QCOMPARE(shown.curvatureEvery, 30L);
        window.openRunFolder(dir.filePath("plain"));
        dock->applyInstruments(shown);
        QCOMPARE(dock->liveEvery(), 0L);
        QCOMPARE(shown.gradientSnr, true);
        QCOMPARE(shown.curvatureEvery, 0L);
    }

    // MainWindow's views share one RunSelection: every view shows the runs chosen there, the
    // inspector has every run's record, and a new training clears every view.
    void matrixViewsShareTheSelectionAndStartOver() {
        QTemporaryDir dir;
        writeRunFolder(dir.filePath("run"));
        MainWindow window;
        window.openRunFolder(dir.filePath("run"));
        auto* diagram = window.findChild<NetworkDiagramPanel*>();
        auto* heatmap = window.findChild<LayerHeatmapPanel*>();
        auto* inspector = window.findChild<NeuronInspector*>();
        RunSelection* selection = window.runSelection();
        QVERIFY(diagram && heatmap && inspector && selection);
        QCOMPARE(selection->shown(), std::vector<int>({0, 1}));  // both runs, side by side
        QCOMPARE(int(diagram->canvases().size()), 2);
        for (NetworkDiagramView* canvas : diagram->canvases()) QVERIFY(canvas->hasSnapshot());
        QCOMPARE(selection->store().latest(0)->label, std::string("sgd"));
        QCOMPARE(selection->store().latest(1)->label, std::string("adam"));
        QCOMPARE(int(heatmap->view()->colorMaps().size()), 2);
        inspector->setNeuron(0, 1);
        QCOMPARE(inspector->history().plottedRuns(), std::vector<int>({0, 1}));

        selection->setShown({1});
        QCOMPARE(int(diagram->canvases().size()), 1);
        QVERIFY(diagram->view()->hasSnapshot());
        QCOMPARE(inspector->history().plottedRuns(), std::vector<int>({1}));
        QVERIFY(!heatmap->view()->colorMap()->data()->isEmpty());

        // The screen starts over once the new training has begun (its plan arrived, the data
        // loaded): the folder's snapshots are gone, the views hold the new training's first step at most.
        window.trainingActions()->step()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(window.comparison()->source().isEmpty(), 5000);
        for (int run = 0; run < selection->store().runCount(); ++run) {
            const Snapshot* latest = selection->store().latest(run);
            QVERIFY2(!latest || latest->step <= 1, qPrintable(QString::number(latest ? latest->step : -1)));
        }
        QVERIFY(inspector->history().historySize() <= 1);
        window.trainingActions()->stop()->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), SessionState::Finished, 5000);
    }

    // A comparison is kept when the next one starts (and when a folder opens): the run history
    // lists it with its experiment, shows it again with every run's recorded snapshots, or
    // overlays it on the comparison on screen.
    void comparisonIsKeptAcrossStarts() {
        QTemporaryDir dir;
        writeRunFolder(dir.filePath("run"));
        MainWindow window;
        ComparisonHistory* history = window.runHistory();
        window.experimentPanel()->setExperiment(sineExperiment(30));
        window.trainingActions()->start()->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), SessionState::Finished, 20000);
        QCOMPARE(history->size(), 0);
        const int firstRuns = window.comparison()->history().runCount();
        const long recorded = long(window.runSelection()->store().archive(1)->size());
        QVERIFY(recorded > 1);

        Experiment second = sineExperiment(20);
        second.name = "second sine";
        window.experimentPanel()->setExperiment(second);
        window.trainingActions()->start()->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(history->size(), 1, 5000);        // the first comparison, kept once the second began
        const ComparisonRecord first = history->records().front();  // a copy: the history grows
        QCOMPARE(first.experiment.name, std::string("test sine"));
        QCOMPARE(first.runCount(), firstRuns);
        QCOMPARE(long(first.archives.at(1)->size()), recorded);  // every run's history, shared
        QCOMPARE(first.metrics.at(0).back().step, 30L);
        QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), SessionState::Finished, 20000);

        // Opening a folder adds to the history instead of replacing.
        window.openRunFolder(dir.filePath("run"));
        QCOMPARE(history->size(), 2);
        QCOMPARE(history->records().back().experiment.name, std::string("second sine"));

        // The first comparison overlaid on the folder: its runs follow the folder's everywhere.
        const int folderRuns = window.comparison()->history().runCount();
        QVERIFY(window.overlayKept(first.number));
        QCOMPARE(window.comparison()->history().runCount(), folderRuns + firstRuns);
        QCOMPARE(window.comparison()->history().label(folderRuns), first.runLabel(0).toStdString());
        QCOMPARE(window.comparison()->summary()->rowCount(), folderRuns + firstRuns);
        QCOMPARE(window.runSelection()->labels().size(), folderRuns + firstRuns);
        QCOMPARE(long(window.runSelection()->store().archive(folderRuns + 1)->size()), recorded);

        // Shown again: the first comparison with its whole record; the folder is kept as well.
        QVERIFY(window.showKept(first.number));
        QCOMPARE(history->size(), 3);
        QCOMPARE(window.comparison()->experiment().name, std::string("test sine"));
        QCOMPARE(window.comparison()->history().runCount(), firstRuns);
        QCOMPARE(window.comparison()->history().rows(0).back().step, 30L);
        QCOMPARE(long(window.runSelection()->store().archive(1)->size()), recorded);
        auto* inspector = window.findChild<NeuronInspector*>();
        inspector->setNeuron(1, 0);
        QCOMPARE(inspector->history().plottedRuns(), std::vector<int>({0, 1}));
        QVERIFY(inspector->history().historySize() > 1);
        // Shown again unchanged, it is not kept twice.
        window.trainingActions()->reset()->trigger();
        QCOMPARE(history->size(), 3);
    }

    // A CLI run folder with snapshots.bin: the app's folder-opening path feeds every saved snapshot
    // to the views through the run selection (each run's archive holds them all, all quantities);
    // where a quantity is missing, the views say whether the folder did not save it or the
    // optimizer does not keep it.
    void openingAFolderWithSnapshotsFeedsTheViews() {
        QTemporaryDir dir;
        const QString run = dir.filePath("run");
        QCOMPARE(runCli({"momentum-lab-cli", "train", "--network", "2-4-2", "--loss", "cross-entropy", "--data",
                         "toy:xor", "--batch", "50", "--steps", "40", "--optimizer", "momentum,sgd",
                         "--snapshots-every", "10", "--quiet", "--out", run}),
                 0);
        MainWindow window;
        window.openRunFolder(run);
        auto* heatmap = window.findChild<LayerHeatmapPanel*>();
        RunSelection* selection = window.runSelection();
        QVERIFY(heatmap && selection);
        const SnapshotArchive& archive = *selection->store().archive(0);
        QCOMPARE(archive.steps(), std::vector<long>({10, 20, 30, 40}));
        const std::vector<Snapshot> saved = readSnapshotFile(run + "/momentum/snapshots.bin", 0);
        for (int i = 0; i < 4; ++i) {
            const Snapshot& shown = *archive.snapshots()[std::size_t(i)];
            QVERIFY(!shown.weightsOnly);
            QVERIFY(shown.layers[1].firstMoment == saved[std::size_t(i)].layers[1].firstMoment);
            QVERIFY(shown.layers[0].gradient == saved[std::size_t(i)].layers[0].gradient);
        }
        QCOMPARE(selection->store().archive(1)->size(), 4);
        // Side by side: momentum from the file for run 0; sgd keeps no momentum.
        QCOMPARE(selection->shown(), std::vector<int>({0, 1}));
        heatmap->setQuantity(Quantity::FirstMoment);
        QCOMPARE(int(heatmap->view()->colorMaps().size()), 2);
        QVERIFY(!heatmap->view()->colorMaps()[0]->data()->isEmpty());
        QVERIFY2(heatmapMessage(heatmap->view()).contains("not kept by this optimizer"),
                 qPrintable(heatmapMessage(heatmap->view())));

        // A folder without snapshots: only the final weights; the momentum was not saved.
        writeRunFolder(dir.filePath("plain"));
        window.openRunFolder(dir.filePath("plain"));
        QCOMPARE(selection->store().archive(0)->size(), 1);
        const Snapshot& final = *selection->store().latest(0);
        QVERIFY(final.weightsOnly);
        QCOMPARE(missingQuantityReason(final), QString("not saved in this folder"));
        LayerHeatmapView view;
        view.setQuantity(Quantity::Gradient);
        view.showMatrices({{"adam", Matrix(), missingQuantityReason(final)}}, "layer 1");
        QVERIFY2(heatmapMessage(&view).contains("not saved in this folder"), qPrintable(heatmapMessage(&view)));
    }

    // A view in a hidden tab (the heat-map behind the inspector) does not redraw for every arriving
    // snapshot; it draws the latest once when it is shown.
    void hiddenTabsRedrawWhenShown() {
        QTemporaryDir dir;
        writeRunFolder(dir.filePath("run"));
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto* heatmap = window.findChild<LayerHeatmapPanel*>();
        auto* heatmapDock = window.findChild<QDockWidget*>("heatmapDock");
        auto* inspectorDock = window.findChild<QDockWidget*>("inspectorDock");
        QVERIFY(heatmap && heatmapDock && inspectorDock);
        inspectorDock->raise();
        QTRY_VERIFY(heatmap->visibleRegion().isEmpty());  // a tab behind another: "visible", out of sight
        window.openRunFolder(dir.filePath("run"));
        QVERIFY(heatmap->view()->colorMap()->data()->isEmpty());  // its snapshots arrived while hidden

        heatmapDock->raise();
        QTRY_VERIFY(!heatmap->view()->colorMap()->data()->isEmpty());
        const double before = heatmap->view()->colorMap()->data()->cell(0, 0);
        QVERIFY(before != 0.0);
        inspectorDock->raise();
        QTRY_VERIFY(heatmap->visibleRegion().isEmpty());
        Snapshot next = *window.runSelection()->store().latest(0);
        next.step += 100;
        for (LayerSnapshot& layer : next.layers) layer.parameters *= 2.0f;
        window.runSelection()->deliver(std::vector<Snapshot>{next});
        QCOMPARE(heatmap->view()->colorMap()->data()->cell(0, 0), before);  // not redrawn while hidden

        heatmapDock->raise();
        QTRY_COMPARE(heatmap->view()->colorMap()->data()->cell(0, 0), 2.0 * before);
    }

    // One rule: a changed experiment clears or marks as previous what belongs to the old one.
    void aChangedExperimentClearsOrMarksTheOldOne() {
        QTemporaryDir dir;
        writeRunFolder(dir.filePath("run"));  // "xor folder", network 2-4-2
        MainWindow window;
        window.openRunFolder(dir.filePath("run"));
        ConvergencePlot* plot = window.convergencePlot();
        QCOMPARE(plot->title(), QString("xor folder"));

        // Renamed only: the results are still this experiment's, plot and report follow the name.
        auto* name = window.experimentPanel()->findChild<QLineEdit*>("name");
        QVERIFY(name);
        name->setText("xor renamed");
        QCOMPARE(plot->title(), QString("xor renamed"));
        QCOMPARE(window.comparison()->experiment().name, std::string("xor renamed"));

        // Another experiment in the panel (a preset, a file): the results are the previous experiment's.
        auto* inspector = window.findChild<NeuronInspector*>();
        inspector->setNeuron(1, 1);  // output neuron 1 of the 2-4-2 network
        window.experimentPanel()->setExperiment(sineExperiment(30));
        QVERIFY2(plot->title().contains("Previous") && plot->title().contains("xor renamed"),
                 qPrintable(plot->title()));
        QCOMPARE(window.comparison()->experiment().name, std::string("xor renamed"));  // the report's heading

        // Training it: the neuron of the old network is no longer inspected, titles are the new experiment's.
        window.trainingActions()->start()->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(inspector->layer(), -1, 5000);  // once the training has begun
        QCOMPARE(inspector->neuron(), -1);
        QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), SessionState::Finished, 20000);
        QCOMPARE(plot->title(), QString("test sine"));
        QCOMPARE(window.comparison()->experiment().name, std::string("test sine"));
        // The same network again keeps the inspected neuron (to compare trainings).
        inspector->setNeuron(1, 0);
        window.trainingActions()->start()->trigger();
        QCOMPARE(inspector->layer(), 1);
        QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), SessionState::Finished, 20000);

        // Reset: the progress bar no longer shows the old training's steps.
        auto* progress = window.findChild<ProgressIndicator*>();
        QCOMPARE(progress->barText(), QString("30 / 30"));
        window.trainingActions()->reset()->trigger();
        QCOMPARE(progress->barText(), QString());
        QCOMPARE(window.convergencePlot()->plottedPoints(), 0);
    }

    // The window could not be made smaller than 1429 x 719. It must fit a 1366 x 768 screen and
    // even 1280 x 720, less a title bar (40 px), with every dock open at its minimum size or more.
    void windowFitsSmallScreens() {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QSize minimum = window.minimumSizeHint().expandedTo(window.minimumSize());
        const QString text = QString("minimum %1 x %2").arg(minimum.width()).arg(minimum.height());
        QVERIFY2(minimum.width() <= 1280 && minimum.height() <= 720 - 40, qPrintable(text));
        // A low screen (the offscreen one is 800 x 600) gets the summary as a tab of the bottom row.
        auto* summary = window.findChild<QDockWidget*>("summaryDock");
        auto* inspector = window.findChild<QDockWidget*>("inspectorDock");
        QVERIFY(summary && inspector);
        QCOMPARE(window.tabifiedDockWidgets(inspector).contains(summary),
                 window.screen()->availableGeometry().height() < 760);
        for (const QSize screen : {QSize(1366, 768 - 40), QSize(1280, 720 - 40)}) {
            window.resize(screen);
            QTRY_COMPARE(window.size(), screen);
            for (QDockWidget* dock : window.findChildren<QDockWidget*>()) {
                if (!dock->isVisible()) continue;  // a tab behind another
                QVERIFY2(dock->width() >= dock->minimumSizeHint().width() &&
                             dock->height() >= dock->minimumSizeHint().height(),
                         qPrintable(dock->objectName()));
            }
        }
    }

    // Stop ends in "Stopped", not "Finished"; closing mid-training asks first (No keeps it training).
    void stopSaysStoppedAndQuittingMidTrainingAsks() {
        MainWindow window;
        window.experimentPanel()->setExperiment(sineExperiment(100000000));
        window.trainingActions()->start()->trigger();
        QCOMPARE(window.session()->state(), SessionState::Running);
        QString asked;
        QTimer::singleShot(100, &window, [&asked] {
            auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            if (!box) return;
            asked = box->text();
            box->button(QMessageBox::No)->click();
        });
        QVERIFY(!window.close());
        QVERIFY2(asked.contains("training is running"), qPrintable(asked));
        QCOMPARE(window.session()->state(), SessionState::Running);

        auto* state = window.findChild<QLabel*>("stateLabel");
        QVERIFY(state);
        // A temporary message (the run folder being written) takes the state line's place.
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.statusBar()->showMessage("a temporary message", 60000);
        QApplication::processEvents();
        QVERIFY2(!state->isVisible(), qPrintable(state->text()));
        window.statusBar()->clearMessage();
        QVERIFY(state->isVisible());

        window.trainingActions()->stop()->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), SessionState::Finished, 5000);
        QVERIFY2(state->text().startsWith("Stopped"), qPrintable(state->text()));
        window.experimentPanel()->setExperiment(sineExperiment(20));
        window.trainingActions()->start()->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), SessionState::Finished, 5000);
        QCOMPARE(state->text(), QString("Finished"));
        QVERIFY(window.close());  // nothing running: no question
    }

    // Pause <-> Resume does not move the toolbar buttons after it.
    void pauseResumeKeepsTheToolbarStill() {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto* bar = window.findChild<QToolBar*>("trainingToolBar");
        QVERIFY(bar);
        QWidget* stop = bar->widgetForAction(window.trainingActions()->stop());
        const int x = stop->x();
        window.experimentPanel()->setExperiment(sineExperiment(1000));
        window.trainingActions()->step()->trigger();  // starts paused: "Resume"
        QCOMPARE(window.trainingActions()->pause()->text(), TrainingActions::pauseText(true));
        QApplication::processEvents();
        QCOMPARE(stop->x(), x);
        window.trainingActions()->stop()->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), SessionState::Finished, 5000);
    }

    // Switching the inspector's tabs ("Over steps" / "As image") does not resize the docks.
    void inspectorTabSwitchKeepsTheLayout() {
        MainWindow window;
        window.resize(1366, 728);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        Experiment experiment = sineExperiment(30);
        experiment.data = "digits";  // 8 x 8 images: the image tab applies to first-layer neurons
        experiment.network.setSizes({64, 8, 10});
        experiment.network.loss = LossKind::CrossEntropy;
        window.experimentPanel()->setExperiment(experiment);
        window.trainingActions()->start()->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), SessionState::Finished, 20000);
        auto* inspector = window.findChild<NeuronInspector*>();
        inspector->setNeuron(0, 0);
        auto* tabs = inspector->findChild<QTabWidget*>();
        QVERIFY(tabs && tabs->isTabEnabled(1));
        QApplication::processEvents();
        auto geometries = [&window] {
            QStringList all;
            for (QDockWidget* dock : window.findChildren<QDockWidget*>())
                if (dock->isVisible())
                    all << QString("%1 %2x%3").arg(dock->objectName()).arg(dock->width()).arg(dock->height());
            return all.join("; ");
        };
        const QString before = geometries();
        tabs->setCurrentIndex(1);
        QTest::qWait(50);
        QCOMPARE(geometries(), before);
        tabs->setCurrentIndex(0);
        QTest::qWait(50);
        QCOMPARE(geometries(), before);
    }

    // The app opens slow enough to watch the seed experiment converge, with fine speed steps.
    void speedOpensWatchableWithFineSteps() {
        SpeedControl control;
        const double seconds = double(defaultExperiment().steps) / control.stepsPerSecond();
        QVERIFY2(seconds >= 2.0 && seconds <= 10.0, qPrintable(QString::number(seconds)));
        auto* slider = control.findChild<QSlider*>();
        QVERIFY(slider);
        double previous = 0.0;
        for (int tick = slider->minimum(); tick < slider->maximum(); ++tick) {
            slider->setValue(tick);
            const double speed = control.stepsPerSecond();
            QVERIFY(speed > previous);
            if (previous > 0.0) QVERIFY2(speed / previous <= 4.0 / 3.0 + 1e-9, qPrintable(control.text()));
            previous = speed;
        }
        QCOMPARE(previous, 10000.0);
        slider->setValue(slider->maximum());
        QCOMPARE(control.stepsPerSecond(), 0.0);
        QCOMPARE(control.text(), QString("max"));
        control.setStepsPerSecond(1.0);
        QCOMPARE(control.text(), QString("1 step/s"));
        control.setStepsPerSecond(2.5);
        QCOMPARE(control.text(), QString("2.5 steps/s"));
        MainWindow window;  // the session trains at the speed shown
        QCOMPARE(window.session()->maxStepsPerSecond(), kDefaultStepsPerSecond);
    }

    void invalidHyperParameterIsRefusedNamingTheField() {
        HyperParameterForm form("momentum", optimizerDefaults("momentum"));
        auto* lr = qobject_cast<QLineEdit*>(form.editor("lr"));
        QVERIFY(lr);
        QSignalSpy invalid(&form, &HyperParameterForm::invalidValue);
        lr->setText("-1");
        try {
            form.values("runs[0]");
            QFAIL("a negative learning rate must be refused");
        } catch (const InputError& error) {
            QVERIFY2(QString(error.what()).contains("lr"), error.what());
        }
        Q_EMIT lr->editingFinished();
        QCOMPARE(invalid.count(), 1);
        QCOMPARE(lr->text(), QString("0.01"));  // the last valid value comes back
        QCOMPARE(form.values("runs[0]").lr, 0.01);
        QVERIFY(!form.editor("beta2"));  // only momentum's own parameters
    }
    // The figure size in cm or inches: the dialog converts what it shows when the unit changes,
    // keeps the size exact, and says what the PNG comes to at the chosen resolution.
    void figureSizeDialogTakesCentimetresAndInches() {
        FigureSizeDialog dialog(FigureOptions{});  // 605 x 340 px = 16 cm x 9 cm, 300 dpi
        auto* unit = dialog.findChild<QComboBox*>("unit");
        auto* width = dialog.findChild<QDoubleSpinBox*>("width");
        auto* height = dialog.findChild<QDoubleSpinBox*>("height");
        QVERIFY(unit && width && height);
        QCOMPARE(unit->currentText(), QString("cm"));
        QCOMPARE(width->value(), 16.01);
        QCOMPARE(dialog.options().width, 605);  // unchanged by showing it in cm
        unit->setCurrentIndex(unit->findText("in"));
        QCOMPARE(height->value(), 3.54);
        QCOMPARE(dialog.options().height, 340);
        width->setValue(4.5);
        QCOMPARE(dialog.options().width, 432);  // 4.5 in at 96 layout pixels per inch
        QCOMPARE(dialog.options().unit, LengthUnit::Inches);
        QVERIFY2(dialog.summary().contains("PNG: 1350 × 1063 pixels at 300 dpi"), qPrintable(dialog.summary()));
        unit->setCurrentIndex(unit->findText("px"));
        QCOMPARE(width->value(), 432.0);
    }

    // export --width/--height take a unit (12cm, 4.5in, 800px); a plain number stays pixels.
    void exportCommandTakesSizesWithUnits() {
        QTemporaryDir dir;
        const QString run = writeRunFolder(dir.filePath("run"));
        const QString out = dir.filePath("out");
        QCOMPARE(runExportCommand({run, "--out", out, "--width", "4.5in", "--height", "8cm", "--dpi", "192"}), 0);
        QCOMPARE(QImage(QDir(out).filePath("convergence.png")).size(), QSize(864, 604));  // 432 x 302 px, twice
        QCOMPARE(runExportCommand({run, "--out", out, "--width", "800px", "--height", "500", "--dpi", "96"}), 0);
        QCOMPARE(QImage(QDir(out).filePath("convergence.png")).size(), QSize(800, 500));
        QCOMPARE(runExportCommand({run, "--out", out, "--width", "12 furlongs"}), 2);
        QVERIFY(exportMessage({run, "--out", out, "--width", "12 furlongs"})
                    .contains("--width 12 furlongs: expected a length such as 800px, 12cm"));
        QVERIFY(exportMessage({run, "--out", out, "--height", "0.1cm"})
                    .contains("--height 0.1cm: that is 4 px; expected 16 to 20000 px"));
    }
    // The summary's Time column reads as a duration, not seconds rounded to 0.00.
    void summaryTimeIsAReadableDuration() {
        RunSummaryModel summary;
        summary.reset({"momentum"}, {"momentum"});
        const auto shown = [&summary](double milliseconds) {
            RunResult result;
            result.label = "momentum";
            result.wallMs = milliseconds;
            summary.finishRun(0, result);
            return summary.data(summary.index(0, RunSummaryModel::Time)).toString();
        };
        QCOMPARE(shown(0.42), QString("0.4 ms"));
        QCOMPARE(shown(12.3), QString("12 ms"));
        QCOMPARE(shown(999.4), QString("999 ms"));
        QCOMPARE(shown(3412), QString("3.4 s"));
        QCOMPARE(shown(125000), QString("2 min 05 s"));
        QCOMPARE(shown(3725000), QString("1 h 02 min"));
        QCOMPARE(summary.data(summary.index(0, RunSummaryModel::Time), RunSummaryModel::SortRole).toDouble(),
                 3725000.0);
        QCOMPARE(summary.headerData(RunSummaryModel::Time, Qt::Horizontal).toString(), QString("Time"));
    }
    // The convergence plot as pgfplots, as the app draws it: log ticks at the plot's own values
    // (pgfplots' own were 10^{-0.5}), the legend in run order outside the axis with the line-style
    // and smoothing note after the runs, room at the right for the last markers, and a folder
    // trained without --name titled by the folder, not "experiment".
    void exportCommandConvergenceTexMatchesThePlot() {
        QTemporaryDir dir;
        const QString run = dir.filePath("sine-runs");
        QCOMPARE(runCli({"momentum-lab-cli", "train", "--network", "1-8-1", "--data", "toy:sine", "--batch", "16",
                         "--steps", "300", "--optimizer", "momentum,neuron-mean,adam", "--quiet", "--out", run}),
                 0);
        const QString out = dir.filePath("out");
        QCOMPARE(runExportCommand({run, "--out", out, "--smoothing", "0.6"}), 0);
        const QString tex = QString::fromUtf8(readBytes(QDir(out).filePath("convergence.tex")));
        QVERIFY2(tex.contains("ymode=log") && tex.contains(QRegularExpression("ytick=\\{[0-9.e,-]+\\}, yticklabels=")),
                 qPrintable(tex.left(1200)));
        QVERIFY(!tex.contains(QRegularExpression("10\\^\\{-?[0-9]*\\.[0-9]")));
        QVERIFY(tex.contains("legend pos=outer north east"));
        // The legend as pgfplots lists it: entries in file order, turned round by "reverse legend".
        QStringList legend;
        const QRegularExpression entry("\\\\addlegendentry\\{([^}]*)\\}");
        for (auto it = entry.globalMatch(tex); it.hasNext();) legend << it.next().captured(1);
        if (tex.contains("reverse legend")) std::reverse(legend.begin(), legend.end());
        QCOMPARE(legend, (QStringList{"momentum", "neuron-mean", "adam", "solid: training (batch) loss",
                                      "dashed: test loss", "smoothing: EMA 0.60"}));
        const QRegularExpressionMatch xmax = QRegularExpression("xmax=([0-9.]+)").match(tex);
        QVERIFY(xmax.hasMatch());
        QVERIFY2(xmax.captured(1).toDouble() > 300.0, qPrintable(xmax.captured(0)));  // the last test loss's dot whole
        const QString svg = QString::fromUtf8(readBytes(QDir(out).filePath("convergence.svg")));
        QVERIFY(svg.contains(">sine-runs<"));
        QVERIFY(!svg.contains(">experiment<"));
    }

    // A marker at the end of the x range is drawn whole in PNG/PDF/SVG (it was cut in half by the
    // axis), and the plot on screen keeps its range.
    void exportedFigureLeavesRoomForEndMarkers() {
        QCustomPlot plot;
        QCPGraph* graph = plot.addGraph();
        graph->setData({0, 5, 10}, {1, 2, 3});
        graph->setLineStyle(QCPGraph::lsNone);
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, Qt::red, Qt::red, 8));
        plot.xAxis->setRange(0, 10);
        plot.yAxis->setRange(0, 4);
        FigureOptions options;
        options.width = 300;
        options.height = 200;
        options.dpi = 96;
        QImage image;
        QVERIFY(image.loadFromData(Figure::ofPlot(&plot).render(FigureFormat::Png, options), "PNG"));
        QCOMPARE(plot.xAxis->range(), QCPRange(0, 10));
        // The last marker: the red columns right of the middle marker's.
        int first = -1, last = -1;
        for (int x = image.width() * 3 / 4; x < image.width(); ++x)
            for (int y = 0; y < image.height(); ++y) {
                const QColor c = image.pixelColor(x, y);
                if (c.red() > 200 && c.green() < 60 && c.blue() < 60) {
                    if (first < 0) first = x;
                    last = x;
                }
            }
        QVERIFY2(first >= 0 && last - first + 1 >= 7,
                 qPrintable(QString("the last marker is %1 px wide").arg(last - first + 1)));
    }
};

QTEST_MAIN(TestUi)
#include "test_ui.moc"
