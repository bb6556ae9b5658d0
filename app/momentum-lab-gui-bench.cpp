// momentum-lab-gui-bench: the desktop app's figures, scripted and offscreen.
//   frame time   the main window trains two runs at full speed (784-128-10 on MNIST, or on the
//                bundled digits where MNIST is missing) with every view showing; what the
//                GUI thread does between two ticks of a 1 ms timer is one frame: p50/p99/max
//                in CPU time of the GUI thread and in wall time
//   memory       resident set size after the first tenth of the run (the warm-up) and at its
//                end: the drift, and its range sampled every second in between;
//                beside it the live heap (mallinfo2) and what the bounded stores hold (metrics
//                history points, archived snapshots), so growth by design tells itself from a leak
//   heat-map     a 784 x 128 layer shown and replotted, the median of 60
//   loss plot    a 10^6-point loss curve (QCustomPlot's adaptive sampling on), replotted, the median of 20
//   neuron click nine 784-128-10 runs with snapshots (a run folder the CLI trains first; the bundled
//                digits' 64-128-10 where MNIST is missing) at 1366 x 768: a neuron clicked in the
//                diagram until the inspector has drawn it, p95 of 40 clicks
//   quantity     the same nine runs side by side: the diagram's colour quantity switched until
//                every canvas has redrawn, p95 over all quantities, 3 rounds
//   report       Export -> Report of a four-run folder of the same network: wall time
//   output view  one 2-8-8-2 xor run's decision regions at 200 x 200 samples with its 600 data
//                points, redrawn for another step (forward pass, colour map, replot): median and
//                p95 of 100 (--part output alone)
//   thumbnails   nine 2-8-8-2 runs side by side (toy:xor's range) with the diagram's neuron
//                functions at 64 x 64 samples per neuron: a new snapshot of every run until every
//                canvas has redrawn, p50/p95 of 100 in GUI-thread CPU: the functions and images
//                (the target) and the whole redraw with painting; beside it the same with circles
//                (--part thumbnails alone)
//   QT_QPA_PLATFORM=offscreen momentum-lab-gui-bench [--seconds S] [--part all|views|output|thumbnails|training]
//                (S: training time, default 60; views: the view figures only)
#include "LargeBlocks.h"
#include "MainWindow.h"
#include "cli/Cli.h"
#include "export/ExportController.h"
#include "views/NetworkDiagramView.h"
#include "views/NeuronInspector.h"
#include "views/OutputView.h"
#include "views/ViewControls.h"
#include "experiment/ExperimentPanel.h"
#include "experiment/Presets.h"
#include "model/RunComparison.h"
#include "model/RunSelection.h"
#include "optim/OptimizerCatalog.h"
#include "session/TrainingActions.h"
#include "session/TrainingSession.h"
#include "data/MnistImport.h"
#include "views/LayerHeatmapView.h"

#include <qcustomplot.h>

#include <QAction>
#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QMouseEvent>
#include <QTimer>

#include <Eigen/Core>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <malloc.h>
#include <random>
#include <string>
#include <vector>

namespace {

double threadCpuMs() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return 1e3 * double(t.tv_sec) + 1e-6 * double(t.tv_nsec);
}

double residentMegabytes() {
    QFile statm(QStringLiteral("/proc/self/statm"));
    if (!statm.open(QIODevice::ReadOnly)) return 0.0;
    const QList<QByteArray> fields = statm.readAll().split(' ');
    return fields.size() > 1 ? fields[1].toDouble() * 4096.0 / 1e6 : 0.0;
}

// Bytes the program holds on the heap (every arena's chunks in use plus mmapped blocks), as
// opposed to resident pages: what a leak grows, whatever the allocator keeps for reuse.
double liveHeapMegabytes() {
    const struct mallinfo2 info = mallinfo2();
    return double(info.uordblks + info.hblkhd) / 1e6;
}

