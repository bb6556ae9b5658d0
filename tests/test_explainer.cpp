// The update explainer's decomposition (train/UpdateExplanation.h): on snapshots of a real short
// training, the parts of every connection's update recombine to the recorded update, for the
// momentum, neuron-mean, adam, rmsprop and adagrad families and the layer-wise lars, lamb and
// novograd, sm3, adafactor and nero, amsgrad and centered rmsprop (their state from the snapshot's
// ruleState), with and without the step before recorded; every catalog row names its parts.
#include "AllocationCounter.h"
#include "cli/ExperimentArguments.h"
#include "optim/OptimizerCatalog.h"
#include "experiment/ExperimentJson.h"
#include "train/LockstepTrainer.h"
#include "train/UpdateExplanation.h"

#include <QJsonObject>
#include <QTest>

#include <cfloat>
#include <cmath>
#include <map>

using namespace ml;

namespace {

// Every snapshot of every run, by run and step.
struct SnapshotRecorder : TrainingObserver {
    std::map<std::pair<int, long>, SharedSnapshot> snapshots;
    bool wantsSnapshot(int, long) override { return true; }
    void snapshotTaken(const SharedSnapshot& snapshot) override {
        snapshots[{snapshot->run, snapshot->step}] = snapshot;
    }
};

Experiment sineExperiment(const QString& optimizers, long steps, const QString& network = "1-4-3-1") {
    QJsonObject json{{"network", network}, {"activation", "tanh"}, {"loss", "mse"},
                     {"data", "toy:sine"}, {"batch", 16},          {"steps", static_cast<double>(steps)},
                     {"seed", 5}};
    json["runs"] = parseOptimizerList(optimizers);
    Experiment experiment = experimentFromJson(json, "test");
    makeLabelsUnique(experiment.runs);
    return experiment;
}

bool close(double a, double b, double relative = 2e-5) {
    return std::abs(a - b) <= relative * std::max(std::abs(a), std::abs(b)) + 1e-10;
}

}  // namespace

class TestExplainer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void partsRecombineToTheRecordedUpdate_data();
    void partsRecombineToTheRecordedUpdate();
    void neuronMeanCarriesTheMeanMomentumItsOwn();
    void missingStateSaysWhy();
    void copiesNoMatrix();
    void everyCatalogOptimizerExplainsItself();
};

void TestExplainer::partsRecombineToTheRecordedUpdate_data() {
    QTest::addColumn<QString>("optimizer");
    QTest::newRow("momentum") << "momentum:lr=0.05";
    QTest::newRow("neuron-mean") << "neuron-mean:lr=0.05";
    QTest::newRow("neuron-mean blend, dampening") << "neuron-mean:lr=0.05:momentum-mean-blend=0.5:dampening=0.2";
    QTest::newRow("momentum fan-out, signed-abs-mean, bias join")
        << "momentum:lr=0.05:momentum-mean=fan-out:momentum-mean-stat=signed-abs-mean:bias=join";
    QTest::newRow("momentum, weight decay, gradient centralization")
        << "momentum:lr=0.05:weight-decay=0.01:gradient-centralization=true";
    QTest::newRow("nesterov") << "nesterov:lr=0.05";
    QTest::newRow("sgd") << "sgd:lr=0.1";
    QTest::newRow("sgdm-ema") << "sgdm-ema:lr=0.1";
    QTest::newRow("adam") << "adam:lr=0.01";
    QTest::newRow("adam neuron mean, weight decay") << "adam:lr=0.01:momentum-mean=fan-in:weight-decay=0.01";
    QTest::newRow("adamw") << "adamw:lr=0.01:weight-decay=0.1";
    QTest::newRow("adam-mini") << "adam-mini:lr=0.01";
    QTest::newRow("momentum layer mean") << "momentum:lr=0.05:momentum-mean=layer:bias=join";
    QTest::newRow("adam, second moment shared fan-out") << "adam:lr=0.01:second-moment-mean=fan-out";
    QTest::newRow("rmsprop") << "rmsprop:lr=0.01";
    QTest::newRow("rmsprop momentum, weight decay") << "rmsprop:lr=0.01:momentum=0.9:weight-decay=0.01";
    QTest::newRow("rmsprop, second moment shared fan-in") << "rmsprop:lr=0.01:second-moment-mean=fan-in";
    QTest::newRow("adagrad") << "adagrad:lr=0.05";
    QTest::newRow("adagrad lr-decay, gradient centralization")
        << "adagrad:lr=0.05:lr-decay=0.01:gradient-centralization=true";
    QTest::newRow("lars") << "lars:lr=1";
    QTest::newRow("lars weight decay, gradient centralization")
        << "lars:lr=1:weight-decay=0.01:gradient-centralization=true:trust=0.01";
    QTest::newRow("lamb") << "lamb:lr=0.01";
    QTest::newRow("lamb without decay, gradient centralization")
        << "lamb:lr=0.01:weight-decay=0:gradient-centralization=true";
    QTest::newRow("novograd") << "novograd:lr=0.01";
    QTest::newRow("novograd weight decay, gradient centralization")
        << "novograd:lr=0.01:weight-decay=0.01:gradient-centralization=true";
    QTest::newRow("sm3") << "sm3:lr=0.05";
    QTest::newRow("sm3 momentum, gradient centralization") << "sm3:lr=0.05:momentum=0.9:gradient-centralization=true";
    QTest::newRow("adafactor (relative step)") << "adafactor";
    QTest::newRow("adafactor beta1, lr, gradient centralization")
        << "adafactor:beta1=0.9:lr=0.01:gradient-centralization=true";
    QTest::newRow("adam amsgrad") << "adam:lr=0.01:amsgrad=true";
    QTest::newRow("adamw amsgrad, weight decay") << "adamw:lr=0.01:amsgrad=true:weight-decay=0.1";
    QTest::newRow("rmsprop centered") << "rmsprop:lr=0.01:centered=true";
    QTest::newRow("rmsprop centered, momentum, weight decay")
        << "rmsprop:lr=0.01:centered=true:momentum=0.9:weight-decay=0.01";
    QTest::newRow("nero") << "nero:lr=0.01";
    QTest::newRow("nero gradient centralization") << "nero:lr=0.05:gradient-centralization=true";
}

