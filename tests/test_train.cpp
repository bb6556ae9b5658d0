// The lockstep trainer: determinism, identical starts, divergence, stop/pause from another
// thread, snapshots, evaluation schedule, experiment JSON.
#include "TestSupport.h"
#include "data/DataRegistry.h"
#include "optim/OptimizerCatalog.h"
#include "experiment/ExperimentJson.h"
#include "train/LockstepTrainer.h"
#include "experiment/Presets.h"
#include "runfolder/RunFolderReader.h"
#include "runfolder/RunCsv.h"
#include "runfolder/RunFolderWriter.h"
#include "runfolder/WeightsFile.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include <chrono>
#include <thread>

using namespace ml;

namespace {

RunSpec run(const std::string& optimizer, double lr, const std::string& label = {}) {
    RunSpec spec{label.empty() ? optimizer : label, optimizer, optimizerInfo(optimizer).defaults};
    spec.hp.lr = lr;
    return spec;
}

Experiment xorExperiment(std::vector<RunSpec> runs, long steps = 40, long batch = 100) {
    Experiment e;
    e.network.setSizes({2, 8, 2});
    e.network.activation = Activation::Tanh;
    e.network.loss = LossKind::CrossEntropy;
    e.data = "toy:xor";
    e.batchSize = batch;
    e.steps = steps;
    e.runs = std::move(runs);
    return e;
}

LockstepTrainer makeTrainer(const Experiment& e) { return LockstepTrainer(e, loadDataSplit(e.data, e.seed)); }

bool sameParameters(const Parameters& a, const Parameters& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t l = 0; l < a.size(); ++l)
        if (a[l].rows() != b[l].rows() || a[l].cols() != b[l].cols() || a[l] != b[l]) return false;
    return true;
}

struct Recorder : TrainingObserver {
    long every = 0;
    std::vector<StepMetrics> metrics;
    std::vector<Snapshot> snapshots;
    std::vector<RunResult> finished;
    void stepFinished(const StepMetrics& m) override { metrics.push_back(m); }
    bool wantsSnapshot(int, long step) override { return every > 0 && step % every == 0; }
    void snapshotTaken(const SharedSnapshot& s) override { snapshots.push_back(*s); }
    void runFinished(int, const RunResult& r) override { finished.push_back(r); }
};

}  // namespace