// What the window's bounded stores hold at one moment: every point of the metrics histories and
// every archived snapshot. Between two moments, their growth against the heap's growth tells the
// histories filling up (bounded: 200,000 points per track, the archives' byte budget) from a leak.
struct Holdings {
    double residentMb = 0.0;
    double heapMb = 0.0;
    std::size_t historyPoints = 0;
    int archivedSnapshots = 0;
    double snapshotMb = 0.0;  // the archived snapshots' matrices
};

Holdings holdings(const ml::MainWindow& window) {
    Holdings h{residentMegabytes(), liveHeapMegabytes(), window.comparison()->history().storedPoints(), 0};
    const ml::RunSnapshots& store = window.runSelection()->store();
    for (int run = 0; run < store.runCount(); ++run)
        if (const ml::SnapshotArchive* archive = store.archive(run)) {
            h.archivedSnapshots += archive->size();
            for (const ml::SharedSnapshot& snapshot : archive->snapshots())
                for (const ml::LayerSnapshot& layer : snapshot->layers)
                    h.snapshotMb += 4e-6 * double(layer.floatCount());
        }
    return h;
}

const char* verdict(bool met) { return met ? "PASS" : "FAIL"; }

double quantile(std::vector<double> values, double q) {
    if (values.empty()) return 0.0;
    std::sort(values.begin(), values.end());
    return values[std::min(values.size() - 1, static_cast<std::size_t>(q * double(values.size())))];
}

// The GUI thread's frames: a 1 ms timer ticks whenever the event loop is free, so the time between
// two ticks is what the thread did in between (events, paints, replots) plus the tick itself.
// Recorded in the GUI thread's CPU time and in wall time.
class FrameRecorder {
public:
    FrameRecorder() {
        timer_.setTimerType(Qt::PreciseTimer);
        timer_.setInterval(1);
        QObject::connect(&timer_, &QTimer::timeout, [this] {
            const double cpuNow = threadCpuMs();
            if (recording && wall_.isValid()) {
                cpu.push_back(cpuNow - cpuLast_);
                wall.push_back(double(wall_.nsecsElapsed()) / 1e6);
            }
            cpuLast_ = cpuNow;
            wall_.start();
        });
        timer_.start();
    }
    bool recording = false;
    std::vector<double> cpu, wall;

private:
    QTimer timer_;
    double cpuLast_ = 0.0;
    QElapsedTimer wall_;
};

ml::Experiment benchExperiment() {
    ml::Experiment e;
    const bool mnist = QFile::exists(ml::mnistDirectory() + QStringLiteral("/train-images-idx3-ubyte.gz")) ||
                       QFile::exists(ml::mnistDirectory() + QStringLiteral("/train-images-idx3-ubyte"));
    e.name = "gui bench";
    e.data = mnist ? "mnist" : "digits";
    e.network.setLayers(mnist ? "784-128-10" : "64-128-10");
    e.network.activation = ml::Activation::Relu;
    e.network.loss = ml::LossKind::CrossEntropy;
    e.batchSize = 64;
    e.epochs = 100000;  // longer than any bench: stopped by the bench
    e.runs = {{"momentum", "momentum", ml::optimizerInfo("momentum").defaults},
              {"neuron-mean", "neuron-mean", ml::optimizerInfo("neuron-mean").defaults}};
    return e;
}

