// The desktop app's twin runs and update explainer: "Fork here" on a paused run continues it bit
// for bit in the branch with its own optimizer (against an uninterrupted training), the other
// branch differs, provenance is recorded, a running run is refused with a message; the update
// explainer shows one explanation per shown run for the clicked connection and plays through steps.
#include "TestSettings.h"
#include "MainWindow.h"
#include "experiment/ExperimentPanel.h"
#include "optim/OptimizerCatalog.h"
#include "experiment/ForkDialog.h"
#include "session/TrainingActions.h"
#include "session/TrainingSession.h"
#include "model/RunComparison.h"
#include "experiment/ExperimentJson.h"
#include "train/LockstepTrainer.h"
#include "model/RunSelection.h"
#include "views/UpdateExplainer.h"

#include <QAction>
#include <QPlainTextEdit>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>
#include <qcustomplot.h>

#include <cstring>

using namespace ml;

namespace {

RunSpec spec(const std::string& optimizer) { return {optimizer, optimizer, optimizerInfo(optimizer).defaults}; }

// Mini-batches, so that the data order and the shuffling stream carry over too.
Experiment sineExperiment(long steps, std::vector<RunSpec> runs) {
    Experiment experiment;
    experiment.name = "twin sine";
    experiment.network.setSizes({1, 4, 4, 1});
    experiment.data = "toy:sine";
    experiment.batchSize = 16;
    experiment.steps = steps;
    experiment.evalEvery = 5;
    experiment.runs = std::move(runs);
    return experiment;
}

bool sameBits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

struct MetricsRecorder : TrainingObserver {
    std::vector<StepMetrics> rows;
    void stepFinished(const StepMetrics& metrics) override { rows.push_back(metrics); }
};

}  // namespace

