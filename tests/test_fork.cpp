// Twin runs from the same state: a training-state file continues a run bit for bit (every
// optimizer, every state buffer), a damaged or mismatched file is refused naming the file and the
// field, and `train --fork-from` runs other rules from a saved state.
#include "TestSupport.h"
#include "InputError.h"
#include "cli/Cli.h"
#include "cli/ExperimentArguments.h"
#include "data/DataFiles.h"
#include "io/Files.h"
#include "optim/OptimizerCatalog.h"
#include "experiment/ExperimentJson.h"
#include "train/LockstepTrainer.h"
#include "runfolder/RunFolderLayout.h"
#include "train/TrainingState.h"
#include "runfolder/TrainingStateWriter.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cstring>
#include <iostream>
#include <sstream>

using namespace ml;

namespace {

// Mini-batches of 50 from 400 samples: 8 steps an epoch, so step 20 is inside the third epoch
// (the saved data order and shuffling stream matter), with an evaluation every 5 steps.
Experiment xorExperiment(const QString& optimizers, long steps) {
    QJsonObject json{{"network", "2-6-2"}, {"activation", "tanh"}, {"loss", "cross-entropy"},
                     {"data", "toy:xor"},  {"batch", 50},          {"steps", static_cast<double>(steps)},
                     {"seed", 3},          {"eval-every", 5}};
    json["runs"] = parseOptimizerList(optimizers);
    Experiment experiment = experimentFromJson(json, "test");
    makeLabelsUnique(experiment.runs);
    return experiment;
}

// Every step's metrics of run 0 (wall time aside).
struct MetricsRecorder : TrainingObserver {
    std::vector<StepMetrics> rows;
    void stepFinished(const StepMetrics& metrics) override {
        if (metrics.run == 0) rows.push_back(metrics);
    }
};

bool sameBits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool sameBits(const Matrix& a, const Matrix& b) {
    // An empty matrix has no data pointer, and memcmp's arguments may not be null even for 0 bytes.
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           (a.size() == 0 || std::memcmp(a.data(), b.data(), sizeof(float) * static_cast<std::size_t>(a.size())) == 0);
}

// Trains `steps` steps of `optimizers` (run 0 checked), saving states every `saveEvery` into `folder`.
void train(const Experiment& experiment, const QString& folder, long saveEvery) {
    LockstepTrainer trainer(experiment, loadExperimentData(experiment));
    const RunFolderLayout layout(folder, {experiment.runs.front().label});
    TrainingStateWriter states(layout, trainer, saveEvery);
    trainer.addObserver(&states);
    RunControl control;
    trainer.run(control);
}

// Every state buffer of a layer by name (a vector as an n x 1 matrix).
std::vector<std::pair<std::string, Matrix>> buffersOf(const LayerState& state) {
    std::vector<std::pair<std::string, Matrix>> buffers;
    forEachStateBuffer(state, [&](const char* name, const auto& buffer) { buffers.emplace_back(name, buffer); });
    return buffers;
}

struct CliResult {
    int status;
    QString err;
    QString out;
};

CliResult cli(QStringList arguments) {
    arguments.prepend("momentum-lab-cli");
    std::ostringstream captured;
    std::streambuf* previous = std::cerr.rdbuf(captured.rdbuf());
    const int status = coreCommands().run(arguments);
    std::cerr.rdbuf(previous);
    return {status, QString::fromStdString(captured.str()), {}};
}

QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

const QStringList kXorFlags = {"train",  "--network", "2-6-2",   "--activation", "tanh",   "--loss", "cross-entropy",
                               "--data", "toy:xor",   "--batch", "50",           "--seed", "3",      "--eval-every",
                               "5",      "--quiet"};

}  // namespace

