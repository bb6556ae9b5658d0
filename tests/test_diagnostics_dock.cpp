// The Diagnostics dock (ui/views/DiagnosticsDock): a curve per run in the run's colour, the
// stability thresholds at 2/lr and (2 + 2 mu)/lr, heat-strips of neurons x recorded steps; its
// data from a CLI run folder and live from the TrainingFeed.
#include "cli/Cli.h"
#include "cli/CommandTable.h"
#include "data/DataRegistry.h"
#include "instruments/InstrumentCatalog.h"
#include "instruments/TrainingJob.h"
#include "model/RunPalette.h"
#include "optim/OptimizerCatalog.h"
#include "session/TrainingFeed.h"
#include "train/LockstepTrainer.h"
#include "runfolder/RunFolderReader.h"
#include "views/DiagnosticsDock.h"

#include <QTemporaryDir>
#include <QtTest>
#include <qcustomplot.h>

#include <iostream>
#include <sstream>

using namespace ml;

namespace {

// A record of a 3-neuron and a 2-neuron layer whose values encode run, step, layer and neuron.
DiagnosticsRecord record(int run, long step) {
    DiagnosticsRecord r;
    r.step = step;
    for (int l = 0; l < 2; ++l) {
        std::vector<UnitDiagnostics> units(static_cast<std::size_t>(1 + (l == 0 ? 3 : 2)));
        for (std::size_t u = 0; u < units.size(); ++u) {
            units[u].gradientNorm = static_cast<float>(1 + run + step * 0.01 + l);
            units[u].gradientSnr = static_cast<float>(0.5 + run);
            units[u].meanShare = static_cast<float>(0.1 * static_cast<double>(u) + 0.001 * static_cast<double>(step));
            units[u].momentCv = 2.0f;
        }
        r.layers.push_back(std::move(units));
    }
    return r;
}

CurvaturePoint point(long step, double lambda, double sgd, double heavyBall) {
    CurvaturePoint p;
    p.step = step;
    p.lambdaMax = lambda;
    p.sgdThreshold = sgd;
    p.heavyBallThreshold = heavyBall;
    return p;
}

// The graph whose legend name starts with `name`.
QCPGraph* graphNamed(QCustomPlot* plot, const QString& name) {
    for (int g = 0; g < plot->graphCount(); ++g)
        if (plot->graph(g)->name().startsWith(name)) return plot->graph(g);
    return nullptr;
}

}  // namespace

class TestDiagnosticsDock : public QObject {
    Q_OBJECT
private slots:
    void oneCurvePerRunInItsColour() {
        DiagnosticsDock dock;
        dock.begin({"momentum", "neuron-mean"});
        // Before any record: no empty legend box on any plot.
        for (QCustomPlot* plot : {dock.curvesPlot(), dock.curvaturePlot()}) QVERIFY(!plot->legend->visible());
        dock.addRecords(0, {record(0, 10), record(0, 20), record(0, 30)});
        dock.addRecords(1, {record(1, 10), record(1, 20)});
        dock.setLayer(1);
        QCustomPlot* plot = dock.curvesPlot();
        QCOMPARE(plot->graphCount(), 2);
        QVERIFY(plot->legend->visible());
        QCOMPARE(plot->graph(0)->name(), QString("momentum"));
        QCOMPARE(plot->graph(0)->pen().color(), runColor(0));
        QCOMPARE(plot->graph(1)->pen().color(), runColor(1));
        QCOMPARE(plot->graph(0)->data()->size(), 3);
        QCOMPARE(plot->graph(1)->data()->size(), 2);
        // Layer 1's gradient norm of run 1 at step 20: 1 + 1 + 0.2 + 1.
        QVERIFY(std::abs(plot->graph(1)->data()->at(1)->value - 3.2) < 1e-5);
        QCOMPARE(plot->graph(1)->data()->at(1)->key, 20.0);
        dock.setCurve(DiagnosticsDock::Curve::GradientSnr);
        QVERIFY(std::abs(plot->graph(0)->data()->at(0)->value - 0.5) < 1e-6);
        QCOMPARE(plot->yAxis->scaleType(), QCPAxis::stLogarithmic);
        dock.setCurve(DiagnosticsDock::Curve::CosMomentGradient);  // all NaN here: no points, no crash
        QCOMPARE(plot->graph(0)->data()->size(), 0);
        QCOMPARE(plot->yAxis->scaleType(), QCPAxis::stLinear);
    }