void measureTraining(double seconds) {
    ml::MainWindow window;
    window.resize(1366, 768);
    window.show();
    const ml::Experiment experiment = benchExperiment();
    window.experimentPanel()->setExperiment(experiment);
    FrameRecorder frames;
    long stepsAtStart = 0, stepsDone = 0;
    QObject::connect(window.session(), &ml::TrainingSession::progressed, [&](long step, long) { stepsDone = step; });
    window.trainingActions()->start()->trigger();
    window.session()->setMaxStepsPerSecond(0);  // as fast as possible
    Holdings start;
    // Resident memory once a second after the warm-up: its range shows whether it is flat.
    double residentLow = 0.0, residentHigh = 0.0;
    QTimer residentSampler;
    QObject::connect(&residentSampler, &QTimer::timeout, [&] {
        const double now = residentMegabytes();
        residentLow = std::min(residentLow, now);
        residentHigh = std::max(residentHigh, now);
    });
    QTimer::singleShot(int(100 * seconds), [&] {  // the first tenth warms up (data, histories' capacity)
        start = holdings(window);
        residentLow = residentHigh = start.residentMb;
        residentSampler.start(1000);
        stepsAtStart = stepsDone;
        frames.recording = true;
    });
    QEventLoop loop;  // not QApplication::quit(): that closes the window, which asks before stopping a training
    QTimer::singleShot(int(1000 * seconds), &loop, &QEventLoop::quit);
    loop.exec();
    frames.recording = false;
    const Holdings end = holdings(window);
    const int capacity = window.comparison()->history().capacity();
    const int runs = window.comparison()->history().runCount();
    window.session()->stop();
    std::printf("training %s %s, 2 runs at full speed, %.0f s, every view showing: %.0f steps/s, %zu frames\n",
                experiment.data == "mnist" ? "784-128-10" : "64-128-10", experiment.data.c_str(), seconds,
                double(stepsDone - stepsAtStart) / (0.9 * seconds), frames.cpu.size());
    const double p99 = quantile(frames.cpu, 0.99);
    std::printf(
        "  GUI frame time, CPU of the GUI thread: p50 %.2f ms, p99 %.2f ms, max %.2f ms (target p99 <= 16 ms: %s)\n",
        quantile(frames.cpu, 0.5), p99, quantile(frames.cpu, 1.0), verdict(p99 <= 16.0));
    std::printf("  GUI frame time, wall (machine shared): p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
                quantile(frames.wall, 0.5), quantile(frames.wall, 0.99), quantile(frames.wall, 1.0));
    // Drift: resident memory at the end against after the warm-up (the first tenth: minute 1 of a
    // 10-minute run), either way; beside it the range sampled every second in between.
    const double drift = 100.0 * (end.residentMb - start.residentMb) / start.residentMb;
    std::printf(
        "  resident memory: %.1f MB after %.0f s, %.1f MB at the end: drift %+.1f %% (target <= 5 %%: %s); "
        "sampled every second in between: %.1f .. %.1f MB\n",
        start.residentMb, seconds / 10, end.residentMb, drift, verdict(std::abs(drift) <= 5.0),
        std::min(residentLow, end.residentMb), std::max(residentHigh, end.residentMb));
    // Counting: the heap's growth per metrics point stored tells what grows; at the histories'
    // cap (2 tracks per run) the same rate gives the bound the memory levels off at.
    const double addedPoints = double(end.historyPoints) - double(start.historyPoints);
    const double heapGrowth = end.heapMb - start.heapMb;
    std::printf(
        "  live heap: %.1f -> %.1f MB (%+.1f MB); metrics history points %zu -> %zu (%+.0f); "
        "archived snapshots %d -> %d, %.1f -> %.1f MB (bounded by the archives' budget)\n",
        start.heapMb, end.heapMb, heapGrowth, start.historyPoints, end.historyPoints, addedPoints,
        start.archivedSnapshots, end.archivedSnapshots, start.snapshotMb, end.snapshotMb);
    if (addedPoints > 0) {
        // The rest of the heap's growth (beyond the snapshots) per history point added.
        const double bytesPerPoint = 1e6 * (heapGrowth - (end.snapshotMb - start.snapshotMb)) / addedPoints;
        const double atCap = end.heapMb + bytesPerPoint * (double(capacity) * runs - double(end.historyPoints)) / 1e6;
        std::printf(
            "  heap growth beyond the snapshots per history point: %.0f bytes; at the histories' cap (%d points per track, %d runs) "
            "the heap would level off near %.0f MB\n",
            bytesPerPoint, capacity, runs, atCap);
    }
}