class TestFork : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // 40 steps in one go against 20 steps, a saved state and 20 more from it: the same bits.
    void continuingIsBitIdentical_data() {
        QTest::addColumn<QString>("optimizer");
        for (const OptimizerInfo& info : optimizerCatalog())
            QTest::newRow(info.name.c_str()) << QString::fromStdString(info.name);
        // Settings that add state buffers (every name of forEachStateBuffer is kept by one of these).
        for (const char* variant :
             {"rmsprop:centered=1:momentum=0.9", "adam:amsgrad=1", "adafactor:beta1=0.9", "sm3:momentum=0.9",
              "momentum:gradient-centralization=1:weight-decay=0.01", "adam:second-moment-mean=fan-in"})
            QTest::newRow(variant) << QString(variant);
    }
    void continuingIsBitIdentical() {
        QFETCH(QString, optimizer);
        const Experiment whole = xorExperiment(optimizer, 40);
        LockstepTrainer straight(whole, loadExperimentData(whole));
        MetricsRecorder straightMetrics;
        straight.addObserver(&straightMetrics);
        RunControl control;
        straight.run(control);
        QCOMPARE(straight.result(0).status, RunStatus::Done);

        QTemporaryDir tmp;
        train(xorExperiment(optimizer, 20), tmp.path(), 10);
        const QString stateFile = trainingStateFile(tmp.path(), 20);
        QVERIFY(QFile::exists(trainingStateFile(tmp.path(), 10)));
        LockstepTrainer forked(whole, loadExperimentData(whole));
        forked.resumeFrom(readTrainingStateFile(stateFile), {true});
        MetricsRecorder forkedMetrics;
        forked.addObserver(&forkedMetrics);
        RunControl forkControl;
        forked.run(forkControl);

        for (std::size_t l = 0; l < straight.parameters(0).size(); ++l) {
            QVERIFY2(sameBits(straight.parameters(0)[l], forked.parameters(0)[l]),
                     qPrintable(QString("layer %1").arg(l)));
            const auto straightBuffers = buffersOf(straight.optimizer(0).layerState(l));
            const auto forkedBuffers = buffersOf(forked.optimizer(0).layerState(l));
            int buffers = 0;
            for (std::size_t b = 0; b < straightBuffers.size(); ++b) {
                QVERIFY2(sameBits(straightBuffers[b].second, forkedBuffers[b].second),
                         straightBuffers[b].first.c_str());
                buffers += straightBuffers[b].second.size() > 0;
            }
            QVERIFY(buffers > 0);  // at least the update
        }
        QCOMPARE(forked.optimizer(0).stepCount(), straight.optimizer(0).stepCount());
        QCOMPARE(forkedMetrics.rows.size(), std::size_t{20});
        for (std::size_t i = 0; i < 20; ++i) {
            const StepMetrics& a = straightMetrics.rows[20 + i];
            const StepMetrics& b = forkedMetrics.rows[i];
            QCOMPARE(b.step, a.step);
            QCOMPARE(b.epoch, a.epoch);
            QVERIFY2(sameBits(a.trainLoss, b.trainLoss) && sameBits(a.fullTrainLoss, b.fullTrainLoss) &&
                         sameBits(a.testLoss, b.testLoss) && sameBits(a.testAccuracy, b.testAccuracy),
                     qPrintable(QString("step %1").arg(a.step)));
        }
    }

    // Damaged, foreign and mismatched state files are refused, naming the file and the field.
    void badStatesAreRefused_data() {
        QTest::addColumn<QString>("damage");  // what is done to the saved JSON
        QTest::addColumn<QString>("fork");    // the runs of the forking experiment
        QTest::addColumn<QString>("expected");
        QTest::newRow("version") << "version=2"
                                 << "momentum"
                                 << "version: 2; this build reads version 1";
        QTest::newRow("format") << "format=weights"
                                << "momentum"
                                << "format: expected \"momentum-lab training state\"";
        QTest::newRow("buffer cut") << "cut first_moment"
                                    << "momentum"
                                    << "layers[0].first_moment.values: has 17 values; expected rows x cols = 6 x 3";
        QTest::newRow("buffer shape") << "reshape first_moment"
                                      << "momentum"
                                      << "layers[0].first_moment: is 3 x 6; expected 6 x 3";
        QTest::newRow("unknown buffer") << "rename first_moment"
                                        << "momentum"
                                        << "layers[0].velocity: not an optimizer state buffer";
        QTest::newRow("data order") << "repeat data_order"
                                    << "momentum"
                                    << "data_order[1]: 0 is not a permutation of the 400 samples";
        QTest::newRow("rng") << "shuffle_state=abc"
                             << "momentum"
                             << "shuffle_state: not a state of the shuffling stream";
        QTest::newRow("huge shape")
            << "huge first_moment"
            << "momentum"
            << "layers[0].first_moment.values: has 0 values; expected rows x cols = 8589934592 x 2147483648";
        QTest::newRow("parameters") << "cut parameters"
                                    << "momentum"
                                    << "layers[1].parameters.values: has 13 values; expected rows x cols = 2 x 7";
        QTest::newRow("other optimizer") << ""
                                         << "rmsprop:momentum=0.9"
                                         << "optimizer: the state holds momentum's state; run rmsprop is rmsprop";
    }
    void badStatesAreRefused() {
        QFETCH(QString, damage);
        QFETCH(QString, fork);
        QFETCH(QString, expected);
        QTemporaryDir tmp;
        train(xorExperiment("momentum", 20), tmp.path(), 20);
        const QString good = trainingStateFile(tmp.path(), 20);
        QJsonObject json = QJsonDocument::fromJson(gunzip(readAll(good), good)).object();
        QJsonArray layers = json["layers"].toArray();
        QJsonObject layer0 = layers[0].toObject(), layer1 = layers[1].toObject();
        QJsonObject moment = layer0["first_moment"].toObject();
        if (damage.contains('='))
            json[damage.section('=', 0, 0)] = damage.section('=', 1).toInt()
                                                  ? QJsonValue(damage.section('=', 1).toInt())
                                                  : QJsonValue(damage.section('=', 1));
        if (damage == "cut first_moment") {
            QJsonArray values = moment["values"].toArray();
            values.removeLast();
            moment["values"] = values;
            layer0["first_moment"] = moment;
        }
        if (damage == "reshape first_moment") {
            moment["rows"] = 3;
            moment["cols"] = 6;
            layer0["first_moment"] = moment;
        }
        if (damage == "huge first_moment") {  // 2^33 x 2^31 = 2^64 wraps to 0 in 64 bits
            moment["rows"] = 8589934592.0;
            moment["cols"] = 2147483648.0;
            moment["values"] = QJsonArray();
            layer0["first_moment"] = moment;
        }
        if (damage == "rename first_moment") {
            layer0.remove("first_moment");
            layer0["velocity"] = moment;
        }
        if (damage == "repeat data_order") {
            QJsonArray order = json["data_order"].toArray();
            order[1] = 0;
            order[0] = 0;
            json["data_order"] = order;
        }
        if (damage == "cut parameters") {
            QJsonObject parameters = layer1["parameters"].toObject();
            QJsonArray values = parameters["values"].toArray();
            values.removeLast();
            parameters["values"] = values;
            layer1["parameters"] = parameters;
        }
        layers[0] = layer0;
        layers[1] = layer1;
        json["layers"] = layers;
        const QString bad = tmp.filePath("bad.json.gz");
        writeFileAtomically(bad, gzipCompress(QJsonDocument(json).toJson()));
        const Experiment experiment = xorExperiment(fork, 40);
        const QString message = test::inputErrorOf([&] {
            LockstepTrainer trainer(experiment, loadExperimentData(experiment));
            trainer.resumeFrom(readTrainingStateFile(bad), {true});
        });
        QVERIFY2(message.startsWith(bad + ": "), qPrintable(message));
        QVERIFY2(message.contains(expected), qPrintable(message));
    }

    void mismatchedExperimentsAndTruncatedFilesAreRefused() {
        QTemporaryDir tmp;
        train(xorExperiment("rmsprop", 20), tmp.path(), 20);
        const QString good = trainingStateFile(tmp.path(), 20);
        auto resume = [&](const Experiment& experiment, const QString& file, bool continues) {
            return test::inputErrorOf([&] {
                LockstepTrainer trainer(experiment, loadExperimentData(experiment));
                trainer.resumeFrom(readTrainingStateFile(file), {continues});
            });
        };
        // Another network, batch or seed than the state was saved with.
        Experiment wider = xorExperiment("rmsprop", 40);
        wider.network.setLayers("2-7-2", "test");
        QVERIFY(resume(wider, good, true)
                    .contains(good + ": network: the state was saved with 2-6-2; this experiment has 2-7-2"));
        Experiment otherBatch = xorExperiment("rmsprop", 40);
        otherBatch.batchSize = 40;
        QVERIFY(resume(otherBatch, good, true)
                    .contains(good + ": batch: the state was saved with 50; this experiment has 40"));
        // The same rule with settings that keep another buffer.
        QVERIFY(resume(xorExperiment("rmsprop:momentum=0.9", 40), good, true)
                    .contains(good + ": layers[0].first_moment: missing; rmsprop with this run's settings keeps it"));
        QVERIFY(resume(xorExperiment("rmsprop", 20), good, true)
                    .contains(good + ": step: 20; the experiment ends at step 20"));
        // Another rule may start fresh from it.
        QCOMPARE(resume(xorExperiment("adam", 40), good, false), QString());
        // Cut short: the gzip stream, then the JSON itself.
        const QByteArray bytes = readAll(good);
        const QString cut = tmp.filePath("cut.json.gz");
        writeFileAtomically(cut, bytes.left(bytes.size() / 2));
        const QString cutMessage = resume(xorExperiment("rmsprop", 40), cut, true);
        QVERIFY2(cutMessage.startsWith(cut + ": "), qPrintable(cutMessage));
        const QString cutJson = tmp.filePath("cut.json");
        const QByteArray json = gunzip(bytes, good);
        writeFileAtomically(cutJson, json.left(json.size() - 100));
        const QString jsonMessage = resume(xorExperiment("rmsprop", 40), cutJson, true);
        QVERIFY2(jsonMessage.startsWith(cutJson + ":") && jsonMessage.contains("invalid JSON"),
                 qPrintable(jsonMessage));
    }

    // The CLI: a same-rule fork ends with the weights of the uninterrupted run; a fork into two other
    // rules trains both from step 21; bad forks are refused with exit status 2.
    void cliForks() {
        QTemporaryDir tmp;
        const QString whole = tmp.filePath("whole"), half = tmp.filePath("half"), same = tmp.filePath("same"),
                      twins = tmp.filePath("twins");
        const QStringList momentum = {"--optimizer", "momentum", "--lr", "0.2"};
        CliResult r = cli(kXorFlags + momentum + QStringList{"--steps", "40", "--out", whole});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        r = cli(kXorFlags + momentum + QStringList{"--steps", "20", "--save-state-every", "10", "--out", half});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QVERIFY(QFile::exists(half + "/state/step-10.json.gz") && QFile::exists(half + "/state/step-20.json.gz"));

        // Same rule: its --lr comes with it from the forked run.
        r = cli({"train", "--fork-from", half, "--at-step", "20", "--steps", "40", "--quiet", "--out", same});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QCOMPARE(readAll(same + "/weights_final.json"), readAll(whole + "/weights_final.json"));
        const QList<QByteArray> wholeRows = test::maskWallTime(readAll(whole + "/metrics.csv")).split('\n');
        const QList<QByteArray> sameRows = test::maskWallTime(readAll(same + "/metrics.csv")).split('\n');
        QCOMPARE(sameRows.mid(1), wholeRows.mid(21));
        // Provenance: the fork's config.json names the run and step it continues; it reads back.
        const Experiment forked = loadExperiment(same + "/config.json");
        QCOMPARE(forked.forkedFrom, (ForkOrigin{"momentum", "momentum", 20,
                                                QDir::cleanPath(QFileInfo(half).absoluteFilePath()).toStdString()}));
        QVERIFY(!loadExperiment(whole + "/config.json").forkedFrom.valid());
        QJsonObject bad = toJson(forked);
        bad["forked-from"] = 3;
        QVERIFY(test::inputErrorOf([&] {
                    experimentFromJson(bad, "c.json");
                }).contains("c.json: forked-from: expected an object"));
        bad["forked-from"] = QJsonObject{{"run", "momentum"}, {"optimizer", "momentum"}, {"step", 0}};
        QVERIFY(test::inputErrorOf([&] { experimentFromJson(bad, "c.json"); }).contains("c.json: forked-from: step"));

        r = cli({"train", "--fork-from", half, "--at-step", "20", "--steps", "40", "--optimizer", "adam,neuron-mean",
                 "--quiet", "--out", twins});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        for (const char* run : {"adam", "neuron-mean"}) {
            const QList<QByteArray> rows = readAll(twins + "/" + run + "/metrics.csv").trimmed().split('\n');
            QCOMPARE(rows.size(), 21);
            QVERIFY2(rows[1].startsWith("21,3,"), rows[1].constData());
            QVERIFY(readAll(twins + "/" + run + "/summary.csv").contains(",40,"));
        }

        r = cli(
            {"train", "--fork-from", half, "--at-step", "15", "--steps", "40", "--quiet", "--out", tmp.filePath("x")});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("--at-step 15: " + half + "/state/step-15.json.gz does not exist; saved steps: 10, 20"),
                 qPrintable(r.err));
        r = cli({"train", "--fork-from", twins, "--at-step", "20", "--quiet", "--out", tmp.filePath("x")});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("--fork-from " + twins + ": holds 2 runs; fork one of them by its folder: " + twins +
                                "/adam, " + twins + "/neuron-mean"),
                 qPrintable(r.err));
        r = cli({"train", "--fork-from", half, "--at-step", "20", "--steps", "40", "--quiet", "--out", half});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("--out " + half + ": is the forked run's folder"), qPrintable(r.err));
        QVERIFY(QFile::exists(half + "/state/step-20.json.gz"));
        r = cli({"train", "--fork-from", half, "--steps", "40", "--quiet", "--out", tmp.filePath("x")});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("--fork-from and --at-step: give both"), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestFork)
#include "test_fork.moc"