class TestTwinViews : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        useOwnSettingsFolder();  // no saved layout or experiment, and no other test's
    }

    void forkOfAPausedRunContinuesBitForBit() {
        const long forkStep = 20, steps = 60;
        MainWindow window;
        std::vector<StepMetrics> rows;
        connect(window.session(), &TrainingSession::metricsArrived, this,
                [&rows](const std::vector<StepMetrics>& metrics) {
                    rows.insert(rows.end(), metrics.begin(), metrics.end());
                });
        const Experiment source = sineExperiment(steps, {spec("momentum")});
        window.experimentPanel()->setExperiment(source);
        window.trainingActions()->step()->trigger();  // starts paused, one step
        for (long step = 1; step < forkStep; ++step) window.session()->stepOnce();
        QTRY_COMPARE_WITH_TIMEOUT(window.session()->stepsDone(), forkStep, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(window.comparison()->ownRunCount() == 1, 5000);
        QCOMPARE(window.session()->state(), SessionState::Paused);

        QString refusal;
        QVERIFY2(window.forkRun(0, {spec("momentum"), spec("neuron-mean")}, steps, &refusal), qPrintable(refusal));
        QTRY_VERIFY_WITH_TIMEOUT(window.session()->state() == SessionState::Finished &&
                                     window.comparison()->experiment().forkedFrom.valid() &&
                                     window.session()->endStates().size() == 2,
                                 20000);
        const Experiment& fork = window.comparison()->experiment();
        QCOMPARE(fork.runs.size(), std::size_t(2));
        QCOMPARE(fork.runs[0].label, std::string("momentum@20\u2192momentum"));
        QCOMPARE(fork.runs[1].label, std::string("momentum@20\u2192neuron-mean"));
        QCOMPARE(fork.forkedFrom, (ForkOrigin{"momentum", "momentum", forkStep, ""}));
        QVERIFY(toJson(fork).value("forked-from").toObject().value("step").toDouble() == double(forkStep));
        // The source comparison is overlaid beside the branches.
        QCOMPARE(window.runSelection()->labels().size(), 3);

        // The same training, never interrupted.
        LockstepTrainer reference(source, loadExperimentData(source));
        MetricsRecorder uninterrupted;
        reference.addObserver(&uninterrupted);
        RunControl control;
        reference.run(control);

        int compared = 0, differing = 0;
        for (const StepMetrics& row : rows) {
            if (row.step <= forkStep) continue;
            const StepMetrics& expected = uninterrupted.rows.at(static_cast<std::size_t>(row.step - 1));
            QCOMPARE(expected.step, row.step);
            if (row.run == 0) {
                QVERIFY2(sameBits(row.trainLoss, expected.trainLoss), qPrintable(QString("step %1").arg(row.step)));
                if (expected.evaluated()) QVERIFY(sameBits(row.testLoss, expected.testLoss));
                ++compared;
            } else if (!sameBits(row.trainLoss, expected.trainLoss)) {
                ++differing;
            }
        }
        QCOMPARE(compared, int(steps - forkStep));
        QVERIFY(differing > 0);

        // A finished training forks too, from its runs' final states (here a branch of the fork).
        QVERIFY2(window.forkRun(1, {spec("momentum")}, steps + 10, &refusal), qPrintable(refusal));
        QTRY_VERIFY_WITH_TIMEOUT(window.session()->state() == SessionState::Finished &&
                                     window.comparison()->experiment().forkedFrom.step == steps,
                                 20000);
        QCOMPARE(window.comparison()->experiment().runs.front().label,
                 std::string("momentum@20\u2192neuron-mean@60\u2192momentum"));
        QCOMPARE(window.comparison()->experiment().forkedFrom.run, std::string("momentum@20\u2192neuron-mean"));
    }

    void forkingARunningRunIsRefused() {
        MainWindow window;
        window.session()->setMaxStepsPerSecond(50);  // still running when asked
        window.experimentPanel()->setExperiment(sineExperiment(100000, {spec("momentum")}));
        window.trainingActions()->start()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(window.session()->stepsDone() > 0, 5000);
        QString refusal;
        QVERIFY(!window.forkRun(0, ForkDialog::defaultBranches(spec("momentum")), 200000, &refusal));
        QVERIFY2(refusal.contains("running"), qPrintable(refusal));
        QCOMPARE(window.session()->state(), SessionState::Running);
        window.session()->stop();
        QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), SessionState::Finished, 5000);
        // Nothing trained in this window's view after a reset: refused too, naming the CLI's way.
        window.trainingActions()->reset()->trigger();
        QVERIFY(!window.forkRun(0, ForkDialog::defaultBranches(spec("momentum")), 10, &refusal));
        QVERIFY2(refusal.contains("--fork-from"), qPrintable(refusal));
    }

    void defaultBranchesAreTheRunsOwnAndTheOther() {
        RunSpec momentum = spec("momentum");
        momentum.label = "fast";
        momentum.hp.lr = 0.05;
        const std::vector<RunSpec> branches = ForkDialog::defaultBranches(momentum);
        QCOMPARE(branches.size(), std::size_t(2));
        QCOMPARE(branches[0].optimizer, std::string("momentum"));
        QCOMPARE(branches[0].hp, momentum.hp);
        QCOMPARE(branches[1].optimizer, std::string("neuron-mean"));
        QCOMPARE(branches[1].hp.lr, 0.05);
        QCOMPARE(ForkDialog::defaultBranches(spec("neuron-mean"))[1].optimizer, std::string("momentum"));
    }

    void explainerShowsEveryShownRunAndPlays() {
        MainWindow window;
        auto* explainer = window.updateExplainer();
        QVERIFY(explainer);
        window.experimentPanel()->setExperiment(sineExperiment(40, {spec("momentum"), spec("neuron-mean")}));
        window.trainingActions()->start()->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), SessionState::Finished, 20000);
        explainer->setConnection(1, 2, 1);
        RunSelection* selection = window.runSelection();
        selection->setStep(10);
        QCOMPARE(int(explainer->explanations().size()), 2);
        for (const auto& [run, e] : explainer->explanations()) {
            QCOMPARE(e.step, 10L);
            QVERIFY(!e.carriedInferred);  // a small network records every step
            QVERIFY(std::abs(e.recombined - e.update) <= 1e-5 * std::abs(e.update) + 1e-10);
        }
        QVERIFY(explainer->formulas()->toPlainText().contains("M(a\u2032)"));
        QCOMPARE(explainer->plot()->plottableCount(), 4);  // parts and update, per run
        explainer->setPlaying(true);
        QTRY_VERIFY_WITH_TIMEOUT(selection->step() > 10, 3000);
        explainer->setPlaying(false);
        const long at = selection->step();
        QTest::qWait(500);
        QCOMPARE(selection->step(), at);
        explainer->setConnection(-1, -1, -1);
        QVERIFY(explainer->explanations().empty());
    }
};

QTEST_MAIN(TestTwinViews)
#include "test_twin_views.moc"