std::shared_ptr<const ml::Snapshot> heatmapSnapshot(int step) {
    std::mt19937 random(step);
    std::uniform_real_distribution<float> uniform(-0.1f, 0.1f);
    ml::Snapshot s;
    s.label = "bench";
    s.step = step;
    for (auto [out, in] : {std::pair{128, 784}, std::pair{10, 128}}) {
        ml::LayerSnapshot layer;
        layer.parameters = ml::Matrix(out, in + 1);
        for (Eigen::Index i = 0; i < layer.parameters.size(); ++i) layer.parameters.data()[i] = uniform(random);
        layer.firstMoment = layer.parameters * 0.5f;
        s.layers.push_back(std::move(layer));
    }
    return std::make_shared<const ml::Snapshot>(std::move(s));
}

void measureHeatmap() {
    ml::LayerHeatmapView view;
    view.resize(700, 450);
    view.show();
    std::vector<std::shared_ptr<const ml::Snapshot>> snapshots;
    for (int i = 0; i < 4; ++i) snapshots.push_back(heatmapSnapshot(i + 1));
    std::vector<double> cpu;
    for (int i = 0; i < 60; ++i) {
        const double start = threadCpuMs();
        view.showSnapshot(snapshots[std::size_t(i) % snapshots.size()]);
        view.plot()->replot(QCustomPlot::rpImmediateRefresh);
        cpu.push_back(threadCpuMs() - start);
    }
    const double median = quantile(cpu, 0.5);
    std::printf("784 x 128 heat-map update (show + replot): median %.2f ms CPU (target <= 5 ms: %s)\n", median,
                verdict(median <= 5.0));
}

// One run of the xor preset's 2-8-8-2 network with Glorot weights of two seeds (two steps): each
// redraw after a step change computes the grid anew.
void measureOutputView() {
    ml::Experiment experiment = ml::findPreset("xor").experiment;
    experiment.runs.resize(1);
    std::vector<ml::Snapshot> snapshots;
    for (long step : {1L, 2L}) {
        ml::Network network(experiment.network);
        network.initializeGlorotUniform(std::uint64_t(step));
        ml::Snapshot snapshot;
        snapshot.label = experiment.runs.front().label;
        snapshot.step = step;
        for (const ml::Matrix& parameters : network.parameters()) {
            ml::LayerSnapshot layer;
            layer.parameters = parameters;
            snapshot.layers.push_back(std::move(layer));
        }
        snapshots.push_back(snapshot);
    }
    ml::RunSelection selection;
    selection.begin({QString::fromStdString(experiment.runs.front().label)});
    selection.deliver(snapshots);
    ml::OutputView view(&selection);
    view.setExperiment(experiment);
    view.resize(600, 500);
    view.show();
    view.refresh();  // loads the data and builds the grid once
    std::vector<double> cpu;
    for (int i = 0; i < 100; ++i) {
        const double start = threadCpuMs();
        selection.setStep(1 + i % 2);
        view.plot()->replot(QCustomPlot::rpImmediateRefresh);
        cpu.push_back(threadCpuMs() - start);
    }
    const double median = quantile(cpu, 0.5);
    std::printf(
        "output view, one 2-8-8-2 run at %d x %d samples, redraw after a step change: median %.2f ms, p95 %.2f ms "
        "CPU (target <= 10 ms: %s)\n",
        ml::OutputView::kGridSize, ml::OutputView::kGridSize, median, quantile(cpu, 0.95), verdict(median <= 10.0));
}