class TestTrain : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sameSeedGivesBitIdenticalRuns() {
        const Experiment e = xorExperiment({run("momentum", 0.1), run("adam", 0.01)});
        LockstepTrainer a = makeTrainer(e), b = makeTrainer(e);
        RunControl ca, cb;
        a.run(ca);
        b.run(cb);
        for (int r = 0; r < 2; ++r) QVERIFY(sameParameters(a.parameters(r), b.parameters(r)));
        Experiment other = e;
        other.seed = 8;
        LockstepTrainer c = makeTrainer(other);
        QVERIFY(!sameParameters(a.initialParameters(), c.initialParameters()));
    }

    void runsStartIdenticalAndSeeTheSameBatches() {
        // Two identical optimizers under different labels must stay bit-identical step by step.
        const Experiment e = xorExperiment({run("momentum", 0.1, "a"), run("momentum", 0.1, "b"), run("sgd", 0.1)});
        LockstepTrainer trainer = makeTrainer(e);
        for (int r = 0; r < 3; ++r) QVERIFY(sameParameters(trainer.parameters(r), trainer.initialParameters()));
        Recorder recorder;
        trainer.addObserver(&recorder);
        RunControl control;
        trainer.run(control);
        QVERIFY(sameParameters(trainer.parameters(0), trainer.parameters(1)));
        QVERIFY(!sameParameters(trainer.parameters(0), trainer.parameters(2)));
        QCOMPARE(recorder.metrics.size(), std::size_t(3 * 40));
        for (std::size_t i = 0; i < recorder.metrics.size(); i += 3)
            QCOMPARE(recorder.metrics[i].trainLoss, recorder.metrics[i + 1].trainLoss);
    }

    void divergedRunStopsAloneAndOthersGoOn() {
        // Identity network on sine with a far too large step: the weights grow geometrically.
        Experiment e = xorExperiment({run("sgd", 50.0, "wild"), run("momentum", 0.01)}, 40, 0);
        e.network = {{1, 4, 1}, Activation::Identity, LossKind::Mse};
        e.data = "toy:sine";
        LockstepTrainer trainer = makeTrainer(e);
        RunControl control;
        trainer.run(control);
        QVERIFY(trainer.result(0).status == RunStatus::Diverged);
        QVERIFY(trainer.result(0).divergedAtStep > 0);
        QCOMPARE(trainer.result(0).statusText(),
                 "diverged at step " + std::to_string(trainer.result(0).divergedAtStep));
        QVERIFY(trainer.result(1).status == RunStatus::Done);
        QCOMPARE(trainer.result(1).steps, 40L);
    }

    void stopFromAnotherThread() {
        LockstepTrainer trainer = makeTrainer(xorExperiment({run("momentum", 0.1)}, 100000000));
        RunControl control;
        std::thread worker([&] { trainer.run(control); });
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        control.requestStop();
        worker.join();
        QVERIFY(trainer.result(0).status == RunStatus::Stopped);
        QVERIFY(trainer.stepsDone() > 0);
        QVERIFY(trainer.stepsDone() < 100000000);
        QVERIFY(std::isfinite(trainer.result(0).finalTestLoss));
    }

    void stopFlagIsPolledEvenWhilePaused() {
        // A signal handler may only set a flag; nobody notifies the paused loop.
        LockstepTrainer trainer = makeTrainer(xorExperiment({run("momentum", 0.1)}, 100000000));
        RunControl control;
        std::atomic<int> flag{0};
        control.setStopFlag(&flag);
        control.setPaused(true);
        std::thread worker([&] { trainer.run(control); });
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        QVERIFY(!control.stopRequested());
        flag = 2;
        QVERIFY(control.stopRequested());
        worker.join();  // would hang if the paused wait did not look at the flag
        QCOMPARE(trainer.stepsDone(), 0L);
        QVERIFY(trainer.result(0).status == RunStatus::Stopped);
    }

    void pauseStepOnceAndResume() {
        LockstepTrainer trainer = makeTrainer(xorExperiment({run("momentum", 0.1)}, 30));
        RunControl control;
        control.setPaused(true);
        std::thread worker([&] { trainer.run(control); });
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        QCOMPARE(trainer.stepsDone(), 0L);
        control.stepOnce();
        QTRY_COMPARE(trainer.stepsDone(), 1L);
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        QCOMPARE(trainer.stepsDone(), 1L);
        control.setPaused(false);
        worker.join();
        QCOMPARE(trainer.stepsDone(), 30L);
    }

    void speedLimitSlowsTheLoop() {
        LockstepTrainer trainer = makeTrainer(xorExperiment({run("momentum", 0.1)}, 10));
        RunControl control;
        control.setMaxStepsPerSecond(100.0);
        const auto start = std::chrono::steady_clock::now();
        trainer.run(control);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        QVERIFY2(ms >= 80.0, qPrintable(QString("10 steps at 100 steps/s took %1 ms").arg(ms)));
    }

    void snapshotsOnlyWhenAskedAndConsistent() {
        Experiment e = xorExperiment({run("neuron-mean", 0.1), run("sgd", 0.1)}, 12);
        LockstepTrainer quiet = makeTrainer(e);
        Recorder none;
        quiet.addObserver(&none);
        RunControl c1;
        quiet.run(c1);
        QVERIFY(none.snapshots.empty());

        LockstepTrainer trainer = makeTrainer(e);
        Recorder recorder;
        recorder.every = 1;
        trainer.addObserver(&recorder);
        RunControl c2;
        trainer.run(c2);
        QCOMPARE(recorder.snapshots.size(), std::size_t(24));
        const Snapshot& previous = recorder.snapshots[2 * 4];
        const Snapshot& current = recorder.snapshots[2 * 5];
        QCOMPARE(current.run, 0);
        QCOMPARE(current.step, 6L);
        QVERIFY(current.scope == MeanScope::FanIn);
        QCOMPARE(current.layers.size(), std::size_t(2));
        for (std::size_t l = 0; l < current.layers.size(); ++l) {
            const LayerSnapshot& layer = current.layers[l];
            QVERIFY((layer.parameters - previous.layers[l].parameters - layer.update).cwiseAbs().maxCoeff() < 1e-6f);
            const Vector rowMeans = weightsOf(layer.firstMoment).rowwise().mean();
            QVERIFY((layer.neuronMeans - rowMeans).cwiseAbs().maxCoeff() < 1e-6f);
            QCOMPARE(layer.secondMoment.size(), Eigen::Index(0));  // momentum keeps no second moment
        }
        const Snapshot& sgd = recorder.snapshots[1];
        QCOMPARE(sgd.run, 1);
        QCOMPARE(sgd.layers[0].firstMoment.size(), Eigen::Index(0));
    }

    void evaluationEveryNStepsAndAtEpochEnds() {
        // toy:xor has 400 training samples: batch 100 -> epochs end at steps 4, 8.
        Experiment e = xorExperiment({run("momentum", 0.1)}, 10);
        e.evalEvery = 3;
        LockstepTrainer trainer = makeTrainer(e);
        Recorder recorder;
        trainer.addObserver(&recorder);
        RunControl control;
        trainer.run(control);
        std::vector<long> evaluated;
        for (const StepMetrics& m : recorder.metrics)
            if (m.evaluated()) evaluated.push_back(m.step);
        QCOMPARE(evaluated, (std::vector<long>{3, 4, 6, 8, 9, 10}));
        QCOMPARE(recorder.metrics[4].epoch, 2);
        QVERIFY(recorder.metrics.back().testAccuracy >= 0.0f && recorder.metrics.back().testAccuracy <= 1.0f);
    }

    void networkMustFitTheData() {
        Experiment e = xorExperiment({run("momentum", 0.1)});
        e.network.setSizes({3, 4, 2});
        QString message = test::inputErrorOf([&] { makeTrainer(e); });
        QVERIFY2(message.contains("--network 3-4-2"), qPrintable(message));
        e.data = "toy:sine";
        e.network.setSizes({1, 4, 1});
        message = test::inputErrorOf([&] { makeTrainer(e); });
        QVERIFY2(message.contains("--loss cross-entropy"), qPrintable(message));
    }

    void experimentJsonRoundTrip() {
        Experiment e = xorExperiment({run("momentum", 0.05), run("adam", 0.002)});
        e.runs[0].hp.momentumMean = MeanScope::FanOut;
        e.runs[0].hp.bias = BiasMode::Join;
        e.runs[1].hp.amsgrad = true;
        e.evalEvery = 7;
        e.seed = 123;
        const Experiment back = experimentFromJson(toJson(e), "test");
        QCOMPARE(QJsonDocument(toJson(back)).toJson(), QJsonDocument(toJson(e)).toJson());
        QVERIFY(back.runs[0].hp == e.runs[0].hp);
        QCOMPARE(back.runs[1].hp.amsgrad, true);
    }

    void seedsKeepAll64Bits() {
        // JSON numbers are doubles: seeds above 2^53 travel as decimal strings, exactly.
        for (const std::uint64_t seed : {std::uint64_t{0}, kLargestExactJsonInteger, kLargestExactJsonInteger + 1,
                                         std::uint64_t{18446744073709551615ull}}) {
            Experiment e = xorExperiment({run("momentum", 0.05)});
            e.seed = seed;
            const QJsonObject json = toJson(e);
            QCOMPARE(json["seed"].isString(), seed > kLargestExactJsonInteger);
            QCOMPARE(experimentFromJson(json, "test").seed, seed);
        }
        QJsonObject json = toJson(xorExperiment({run("momentum", 0.05)}));
        for (const QJsonValue& bad : {QJsonValue(-1.0), QJsonValue(1.5), QJsonValue(9007199254740994.0),
                                      QJsonValue("18446744073709551616"), QJsonValue("-3"), QJsonValue("12 ")}) {
            json["seed"] = bad;
            const QString message = test::inputErrorOf([&] { experimentFromJson(json, "EXP.json"); });
            QVERIFY2(message.startsWith("EXP.json: seed: expected a whole number"), qPrintable(message));
        }
    }

    void experimentJsonErrorsNameTheField() {
        QJsonObject json = toJson(xorExperiment({run("momentum", 0.05)}));
        QJsonArray runs = json["runs"].toArray();
        QJsonObject first = runs[0].toObject();
        first["lr"] = -1.0;
        runs[0] = first;
        json["runs"] = runs;
        const QString message = test::inputErrorOf([&] { experimentFromJson(json, "EXP.json"); });
        QVERIFY2(message.contains("EXP.json: runs[0].lr"), qPrintable(message));
        json = toJson(xorExperiment({run("momentum", 0.05)}));
        json["colour"] = "red";
        QVERIFY_THROWS_EXCEPTION(InputError, experimentFromJson(json, "EXP.json"));
    }

    void presetsLoad() {
        const auto& list = presets();
        QVERIFY(list.size() >= 3);
        QCOMPARE(list.front().experiment.data, std::string("toy:sine"));
        QCOMPARE(list.front().experiment.runs.size(), std::size_t(2));
        QCOMPARE(list.front().experiment.runs[1].optimizer, std::string("neuron-mean"));
        for (const Preset& preset : list) preset.experiment.validate();
    }

    void presetsAreFoundByIdOrFileName() {
        QCOMPARE(findPreset("seed2-iris").experiment.data, std::string("iris"));
        QCOMPARE(&findPreset("2-seed2-iris"), &findPreset("seed2-iris"));
        const QString message = test::inputErrorOf([] { findPreset("moons"); });
        QVERIFY2(message.contains("unknown 'moons'") && message.contains("seed-diagram, seed2-iris, mnist-seed"),
                 qPrintable(message));
    }

    void trainerStartsFromGivenWeights() {
        Experiment e = xorExperiment({run("sgd", 0.1)}, 3);
        Parameters start = makeTrainer(e).initialParameters();
        for (Matrix& layer : start) layer.setConstant(0.125f);
        LockstepTrainer trainer(e, loadDataSplit(e.data, e.seed), InitialWeights{start, "start.json"});
        QVERIFY(sameParameters(trainer.initialParameters(), start));
        QVERIFY(sameParameters(trainer.parameters(0), start));

        start.pop_back();  // wrong shape: the message names where the weights came from
        const QString message = test::inputErrorOf([&] {
            LockstepTrainer(e, loadDataSplit(e.data, e.seed), InitialWeights{start, "start.json"});
        });
        QVERIFY2(message.contains("start.json"), qPrintable(message));

        e.initWeightsFile = "start.json";  // named but not loaded: a caller's mistake, not silently Glorot
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeTrainer(e));
    }

    void runFolderOpensWhenOneRunIsUnreadable() {
        QTemporaryDir tmp;
        const Experiment e = xorExperiment({run("momentum", 0.1), run("adam", 0.01)}, 5);
        LockstepTrainer trainer = makeTrainer(e);
        RunFolderWriter writer(tmp.path(), trainer);
        trainer.addObserver(&writer);
        RunControl control;
        trainer.run(control);
        writer.finish();
        // What older versions wrote for a diverged run: null instead of a number.
        QFile weights(writer.layout().finalWeightsFile(1));
        QVERIFY(weights.open(QIODevice::WriteOnly));
        weights.write(R"({"layers":[{"weight":[[null,1]],"bias":[0]}]})");
        weights.close();

        const RunFolder folder = readRunFolder(tmp.path());
        QCOMPARE(folder.runs.size(), std::size_t(2));
        QVERIFY(folder.runs[0].problem.empty());
        QVERIFY(sameParameters(folder.runs[0].finalWeights, trainer.parameters(0)));
        QCOMPARE(folder.runs[1].metrics.rowCount(), 5L);  // what could be read is kept
        QVERIFY(folder.runs[1].finalWeights.empty());
        const std::vector<std::string> problems = folder.problems();
        QCOMPARE(problems.size(), std::size_t(1));
        QVERIFY2(problems[0].starts_with("adam: " + writer.layout().finalWeightsFile(1).toStdString() +
                                         ": has 1 layers; network 2-8-2 has 2 with parameters"),
                 problems[0].c_str());
        // summary.csv says done, but without readable final weights the run reads as stopped.
        QVERIFY(folder.runs[1].result.status == RunStatus::Stopped);
        QVERIFY2(problems[0].find("read as stopped") != std::string::npos, problems[0].c_str());

        // Weights of another shape (a 4x1 first layer for 2-8-2 read out of bounds in the views).
        QVERIFY(weights.open(QIODevice::WriteOnly));
        weights.write(
            R"({"layers":[{"weight":[[1],[2],[3],[4]],"bias":[0,0,0,0]},{"weight":[[1,2,3,4]],"bias":[0]}]})");
        weights.close();
        const RunFolder misshapen = readRunFolder(tmp.path());
        QVERIFY(misshapen.runs[1].finalWeights.empty());
        QVERIFY2(
            misshapen.runs[1].problem.find(
                "layers[0].weight: has 4 values; expected 8 (network 2-8-2: 8 has weight [8][2])") != std::string::npos,
            misshapen.runs[1].problem.c_str());
        QVERIFY(sameParameters(misshapen.runs[0].finalWeights, trainer.parameters(0)));

        QVERIFY(QFile::remove(writer.layout().metricsFile(0)));
        const RunFolder again = readRunFolder(tmp.path());
        QVERIFY2(again.runs[0].problem.find("metrics.csv: cannot open") != std::string::npos,
                 again.runs[0].problem.c_str());
        QCOMPARE(again.runs[1].metrics.rowCount(), 5L);
    }

    // metrics.csv is streamed into a digest of at most `budget` points per series
    // plus the figures of every row; here a file of 1,000 rows (130 evaluated) against a budget of 64.
    void metricsAreStreamedIntoABoundedDigest() {
        QTemporaryDir tmp;
        const QString path = tmp.filePath("metrics.csv");
        QByteArray csv = metricsHeader();
        constexpr long kRows = 1000, kStepsPerEpoch = 40;
        for (long step = 1; step <= kRows; ++step) {
            StepMetrics m;
            m.step = step;
            m.epoch = static_cast<int>((step - 1) / kStepsPerEpoch + 1);
            m.trainLoss = 1.0f / static_cast<float>(step);
            if (step % 7 == 0 || step % kStepsPerEpoch == 0) {
                m.testLoss = 2.0f / static_cast<float>(step);
                m.testAccuracy = static_cast<float>(step) / kRows;
            }
            m.wallMs = static_cast<double>(step);
            csv += metricsRow(m);
        }
        csv += "1001,26,0.5";  // cut off by a kill: ignored
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(csv);
        file.close();
        const std::vector<StepMetrics> all = parseMetricsCsv(csv, path, 0);
        const long evaluated =
            std::count_if(all.begin(), all.end(), [](const StepMetrics& m) { return m.evaluated(); });

        MetricsDigest digest(64);
        readMetricsFile(path, 0, digest);
        QCOMPARE(digest.rowCount(), kRows);
        QCOMPARE(digest.evaluationCount(), evaluated);
        QCOMPARE(digest.stepsPerEpoch(), kStepsPerEpoch);
        QCOMPARE(digest.last()->step, kRows);
        QCOMPARE(digest.last()->trainLoss, all.back().trainLoss);
        QCOMPARE(digest.lastEvaluation()->step, kRows);  // the last step ends epoch 25
        // Each series: fewer points than the budget, at least half of it, evenly spaced from the
        // first row on (every stride-th row), i.e. the whole file at the coarsest density needed.
        auto checkSeries = [](const std::vector<StepMetrics>& kept, const std::vector<StepMetrics>& source) {
            QVERIFY2(kept.size() < 64 && kept.size() >= 32, qPrintable(QString::number(kept.size())));
            const auto second = std::find_if(source.begin(), source.end(),
                                             [&](const StepMetrics& m) { return m.step == kept[1].step; });
            const std::size_t stride = static_cast<std::size_t>(second - source.begin());  // rows offered per row kept
            QVERIFY2(stride > 1 && (stride & (stride - 1)) == 0, qPrintable(QString::number(stride)));  // it doubles
            for (std::size_t k = 0; k < kept.size(); ++k) QCOMPARE(kept[k].step, source[k * stride].step);
            QVERIFY(kept.size() * stride >= source.size());  // the next kept row would lie past the end
        };
        checkSeries(digest.rows(), all);
        std::vector<StepMetrics> evaluations;
        std::copy_if(all.begin(), all.end(), std::back_inserter(evaluations),
                     [](const StepMetrics& m) { return m.evaluated(); });
        checkSeries(digest.evaluations(), evaluations);

        // Not a metrics file: refused at its first line, whatever its length.
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(metricsHeader() + QByteArray(1 << 20, '7'));
        file.write("\n");
        file.close();
        MetricsDigest refused(64);
        const QString message = test::inputErrorOf([&] { readMetricsFile(path, 0, refused); });
        QVERIFY2(message.contains(path + ":2: longer than 4096 bytes"), qPrintable(message));
    }
};

QTEST_GUILESS_MAIN(TestTrain)
#include "test_train.moc"