void TestExplainer::partsRecombineToTheRecordedUpdate() {
    QFETCH(QString, optimizer);
    const long steps = 12;
    const Experiment experiment = sineExperiment(optimizer, steps);
    LockstepTrainer trainer(experiment, loadExperimentData(experiment));
    SnapshotRecorder recorder;
    trainer.addObserver(&recorder);
    RunControl control;
    trainer.run(control);
    QCOMPARE(static_cast<long>(recorder.snapshots.size()), steps);

    int checked = 0;
    for (long step = 1; step <= steps; ++step) {
        const Snapshot& now = *recorder.snapshots.at({0, step});
        const Snapshot* before = step > 1 ? recorder.snapshots.at({0, step - 1}).get() : nullptr;
        for (int layer = 0; layer < static_cast<int>(now.layers.size()); ++layer) {
            const Matrix& update = now.layers[static_cast<std::size_t>(layer)].update;
            for (int row = 0; row < update.rows(); ++row)
                for (int column = 0; column < update.cols(); ++column) {
                    // With the step before (parts from a_{t-1}) and without it (carried part inferred).
                    for (const Snapshot* previous : {before, static_cast<const Snapshot*>(nullptr)}) {
                        const UpdateExplanation e =
                            explainUpdate(experiment.runs[0], now, previous, layer, row, column);
                        QVERIFY2(e.explained, e.reason.c_str());
                        QCOMPARE(e.carriedInferred, e.hasFirstMoment && step > 1 && previous == nullptr);
                        // nero's dw is the difference of two projected weights: it carries their
                        // rounding (a few units in the last place of w), which no recombination can
                        // remove (w_before itself is the snapshot's w - dw).
                        const double rounding = e.projected ? 4 * FLT_EPSILON * std::abs(e.weightBefore) : 0.0;
                        QVERIFY2(close(e.recombined, update(row, column)) ||
                                     std::abs(e.recombined - update(row, column)) <= rounding,
                                 qPrintable(QStringLiteral("step %1 layer %2 (%3, %4): %5 vs recorded %6")
                                                .arg(step)
                                                .arg(layer)
                                                .arg(row)
                                                .arg(column)
                                                .arg(e.recombined, 0, 'g', 9)
                                                .arg(update(row, column), 0, 'g', 9)));
                        if (e.hasFirstMoment) QVERIFY(close(e.firstMoment, e.recordedFirstMoment));
                        QVERIFY(!e.formula.empty());
                        QVERIFY2(e.formula.find("-0 ") == std::string::npos &&
                                     e.formula.find("-0)") == std::string::npos &&
                                     e.formula.find("-0\n") == std::string::npos,
                                 e.formula.c_str());  // no negative zero (novograd's wd*w with wd = 0)
                        ++checked;
                    }
                }
        }
    }
    QVERIFY(checked > 100);
}

// What neuron-mean changes for one weight: it carries its neuron's mean momentum where momentum
// carries the connection's own.
void TestExplainer::neuronMeanCarriesTheMeanMomentumItsOwn() {
    const Experiment experiment = sineExperiment("momentum:lr=0.05,neuron-mean:lr=0.05", 6);
    LockstepTrainer trainer(experiment, loadExperimentData(experiment));
    SnapshotRecorder recorder;
    trainer.addObserver(&recorder);
    RunControl control;
    trainer.run(control);
    for (int run = 0; run < 2; ++run) {
        const Snapshot& now = *recorder.snapshots.at({run, 6});
        const Snapshot& before = *recorder.snapshots.at({run, 5});
        const UpdateExplanation e =
            explainUpdate(experiment.runs[static_cast<std::size_t>(run)], now, &before, 1, 2, 1);
        QVERIFY(e.explained);
        QVERIFY(e.ownMomentum != e.neuronMean);
        const double carriedValue = run == 0 ? e.ownMomentum : e.neuronMean;
        QVERIFY(close(e.carried, 0.9 * carriedValue));
        QVERIFY(e.formula.find(run == 0 ? "0.9\u00b7a\u2032" : "0.9\u00b7M(a\u2032)") != std::string::npos);
    }
}