// Nine runs of a 2-8-8-2 network whose weights move a little with every step, as a training's do.
std::vector<ml::SharedSnapshot> nineRunsAt(const ml::NetworkSpec& network, long step) {
    std::vector<ml::SharedSnapshot> snapshots;
    for (int run = 0; run < 9; ++run) {
        ml::Network weights(network);
        weights.initializeGlorotUniform(std::uint64_t(run + 1));
        auto snapshot = std::make_shared<ml::Snapshot>();
        snapshot->run = run;
        snapshot->label = "run " + std::to_string(run);
        snapshot->step = step;
        for (const ml::Matrix& parameters : weights.parameters()) {
            ml::LayerSnapshot layer;
            layer.parameters = (1.0f + 0.002f * float(step)) * parameters;
            snapshot->layers.push_back(std::move(layer));
        }
        snapshots.push_back(snapshot);
    }
    return snapshots;
}

void measureThumbnails() {
    ml::Experiment experiment;
    experiment.network = ml::NetworkSpec({2, 8, 8, 2}, ml::Activation::Tanh, ml::LossKind::CrossEntropy);
    experiment.data = "toy:xor";
    ml::RunSelection selection;
    ml::NetworkDiagramPanel diagram(&selection);
    diagram.resize(900, 640);  // the diagram dock's share of a 1366 x 768 window, a little larger
    diagram.setExperiment(experiment);
    diagram.show();
    QStringList labels;
    for (int run = 0; run < 9; ++run) labels << QStringLiteral("run %1").arg(run);
    selection.begin(labels);
    selection.setShown({0, 1, 2, 3, 4, 5, 6, 7, 8});
    QApplication::processEvents();  // on screen: a repaint paints
    long step = 0;
    std::vector<double> computed, painted;  // the panel's refresh (grids, images) and the canvases' paint
    auto redrawAfterSnapshot = [&] {
        const double start = threadCpuMs();
        selection.deliver(nineRunsAt(experiment.network, ++step));
        diagram.refresh();  // what the window's redraw-when-shown does for a new live snapshot
        const double refreshed = threadCpuMs();
        for (ml::NetworkDiagramView* canvas : diagram.canvases()) canvas->repaint();
        const double end = threadCpuMs();
        computed.push_back(refreshed - start);
        painted.push_back(end - refreshed);
        return end - start;
    };
    for (const bool thumbnails : {true, false}) {
        diagram.setThumbnailsShown(thumbnails);
        redrawAfterSnapshot();  // loads the data and builds the grid once
        std::vector<double> cpu;
        computed.clear();
        painted.clear();
        for (int i = 0; i < 100; ++i) cpu.push_back(redrawAfterSnapshot());
        if (thumbnails) {
            // The target is on what the functions add: the grids' forward passes and the images. The
            // canvases' painting is the diagram's own, with circles as with thumbnails.
            const double added = quantile(computed, 0.5);
            std::printf(
                "diagram neuron functions, nine 2-8-8-2 runs side by side at %d x %d samples, redraw after a "
                "snapshot: functions and images p50 %.2f ms (target <= 8 ms: %s), with the canvases' painting "
                "p50 %.2f ms, p95 %.2f ms GUI-thread CPU\n",
                diagram.thumbnailSamples(), diagram.thumbnailSamples(), added, verdict(added <= 8.0),
                quantile(cpu, 0.5), quantile(cpu, 0.95));
        } else {
            std::printf("the same redraw with circles: p50 %.2f ms, p95 %.2f ms\n", quantile(cpu, 0.5),
                        quantile(cpu, 0.95));
        }
    }
}

void measureLossPlot() {
    QCustomPlot plot;
    plot.resize(900, 500);
    plot.show();
    QCPGraph* graph = plot.addGraph();
    graph->setAdaptiveSampling(true);
    graph->setPen(QPen(Qt::blue, 1.0));
    std::mt19937 random(3);
    std::normal_distribution<double> noise(0.0, 0.05);
    QVector<QCPGraphData> points;
    points.reserve(1000000);
    for (int i = 0; i < 1000000; ++i)
        points.append(QCPGraphData(i + 1, 2.3 * std::exp(-i / 2e5) + std::abs(noise(random))));
    graph->data()->set(points, true);
    plot.rescaleAxes();
    plot.replot(QCustomPlot::rpImmediateRefresh);  // warm-up
    std::vector<double> cpu;
    for (int i = 0; i < 20; ++i) {
        const double start = threadCpuMs();
        plot.replot(QCustomPlot::rpImmediateRefresh);
        cpu.push_back(threadCpuMs() - start);
    }
    const double median = quantile(cpu, 0.5);
    std::printf("10^6-point loss plot replot (adaptive sampling): median %.2f ms CPU (target <= 8 ms: %s)\n", median,
                verdict(median <= 8.0));
}