    void thresholdsAtTwoOverLr() {
        DiagnosticsDock dock;
        dock.begin({"momentum", "sgd", "momentum again"});
        const double lr = 0.05, mu = 0.9;
        dock.setCurvature(0, {point(10, 12.0, 2 / lr, (2 + 2 * mu) / lr), point(20, 35.0, 2 / lr, (2 + 2 * mu) / lr)});
        dock.setCurvature(1, {point(10, 8.0, 2 / 0.1, 2 / 0.1)});
        dock.setCurvature(2, {point(10, 11.0, 2 / lr, (2 + 2 * mu) / lr), point(20, 30.0, 2 / lr, (2 + 2 * mu) / lr)});
        QCustomPlot* plot = dock.curvaturePlot();
        QCPGraph* lambda = graphNamed(plot, "momentum λ_max");
        QCPGraph* sgd = graphNamed(plot, "momentum 2/lr");
        QCPGraph* heavyBall = graphNamed(plot, "momentum (2+2μ)/lr");
        QVERIFY(lambda && sgd && heavyBall);
        QCOMPARE(lambda->data()->at(1)->value, 35.0);
        for (int i = 0; i < 2; ++i) {
            QCOMPARE(sgd->data()->at(i)->value, 2 / lr);
            QCOMPARE(heavyBall->data()->at(i)->value, (2 + 2 * mu) / lr);
        }
        QCOMPARE(sgd->pen().style(), Qt::DashLine);
        QCOMPARE(heavyBall->pen().style(), Qt::DashDotLine);
        QCOMPARE(sgd->pen().color(), runColor(0));
        QCOMPARE(sgd->name(), QString("momentum 2/lr = 40"));
        // Without momentum the two thresholds coincide: one line.
        QVERIFY(graphNamed(plot, "sgd 2/lr"));
        QVERIFY(!graphNamed(plot, "sgd (2+2μ)/lr"));
        // A run with the same lr and mu shares the lines already drawn: only its lambda_max.
        QVERIFY(graphNamed(plot, "momentum again λ_max"));
        QVERIFY(!graphNamed(plot, "momentum again 2/lr"));
        QCOMPARE(plot->graphCount(), 3 + 2 + 1);
        // Every threshold stays in view.
        QVERIFY(plot->yAxis->range().contains((2 + 2 * mu) / lr));
    }

    void heatStripIsNeuronsByRecordedSteps() {
        DiagnosticsDock dock;
        dock.begin({"a", "b"});
        dock.addRecords(0, {record(0, 5), record(0, 10), record(0, 15), record(0, 20)});
        dock.addRecords(1, {record(1, 5)});
        dock.showTab(1);
        QCPColorMapData* data = dock.stripMap()->data();
        QCOMPARE(data->keySize(), 4);    // recorded steps
        QCOMPARE(data->valueSize(), 3);  // layer 0's neurons
        QCOMPARE(data->keyRange().lower, 5.0);
        QCOMPARE(data->keyRange().upper, 20.0);
        // Neuron 2 (unit 3) at step 15: 0.3 + 0.015.
        QVERIFY(std::abs(data->cell(2, 2) - 0.315) < 1e-6);
        QCOMPARE(dock.stripMap()->dataRange(), QCPRange(0, 1));
        dock.setLayer(1);
        QCOMPARE(data->valueSize(), 2);
        dock.setStripRun(1);
        QCOMPARE(data->keySize(), 1);
        dock.setStrip(DiagnosticsDock::Strip::MomentCv);
        QCOMPARE(data->cell(0, 1), 2.0);
    }

    // A run left training with live diagnostics keeps a bounded number of records that still
    // span the whole run at an even stride (the project's one decimation policy).
    void recordsStayWithinTheirBudgetAndSpanTheRun() {
        DiagnosticsDock dock;
        dock.begin({"a"});
        const long offered = 3L * DiagnosticsDock::kRecordBudget + 7;
        std::vector<DiagnosticsRecord> batch;
        for (long step = 1; step <= offered; ++step) {
            batch.push_back(record(0, step * 10));
            if (batch.size() == 50 || step == offered) dock.addRecords(0, batch), batch.clear();
        }
        QVERIFY(dock.recordCount(0) <= DiagnosticsDock::kRecordBudget);
        QVERIFY(dock.recordCount(0) >= DiagnosticsDock::kRecordBudget / 2);
        dock.showTab(1);
        QCPColorMapData* data = dock.stripMap()->data();
        QCOMPARE(long(data->keySize()), dock.recordCount(0));
        QCOMPARE(data->keyRange().lower, 10.0);                           // the first record stays
        QVERIFY(data->keyRange().upper > 10.0 * (double(offered) - 40));  // and the run's end is there
    }