// The state beyond the moments comes from the snapshot's ruleState; without it (or for a layer
// that does not exist) the explanation says what is missing.
void TestExplainer::missingStateSaysWhy() {
    const Experiment experiment = sineExperiment("nero,adam:amsgrad=true,rmsprop:centered=true", 2);
    LockstepTrainer trainer(experiment, loadExperimentData(experiment));
    SnapshotRecorder recorder;
    trainer.addObserver(&recorder);
    RunControl control;
    trainer.run(control);
    const char* needs[] = {"tensor_scales", "max_second_moment", "centred_mean"};
    for (int run = 0; run < 3; ++run) {
        const RunSpec& spec = experiment.runs[static_cast<std::size_t>(run)];
        Snapshot stripped = *recorder.snapshots.at({run, 2});
        QVERIFY(explainUpdate(spec, stripped, nullptr, 0, 0, 0).explained);
        QVERIFY(stripped.layers[0].ruleStateBuffer(needs[run]) != nullptr);
        stripped.layers[0].ruleState.clear();
        const UpdateExplanation e = explainUpdate(spec, stripped, nullptr, 0, 0, 0);
        QVERIFY(!e.explained);
        QVERIFY2(e.reason.find(needs[run]) != std::string::npos, e.reason.c_str());
        QVERIFY(!explainUpdate(spec, stripped, nullptr, 5, 0, 0).explained);
    }
}

// A refresh of the explainer reads the snapshots in place: explaining a connection allocates the
// same (only the formula's text) whether its layer has 16 or 16,384 weights.
void TestExplainer::copiesNoMatrix() {
    if (!allocationCountingAvailable()) QSKIP("sanitizer build: nothing is counted");
    std::vector<long> counts;
    for (const QString network : {"1-4-4-1", "1-128-128-1"}) {
        const Experiment experiment = sineExperiment(
            "neuron-mean:lr=0.05:weight-decay=0.01:gradient-centralization=true:momentum-mean-blend=0.5", 3, network);
        LockstepTrainer trainer(experiment, loadExperimentData(experiment));
        SnapshotRecorder recorder;
        trainer.addObserver(&recorder);
        RunControl control;
        trainer.run(control);
        const Snapshot& now = *recorder.snapshots.at({0, 3});
        const Snapshot& before = *recorder.snapshots.at({0, 2});
        explainUpdate(experiment.runs[0], now, &before, 1, 2, 1);  // warm-up
        const std::size_t start = heapAllocationCount();
        const UpdateExplanation e = explainUpdate(experiment.runs[0], now, &before, 1, 2, 1);
        counts.push_back(static_cast<long>(heapAllocationCount() - start));
        QVERIFY(e.explained);
    }
    qInfo("explainUpdate: %ld heap allocations for a 4x5 layer, %ld for a 128x129 one", counts[0], counts[1]);
    QCOMPARE(counts[1], counts[0]);
}

// Each optimizer of the catalog names its explanation parts (a row without them fails here rather
// than showing "not taken apart" in the app), and they explain its own update with its defaults.
void TestExplainer::everyCatalogOptimizerExplainsItself() {
    for (const OptimizerInfo& entry : optimizerCatalog()) {
        QVERIFY2(entry.explanation != nullptr, (entry.name + ": its catalog row names no explanation parts").c_str());
        const Experiment experiment = sineExperiment(QString::fromStdString(entry.name), 2);
        LockstepTrainer trainer(experiment, loadExperimentData(experiment));
        SnapshotRecorder recorder;
        trainer.addObserver(&recorder);
        RunControl control;
        trainer.run(control);
        const Snapshot& now = *recorder.snapshots.at({0, 2});
        const UpdateExplanation e =
            explainUpdate(experiment.runs[0], now, recorder.snapshots.at({0, 1}).get(), 1, 1, 1);
        QVERIFY2(e.explained, (entry.name + ": " + e.reason).c_str());
        QVERIFY2(close(e.recombined, e.update) || std::abs(e.recombined - e.update) <= 4 * FLT_EPSILON,
                 (entry.name + ": " + e.formula).c_str());
    }
    RunSpec unknown;
    unknown.optimizer = "no-such-rule";
    QVERIFY(explainUpdate(unknown, Snapshot{}, nullptr, 0, 0, 0).reason.find("not taken apart") != std::string::npos);
}

QTEST_GUILESS_MAIN(TestExplainer)
#include "test_explainer.moc"