bool hasMnist() {
    return QFile::exists(ml::mnistDirectory() + QStringLiteral("/train-images-idx3-ubyte.gz")) ||
           QFile::exists(ml::mnistDirectory() + QStringLiteral("/train-images-idx3-ubyte"));
}

// A run folder of `optimizers` on 784-128-10 MNIST (64-128-10 digits without MNIST), 100 steps
// with a snapshot every 10; empty when the CLI fails.
QString trainFolder(const QString& root, const QString& name, const QString& optimizers) {
    const QString out = root + "/" + name;
    const bool mnist = hasMnist();
    const int status = ml::runCli({"momentum-lab-cli",
                                   "train",
                                   "--network",
                                   mnist ? "784-128-10" : "64-128-10",
                                   "--activation",
                                   "relu",
                                   "--loss",
                                   "cross-entropy",
                                   "--data",
                                   mnist ? "mnist" : "digits",
                                   "--batch",
                                   "64",
                                   "--steps",
                                   "100",
                                   "--snapshots-every",
                                   "10",
                                   "--optimizer",
                                   optimizers,
                                   "--out",
                                   out});
    return status == 0 ? out : QString();
}

// A left click as the window system delivers it (press, release) at `at` in `widget`.
void click(QWidget* widget, QPointF at) {
    const QPointF global = widget->mapToGlobal(at);
    QMouseEvent press(QEvent::MouseButtonPress, at, global, Qt::LeftButton, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(widget, &press);
    QMouseEvent release(QEvent::MouseButtonRelease, at, global, Qt::LeftButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(widget, &release);
}

// Every event the action caused handled, and every queued redraw drawn: the GUI thread's CPU
// time for it (the figure a busy machine does not inflate; the wall time goes to `wall`).
template <typename Action>
double settledMs(Action&& action, std::vector<double>* wall = nullptr) {
    QElapsedTimer clock;
    clock.start();
    const double start = threadCpuMs();
    action();
    QApplication::processEvents();
    QApplication::processEvents();
    if (wall) wall->push_back(double(clock.nsecsElapsed()) / 1e6);
    return threadCpuMs() - start;
}

void measureViews() {
    QTemporaryDir root;
    const char* nine = "sgd,momentum,nesterov,adam,adamw,nero,neuron-mean,rmsprop,adagrad";
    const QString nineRuns = trainFolder(root.path(), "nine", nine);
    const QString fourRuns = trainFolder(root.path(), "four", "momentum,neuron-mean,adam,sgd");
    if (nineRuns.isEmpty() || fourRuns.isEmpty()) {
        std::printf("views: the CLI could not train the run folders\n");
        return;
    }
    const char* network = hasMnist() ? "784-128-10 MNIST" : "64-128-10 digits";
    {
        ml::MainWindow window;
        window.resize(1366, 728);
        window.show();
        window.openRunFolder(nineRuns);
        window.runSelection()->setShown({0, 1, 2, 3, 4, 5, 6, 7, 8});
        QApplication::processEvents();
        auto* diagram = window.findChild<ml::NetworkDiagramPanel*>();
        ml::NetworkDiagramView* canvas = diagram->canvases().front();
        std::vector<double> clicks, clicksWall;
        for (int i = 0; i < 40; ++i) {
            const int layer = i % 2, neuron = i % (layer == 0 ? 16 : 10);
            const QPointF at = canvas->neuronCenter(layer, neuron);
            if (at.isNull()) continue;
            clicks.push_back(settledMs(
                [&] {
                    click(canvas, at);
                    window.neuronInspector()->plot()->replot(QCustomPlot::rpImmediateRefresh);
                },
                &clicksWall));
        }
        const double p95 = quantile(clicks, 0.95);
        std::printf(
            "neuron click -> inspector drawn, nine %s runs, GUI thread CPU: p50 %.1f ms, p95 %.1f ms over %zu clicks "
            "(target p95 <= 50 ms: %s); wall p95 %.1f ms\n",
            network, quantile(clicks, 0.5), p95, clicks.size(), verdict(p95 <= 50.0), quantile(clicksWall, 0.95));
        ml::QuantitySelector* quantities = diagram->findChild<ml::QuantitySelector*>();
        std::vector<double> switches, switchesWall;
        for (int round = 0; round < 3; ++round)
            for (int q = 0; q < quantities->count(); ++q)
                switches.push_back(settledMs(
                    [&] {
                        quantities->setCurrentIndex(q);
                        for (ml::NetworkDiagramView* view : diagram->canvases())
                            if (view->isVisible()) view->repaint();
                    },
                    &switchesWall));
        const double switchP95 = quantile(switches, 0.95);
        std::printf(
            "colour quantity switched, nine runs side by side, GUI thread CPU: p50 %.1f ms, p95 %.1f ms over %zu switches "
            "(target p95 <= 50 ms: %s); wall p95 %.1f ms\n",
            quantile(switches, 0.5), switchP95, switches.size(), verdict(switchP95 <= 50.0),
            quantile(switchesWall, 0.95));
    }
    {
        ml::MainWindow window;
        window.resize(1366, 728);
        window.show();
        window.openRunFolder(fourRuns);
        QApplication::processEvents();
        auto* canvas = window.findChild<ml::NetworkDiagramPanel*>()->canvases().front();
        click(canvas, canvas->neuronCenter(0, 0));  // the inspector has a neuron
        QApplication::processEvents();
        QTemporaryDir out;
        QElapsedTimer clock;
        clock.start();
        const QStringList written =
            window.findChild<ml::ExportController*>()->writeReport(out.path(), ml::FigureOptions{});
        const double seconds = double(clock.nsecsElapsed()) / 1e9;
        std::printf("report export, four %s runs: %.2f s wall, %lld files (target <= 3 s: %s)\n", network, seconds,
                    static_cast<long long>(written.size()), verdict(seconds <= 3.0));
    }
}

}  // namespace

int main(int argc, char** argv) {
    double seconds = 60.0;
    std::string part = "all";
    const char* usage = "usage: momentum-lab-gui-bench [--seconds S] [--part all|views|thumbnails|output|training]\n";
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc) return std::fprintf(stderr, "%s", usage), 2;
        if (std::strcmp(argv[i], "--seconds") == 0) seconds = std::atof(argv[i + 1]);
        else if (std::strcmp(argv[i], "--part") == 0) part = argv[i + 1];
        else return std::fprintf(stderr, "%s", usage), 2;
    }
    if (!(seconds > 0) ||
        (part != "all" && part != "thumbnails" && part != "views" && part != "output" && part != "training"))
        return std::fprintf(stderr, "%s", usage), 2;
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each figure as soon as it is measured
    QStandardPaths::setTestModeEnabled(true);  // the window's settings (last experiment) stay the user's
    QApplication app(argc, argv);
    ml::returnFreedMemoryPeriodically(&app);  // as the app does
    Eigen::setNbThreads(1);
    if (part == "all" || part == "views") {
        measureHeatmap();
        measureLossPlot();
        measureViews();
    }
    if (part == "all" || part == "views" || part == "output") measureOutputView();
    if (part == "all" || part == "views" || part == "thumbnails") measureThumbnails();
    if (part == "all" || part == "training") measureTraining(seconds);
    return 0;
}