    // A CLI run folder with diagnostics.csv and curvature.csv fills the dock.
    void readsTheRunFolder() {
        QTemporaryDir tmp;
        const QString out = tmp.filePath("run");
        std::ostringstream captured;
        std::streambuf* previous = std::cerr.rdbuf(captured.rdbuf());
        const int status = coreCommands().run({"momentum-lab-cli",
                                               "train",
                                               "--network",
                                               "2-5-2",
                                               "--data",
                                               "toy:xor",
                                               "--batch",
                                               "32",
                                               "--steps",
                                               "40",
                                               "--optimizer",
                                               "momentum,neuron-mean",
                                               "--quiet",
                                               "--diagnostics-every",
                                               "4",
                                               "--curvature-every",
                                               "20",
                                               "--curvature-batch",
                                               "64",
                                               "--hessian-spectrum",
                                               "--out",
                                               out});
        std::cerr.rdbuf(previous);
        QVERIFY2(status == 0, captured.str().c_str());
        const RunFolder folder = readRunFolder(out);
        DiagnosticsDock dock;
        dock.begin({"momentum", "neuron-mean"});
        QVERIFY(loadFolderDiagnostics(folder, dock).empty());
        QCOMPARE(dock.recordCount(0), 10L);
        QCOMPARE(dock.recordCount(1), 10L);
        QCOMPARE(dock.curvesPlot()->graphCount(), 2);
        QCOMPARE(dock.stripMap()->data()->valueSize(), 5);
        QVERIFY(graphNamed(dock.curvaturePlot(), "neuron-mean λ_max"));
        QVERIFY(graphNamed(dock.curvaturePlot(), "momentum 2/lr = "));  // one lr: shared by both runs
        QVERIFY(!graphNamed(dock.curvaturePlot(), "neuron-mean 2/lr"));
        QCOMPARE(dock.spectrumPlot()->graphCount(), 2);  // hessian_spectrum.csv: 2-5-2 has 27 parameters
        QCOMPARE(graphNamed(dock.spectrumPlot(), "neuron-mean")->dataCount(), 27);
    }

    // The dock's instrument controls carry an experiment's keys both ways (a preset shown, Start).
    void instrumentControlsCarryTheExperimentKeys() {
        DiagnosticsDock dock;
        Experiment shown;
        shown.diagnosticsEvery = 5;
        shown.curvatureEvery = 25;
        shown.gradientSnr = false;
        shown.hessianSpectrum = true;
        dock.showInstruments(shown);
        Experiment started;
        dock.applyInstruments(started);
        QCOMPARE(started.diagnosticsEvery, 5L);
        QCOMPARE(started.curvatureEvery, 25L);
        QVERIFY(!started.gradientSnr);
        QVERIFY(started.hessianSpectrum);
        dock.showInstruments(Experiment{});  // the defaults: SNR on, no curvature, no spectrum
        dock.applyInstruments(started);
        QCOMPARE(started.curvatureEvery, 0L);
        QVERIFY(started.gradientSnr && !started.hessianSpectrum);
    }

    // Live: the diagnostics instrument computes on the training thread every N steps, per run, and
    // the feed delivers what it posts.
    void feedDeliversLiveDiagnostics() {
        Experiment e;
        e.network.setLayers("2-4-2");
        e.network.activation = Activation::Tanh;
        e.network.loss = LossKind::CrossEntropy;
        e.data = "toy:xor";
        e.batchSize = 16;
        e.steps = 12;
        for (const char* rule : {"momentum", "neuron-mean"})
            e.runs.push_back({rule, rule, optimizerInfo(rule).defaults});
        e.diagnosticsEvery = 3;
        TrainingJob job(e, requestedInstruments(InstrumentRequest(e)));
        TrainingFeed feed(std::chrono::milliseconds(25));
        job.deliverTo(&feed);
        job.addObserver(&feed);
        RunControl control;
        job.run(control);
        const std::vector<RunDiagnostics> diagnostics = feed.take().records.diagnostics;
        QCOMPARE(diagnostics.size(), std::size_t{2 * 4});
        QCOMPARE(diagnostics.back().record.step, 12L);
        QCOMPARE(diagnostics.back().record.layers.size(), std::size_t{2});
        QVERIFY(std::isfinite(diagnostics.back().record.layers[0][0].gradientSnr));
        // Off by default: nothing asked, no instrument (and the feed never asks for a step's state).
        Experiment quiet = e;
        quiet.diagnosticsEvery = 0;
        QVERIFY(requestedInstruments(InstrumentRequest(quiet)).empty());
        QVERIFY(!TrainingFeed().wantsStepState(0, 3));
    }
};

QTEST_MAIN(TestDiagnosticsDock)
#include "test_diagnostics_dock.moc"
