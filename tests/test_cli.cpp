// momentum-lab-cli train: the files, the exit statuses, the precedence of config and flags,
// reproduction from config.json, and messages that name the flag or file.
#include "TestSupport.h"
#include "InputError.h"
#include "TestSupport.h"
#include "cli/Cli.h"
#include "data/DataRegistry.h"
#include "experiment/ExperimentJson.h"
#include "train/LockstepTrainer.h"
#include "runfolder/RunCsv.h"
#include "runfolder/RunFolderReader.h"
#include "runfolder/SnapshotFile.h"
#include "train/UpdateExplanation.h"
#include "runfolder/WeightsFile.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QMap>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <cstring>
#include <map>
#include <iostream>
#include <sstream>

namespace {

struct CliResult {
    int status;
    QString err;
};

// Runs a command table in-process, capturing stderr (stdout is left alone).
CliResult run(const ml::CommandTable& table, QStringList arguments) {
    arguments.prepend("momentum-lab-cli");
    std::ostringstream captured;
    std::streambuf* previous = std::cerr.rdbuf(captured.rdbuf());
    const int status = table.run(arguments);
    std::cerr.rdbuf(previous);
    return {status, QString::fromStdString(captured.str())};
}

CliResult cli(const QStringList& arguments) { return run(ml::coreCommands(), arguments); }

QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QJsonObject readJson(const QString& path) { return QJsonDocument::fromJson(readAll(path)).object(); }

// The metrics without the wall-time column (which differs between identical runs).
QStringList lossColumns(const QString& path) {
    QStringList rows;
    for (const QByteArray& line : readAll(path).split('\n')) rows << QString(line).section(',', 0, 4);
    return rows;
}

// A two-optimizer study of 12 trials (6 tuning, 6 final) small enough to run in a test.
const char* const kTinyStudy = R"({"name": "tiny", "network": "2-8-2", "activation": "tanh", "loss": "cross-entropy",
  "data": "toy:circle", "seed": 3, "batch": 32, "steps": 20, "eval-every": 10,
  "runs": [{"optimizer": "momentum", "lr": 0.1}, {"optimizer": "sgd", "lr": 0.1}],
  "study": {"budget": 3, "search": {"*": {"lr": {"grid": [0.03, 0.3]}}}, "seeds": 3}})";

// A folder name made of what a shell would run if it reached a script unquoted.
const QString kHostileFolder = "my study 'q' \"dq\" $(touch PWNED1) `touch PWNED2` ; touch PWNED3 %A";

QString writeText(const QString& path, const QByteArray& text) {
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size())
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

struct ProcessResult {
    int status;
    QByteArray out, err;
};

// Runs `script` with bash in `folder`, with `environment` added.
ProcessResult bash(const QStringList& arguments, const QString& folder,
                   const QMap<QString, QString>& environment = {}) {
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("PATH", QFileInfo(MOMENTUM_LAB_CLI).absolutePath() + ":" + env.value("PATH"));
    for (auto it = environment.begin(); it != environment.end(); ++it) env.insert(it.key(), it.value());
    process.setProcessEnvironment(env);
    process.setWorkingDirectory(folder);
    process.start("bash", arguments);
    if (!process.waitForFinished(120000)) process.kill();
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1, process.readAllStandardOutput(),
            process.readAllStandardError()};
}

// Every file under `root` whose name starts with PWNED (what a payload would create).
QStringList payloadFiles(const QString& root) {
    QStringList found;
    QDirIterator it(root, {"PWNED*"}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) found << it.next();
    return found;
}

const QStringList kSmallXor = {"train",  "--network", "2-6-2",   "--activation", "tanh",    "--loss", "cross-entropy",
                               "--data", "toy:xor",   "--batch", "50",           "--steps", "30",     "--seed",
                               "3",      "--quiet"};

}  // namespace

class TestCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void singleRunWritesTheRunFolder() {
        QTemporaryDir tmp;
        const QString out = tmp.filePath("run");
        const CliResult r = cli(kSmallXor + QStringList{"--optimizer", "momentum", "--lr", "0.1", "--out", out});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        const QList<QByteArray> lines = readAll(out + "/metrics.csv").trimmed().split('\n');
        QCOMPARE(lines.front(), QByteArray("step,epoch,train_loss,test_loss,test_accuracy,wall_ms"));
        QCOMPARE(lines.size(), 31);
        QVERIFY(lines[1].startsWith("1,1,"));
        QVERIFY(lines[8].startsWith("8,1,"));  // 400 samples / 50 = 8 steps per epoch: evaluated
        QVERIFY(lines[9].startsWith("9,2,"));
        QVERIFY(!lines[8].split(',')[3].isEmpty());
        QVERIFY(lines[3].split(',')[3].isEmpty());  // not evaluated at step 3
        const QJsonObject config = readJson(out + "/config.json");
        QCOMPARE(config["seed"].toInt(), 3);
        QCOMPARE(config["runs"].toArray()[0].toObject()["lr"].toDouble(), 0.1);
        const QJsonObject initial = readJson(out + "/weights_initial.json");
        const QJsonArray layers = initial["layers"].toArray();
        QCOMPARE(layers.size(), 2);
        QCOMPARE(layers[0].toObject()["weight"].toArray().size(), 6);  // one row per output neuron
        QCOMPARE(layers[0].toObject()["weight"].toArray()[0].toArray().size(), 2);
        QCOMPARE(layers[1].toObject()["bias"].toArray().size(), 2);
        QVERIFY(QFile::exists(out + "/weights_final.json"));
        const std::vector<ml::RunResult> summary = ml::parseSummaryCsv(readAll(out + "/summary.csv"), "summary.csv");
        QCOMPARE(summary.size(), std::size_t(1));
        QCOMPARE(summary[0].statusText(), std::string("done"));
    }

    void configJsonReproducesTheRun() {
        QTemporaryDir tmp;
        const QString first = tmp.filePath("a"), second = tmp.filePath("b");
        QCOMPARE(cli(kSmallXor + QStringList{"--optimizer", "momentum,adam", "--out", first}).status, 0);
        QCOMPARE(cli({"train", "--config", first + "/config.json", "--out", second, "--quiet"}).status, 0);
        for (const char* run : {"momentum", "adam"})
            QCOMPARE(lossColumns(second + "/" + run + "/metrics.csv"), lossColumns(first + "/" + run + "/metrics.csv"));
        QCOMPARE(readAll(second + "/adam/weights_final.json"), readAll(first + "/adam/weights_final.json"));
    }

    void largeSeedsReproduceExactly() {
        QTemporaryDir tmp;
        const QString first = tmp.filePath("a"), second = tmp.filePath("b"), other = tmp.filePath("c");
        const QStringList base{"train",   "--network", "2-4-2",   "--data", "toy:xor", "--loss",      "cross-entropy",
                               "--batch", "50",        "--steps", "5",      "--quiet", "--optimizer", "momentum"};
        QCOMPARE(cli(base + QStringList{"--seed", "18446744073709551615", "--out", first}).status, 0);
        QCOMPARE(readJson(first + "/config.json")["seed"].toString(), QString("18446744073709551615"));
        QCOMPARE(cli({"train", "--config", first + "/config.json", "--out", second, "--quiet"}).status, 0);
        QCOMPARE(readAll(second + "/weights_final.json"), readAll(first + "/weights_final.json"));
        // The neighbouring seed (equal as a double) trains differently.
        QCOMPARE(cli(base + QStringList{"--seed", "18446744073709551614", "--out", other}).status, 0);
        QVERIFY(readAll(other + "/weights_initial.json") != readAll(first + "/weights_initial.json"));
        const CliResult bad = cli(base + QStringList{"--seed", "-1", "--out", tmp.filePath("d")});
        QCOMPARE(bad.status, 2);
        QVERIFY2(bad.err.contains("--seed: '-1'"), qPrintable(bad.err));
    }

    void configJsonOfARelativeOutFolderReproducesTheRun() {
        // config.json's "init" must be relative to config.json, not to the working directory.
        QTemporaryDir tmp;
        const QString previous = QDir::currentPath();
        QVERIFY(QDir::setCurrent(tmp.path()));
        const int first = cli(kSmallXor + QStringList{"--optimizer", "sgd,adam", "--out", "rel"}).status;
        const int second = cli({"train", "--config", "rel/config.json", "--out", "again", "--quiet"}).status;
        QDir::setCurrent(previous);
        QCOMPARE(first, 0);
        QCOMPARE(readJson(tmp.filePath("rel/config.json"))["init"].toString(), QString("sgd/weights_initial.json"));
        QCOMPARE(second, 0);
        QCOMPARE(readAll(tmp.filePath("again/adam/weights_final.json")),
                 readAll(tmp.filePath("rel/adam/weights_final.json")));
    }

    void severalOptimizersWriteSubfoldersAndSummary() {
        QTemporaryDir tmp;
        const QString out = tmp.filePath("cmp");
        const CliResult r = cli(
            kSmallXor + QStringList{"--optimizer", "momentum,neuron-mean,adam:lr=0.002,momentum:momentum-mean=fan-out",
                                    "--lr", "0.05", "--out", out});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        const QList<QByteArray> summary = readAll(out + "/summary.csv").trimmed().split('\n');
        QCOMPARE(summary.front(),
                 QByteArray("optimizer,final_train_loss,final_test_loss,final_test_accuracy,steps,wall_ms,status"));
        QCOMPARE(summary.size(), 5);
        QVERIFY(summary[4].startsWith("momentum-2,"));
        QVERIFY(summary[1].endsWith(",30,") == false && summary[1].endsWith("done"));
        const QJsonArray runs = readJson(out + "/config.json")["runs"].toArray();
        QCOMPARE(runs[0].toObject()["lr"].toDouble(), 0.05);   // the flag
        QCOMPARE(runs[2].toObject()["lr"].toDouble(), 0.002);  // the per-run value beats the flag
        QCOMPARE(runs[3].toObject()["momentum-mean"].toString(), QString("fan-out"));
        QCOMPARE(runs[1].toObject()["momentum-mean"].toString(), QString());  // neuron-mean: fixed fan-in
        for (const char* run : {"momentum", "neuron-mean", "adam", "momentum-2"})
            QVERIFY2(QFile::exists(out + "/" + run + "/metrics.csv"), run);
    }

    void flagsOverrideTheConfigFile() {
        QTemporaryDir tmp;
        const QString config = tmp.filePath("exp.json");
        QFile file(config);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"network":"2-6-2","activation":"tanh","loss":"cross-entropy","data":"toy:xor","batch":50,
                       "epochs":2,"runs":[{"optimizer":"momentum","lr":0.3}]})");
        file.close();
        const QString out = tmp.filePath("run");
        QCOMPARE(cli({"train", "--config", config, "--lr", "0.02", "--steps", "5", "--out", out, "--quiet"}).status, 0);
        const QJsonObject resolved = readJson(out + "/config.json");
        QCOMPARE(resolved["runs"].toArray()[0].toObject()["lr"].toDouble(), 0.02);
        QCOMPARE(resolved["steps"].toInt(), 5);
        QCOMPARE(resolved["epochs"].toInt(), 0);
    }

    void initWeightsAreUsedAndChecked() {
        QTemporaryDir tmp;
        QCOMPARE(cli(kSmallXor + QStringList{"--optimizer", "sgd", "--out", tmp.filePath("a")}).status, 0);
        const QString weights = tmp.filePath("a/weights_final.json");
        QCOMPARE(
            cli(kSmallXor + QStringList{"--optimizer", "sgd", "--init", weights, "--out", tmp.filePath("b")}).status,
            0);
        QCOMPARE(readJson(tmp.filePath("b/weights_initial.json")), readJson(weights));
        const CliResult wrong =
            cli({"train", "--network", "2-5-2", "--loss", "cross-entropy", "--data", "toy:xor", "--steps", "3",
                 "--optimizer", "sgd", "--init", weights, "--out", tmp.filePath("c")});
        QCOMPARE(wrong.status, 2);
        QVERIFY2(wrong.err.contains(weights) && wrong.err.contains("layers[0].weight"), qPrintable(wrong.err));
    }

    void divergedRunExitsWithThreeAndKeepsFiles() {
        QTemporaryDir tmp;
        const QString out = tmp.filePath("wild");
        const CliResult r =
            cli({"train", "--network", "1-4-1", "--activation", "identity", "--loss", "mse", "--data", "toy:sine",
                 "--steps", "60", "--optimizer", "sgd:lr=50,momentum:lr=0.01", "--out", out, "--quiet"});
        QCOMPARE(r.status, 3);
        QVERIFY2(r.err.contains("diverged at step"), qPrintable(r.err));
        QVERIFY(readAll(out + "/summary.csv").contains("diverged at step"));
        QCOMPARE(readAll(out + "/momentum/metrics.csv").trimmed().split('\n').size(), 61);
        QVERIFY(QFile::exists(out + "/sgd/weights_final.json"));
        const std::string diverged = ml::readRunFolder(out).runs[0].result.statusText();
        QVERIFY2(diverged.starts_with("diverged at step "), diverged.c_str());
        // The run's own folder, opened alone, says the same; and so does a folder without summary.csv
        // (older versions wrote none for a single run): its last batch loss is not finite.
        QCOMPARE(ml::readRunFolder(out + "/sgd").runs[0].result.statusText(), diverged);
        QVERIFY(QFile::remove(out + "/sgd/summary.csv"));
        QCOMPARE(ml::readRunFolder(out + "/sgd").runs[0].result.statusText(), diverged);
    }

    void badInputIsRefusedWithAMessage_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        const QStringList base = {"train",   "--data", "toy:sine", "--network",        "1-2-2-1",
                                  "--steps", "3",      "--out",    "/tmp/ml-cli-never"};
        QTest::newRow("negative lr") << base + QStringList{"--optimizer", "sgd", "--lr", "-1"} << "--lr";
        QTest::newRow("momentum 1") << base + QStringList{"--optimizer", "momentum", "--momentum", "1"} << "--momentum";
        QTest::newRow("nesterov dampening")
            << base + QStringList{"--optimizer", "nesterov", "--dampening", "0.5"} << "dampening";
        QTest::newRow("unknown optimizer") << base + QStringList{"--optimizer", "lion"} << "unknown 'lion'";
        QTest::newRow("unknown inline key")
            << base + QStringList{"--optimizer", "sgd:beta1=0.5"} << "sgd has no hyper-parameter 'beta1'";
        QTest::newRow("bad network") << QStringList{"train",       "--network", "1-x-1", "--steps", "3",
                                                    "--optimizer", "sgd",       "--out", "/tmp/x"}
                                     << "--network";
        QTest::newRow("steps and epochs missing")
            << QStringList{"train", "--optimizer", "sgd", "--out", "/tmp/x"} << "--steps";
        QTest::newRow("missing out") << QStringList{"train", "--optimizer", "sgd", "--steps", "3"} << "--out";
        QTest::newRow("missing config") << QStringList{"train", "--config", "/nonexistent/exp.json", "--out", "/tmp/x"}
                                        << "/nonexistent/exp.json";
        QTest::newRow("unknown data") << QStringList{"train",       "--data",  "toy:moons",
                                                     "--network",   "1-2-2-1", "--steps",
                                                     "3",           "--out",   "/tmp/ml-cli-never",
                                                     "--optimizer", "sgd"}
                                      << "toy:moons";
        QTest::newRow("unknown flag") << base + QStringList{"--optimizer", "sgd", "--learning-rate", "1"}
                                      << "learning-rate";
        QTest::newRow("bad scope") << base + QStringList{"--optimizer", "momentum", "--momentum-mean", "rows"}
                                   << "--momentum-mean";
        QTest::newRow("snapshots every 0") << base + QStringList{"--optimizer", "sgd", "--snapshots-every", "0"}
                                           << "--snapshots-every 0: expected a whole number";
        QTest::newRow("snapshots every x")
            << base + QStringList{"--optimizer", "sgd", "--snapshots-every", "x"} << "--snapshots-every x";
        QTest::newRow("budget without snapshots") << base + QStringList{"--optimizer", "sgd", "--snapshots-max-mb", "5"}
                                                  << "--snapshots-max-mb: only read with --snapshots-every";
    }
    void badInputIsRefusedWithAMessage() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        const CliResult r = cli(arguments);
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains(expected), qPrintable(r.err));
        QVERIFY(!QFile::exists("/tmp/ml-cli-never/metrics.csv"));
    }

    // --snapshots-every N: each run's snapshots.bin holds exactly the snapshots the trainer hands
    // its observers at every N-th step and at the last step, all quantities, bit for bit.
    void snapshotsAreWrittenAndReadBackIdentical() {
        QTemporaryDir tmp;
        const QString out = tmp.filePath("snap");
        const CliResult r =
            cli(kSmallXor + QStringList{"--optimizer", "momentum,adam,sgd", "--snapshots-every", "7", "--out", out});
        QVERIFY2(r.status == 0, qPrintable(r.err));

        // The same experiment again, in-process, collecting what the trainer hands out.
        struct Collector : ml::TrainingObserver {
            bool wantsSnapshot(int, long step) override { return step % 7 == 0 || step == 30; }
            void snapshotTaken(const ml::SharedSnapshot& snapshot) override {
                taken[snapshot->run].push_back(*snapshot);
            }
            std::map<int, std::vector<ml::Snapshot>> taken;
        } collector;
        const ml::Experiment experiment = ml::loadExperiment(out + "/config.json");
        ml::LockstepTrainer trainer(experiment, ml::loadDataSplit(experiment.data, experiment.seed),
                                    ml::loadInitialWeights(experiment));
        trainer.addObserver(&collector);
        ml::RunControl control;
        trainer.run(control);

        const char* const runs[] = {"momentum", "adam", "sgd"};
        for (int run = 0; run < 3; ++run) {
            const std::vector<ml::Snapshot> read = ml::readSnapshotFile(out + "/" + runs[run] + "/snapshots.bin", run);
            const std::vector<ml::Snapshot>& expected = collector.taken[run];
            QCOMPARE(int(read.size()), 5);  // steps 7, 14, 21, 28 and the last, 30
            QCOMPARE(int(expected.size()), 5);
            for (std::size_t i = 0; i < read.size(); ++i) {
                QCOMPARE(read[i].step, expected[i].step);
                QCOMPARE(read[i].epoch, expected[i].epoch);
                QCOMPARE(read[i].label, std::string(runs[run]));
                QCOMPARE(read[i].batchLoss, expected[i].batchLoss);
                QVERIFY(read[i].scope == expected[i].scope && read[i].bias == expected[i].bias);
                QCOMPARE(read[i].layers.size(), expected[i].layers.size());
                for (std::size_t l = 0; l < read[i].layers.size(); ++l) {
                    const ml::LayerSnapshot& a = read[i].layers[l];
                    const ml::LayerSnapshot& b = expected[i].layers[l];
                    QVERIFY(a.parameters == b.parameters);
                    QVERIFY(a.gradient == b.gradient);
                    QVERIFY(a.firstMoment == b.firstMoment);
                    QVERIFY(a.secondMoment == b.secondMoment);
                    QVERIFY(a.update == b.update);
                    QVERIFY(a.neuronMeans == b.neuronMeans);
                    QVERIFY(a.ruleState == b.ruleState);
                    QCOMPARE(a.columnsPerInput, b.columnsPerInput);
                }
            }
            QCOMPARE(read.back().step, 30L);
            // The last snapshot is the final weights.
            QVERIFY(read.back().layers[0].parameters ==
                    ml::loadWeightsFile(out + "/" + runs[run] + "/weights_final.json", experiment.network)[0]);
        }
        // What each optimizer keeps: adam both moments, momentum the first, sgd neither.
        const auto adam = ml::readSnapshotFile(out + "/adam/snapshots.bin", 1);
        QVERIFY(adam[0].layers[0].secondMoment.size() > 0 && adam[0].layers[0].firstMoment.size() > 0);
        const auto sgd = ml::readSnapshotFile(out + "/sgd/snapshots.bin", 2);
        QVERIFY(sgd[0].layers[0].firstMoment.size() == 0 && sgd[0].layers[0].gradient.size() > 0);
        // The reader of the folder finds the files.
        const ml::RunFolder folder = ml::readRunFolder(out);
        QCOMPARE(folder.runs[1].snapshotsFile, out + "/adam/snapshots.bin");

        // A convolutional layer keeps its weight columns per input (k*k) through the file.
        ml::SnapshotFileHeader header;
        header.label = "conv";
        header.layers = {{2, 2 * 9 + 1}, {3, 5}};
        header.columnsPerInput = {9, 1};
        const QString convPath = tmp.filePath("conv.bin");
        ml::SnapshotFileWriter writer(convPath, header);
        ml::Snapshot snapshot;
        snapshot.step = 1;
        snapshot.epoch = 1;
        ml::LayerSnapshot conv;
        conv.parameters = ml::Matrix::Ones(2, 19);
        conv.columnsPerInput = 9;
        ml::LayerSnapshot dense;
        dense.parameters = ml::Matrix::Ones(3, 5);
        snapshot.layers = {conv, dense};
        writer.append(snapshot);
        writer.close();
        const std::vector<ml::Snapshot> back = ml::readSnapshotFile(convPath, 0);
        QCOMPARE(int(back.size()), 1);
        QCOMPARE(back[0].layers[0].columnsPerInput, Eigen::Index(9));
        QCOMPARE(back[0].layers[1].columnsPerInput, Eigen::Index(1));
        QVERIFY(back[0].layers[0].parameters == conv.parameters);
    }

    // A killed run keeps every complete record; a damaged record is named by file, record and byte.
    void snapshotFilesSurviveCutsAndNameDamage() {
        QTemporaryDir tmp;
        const QString out = tmp.filePath("snap");
        QCOMPARE(
            cli(kSmallXor + QStringList{"--optimizer", "momentum", "--snapshots-every", "10", "--out", out}).status, 0);
        const QString path = out + "/snapshots.bin";
        const QByteArray whole = readAll(path);
        QCOMPARE(int(ml::readSnapshotFile(path, 0).size()), 3);
        auto writeBytes = [&path](const QByteArray& bytes) {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
            file.write(bytes);
        };
        writeBytes(whole.left(whole.size() - 5));  // cut inside the last record's floats
        ml::SnapshotFileReader cut(path, 0);
        QVERIFY(cut.next() && cut.next());
        QVERIFY(!cut.next());
        QVERIFY(cut.truncated());
        QByteArray damaged = whole;
        const qsizetype step = damaged.indexOf("\"step\":20");
        const qsizetype second = damaged.lastIndexOf('{', step);  // where the record's line begins
        QVERIFY(step > 0 && second > 0);
        damaged[step + 7] = 'x';  // "step":x0
        writeBytes(damaged);
        const QString message = ml::test::inputErrorOf([&] { ml::readSnapshotFile(path, 0); });
        QVERIFY2(message.contains(path) && message.contains("record 2") &&
                     message.contains("byte " + QString::number(second)),
                 qPrintable(message));
        writeBytes("PK\x03\x04 not snapshots\n");
        QVERIFY(ml::test::inputErrorOf([&] { ml::readSnapshotFile(path, 0); }).contains("not a snapshot file"));
    }

    // snapshots.bin keeps each layer's rule state (format 2): a folder opened from disk explains nero,
    // amsgrad and centered rmsprop. A version-1 file (no rule state) still opens; the explainer then
    // names the buffer it lacks.
    void snapshotRuleStateExplainsFromTheFolder() {
        QTemporaryDir tmp;
        const QString out = tmp.filePath("rules");
        const CliResult r = cli(kSmallXor + QStringList{"--optimizer", "nero,adam:amsgrad=true,rmsprop:centered=true",
                                                        "--snapshots-every", "10", "--out", out});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        const ml::RunFolder folder = ml::readRunFolder(out);
        QCOMPARE(int(folder.runs.size()), 3);
        const char* const needs[] = {"tensor_scales", "max_second_moment", "centred_mean"};
        for (int run = 0; run < 3; ++run) {
            const ml::RunRecord& record = folder.runs[std::size_t(run)];
            QVERIFY(readAll(record.snapshotsFile).startsWith("momentum-lab-snapshots 2\n"));
            const std::vector<ml::Snapshot> read = ml::readSnapshotFile(record.snapshotsFile, run);
            QCOMPARE(int(read.size()), 3);
            for (const ml::Snapshot& snapshot : read)
                for (const ml::LayerSnapshot& layer : snapshot.layers) QVERIFY(layer.ruleStateBuffer(needs[run]));
            for (int layer = 0; layer < 2; ++layer) {
                const ml::UpdateExplanation e = ml::explainUpdate(record.spec, read[1], nullptr, layer, 1, 1);
                QVERIFY2(e.explained, e.reason.c_str());
                QVERIFY2(std::abs(e.recombined - e.update) <= 1e-4 * std::abs(e.update) + 1e-9,
                         qPrintable(QStringLiteral("%1 layer %2: %3 vs %4")
                                        .arg(needs[run])
                                        .arg(layer)
                                        .arg(e.recombined)
                                        .arg(e.update)));
            }

            // The same file as version 1 wrote it: no "rule_state", its buffers' bytes left out.
            ml::SnapshotFileReader reader(record.snapshotsFile, run);
            const QString oldPath = tmp.filePath(QStringLiteral("old-%1.bin").arg(run));
            {
                ml::SnapshotFileWriter writer(oldPath, reader.header());
                for (ml::Snapshot snapshot : read) {
                    for (ml::LayerSnapshot& layer : snapshot.layers) layer.ruleState.clear();
                    writer.append(snapshot);
                }
                writer.close();
            }
            QByteArray bytes = readAll(oldPath);
            QVERIFY(bytes.startsWith("momentum-lab-snapshots 2\n"));
            bytes[qsizetype(std::strlen("momentum-lab-snapshots "))] = '1';
            QCOMPARE(int(bytes.count(",\"rule_state\":[]")), 3);
            bytes.replace(",\"rule_state\":[]", "");
            QFile file(oldPath);
            QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
            file.write(bytes);
            file.close();
            const std::vector<ml::Snapshot> old = ml::readSnapshotFile(oldPath, run);
            QCOMPARE(int(old.size()), 3);
            QVERIFY(old[1].layers[0].parameters == read[1].layers[0].parameters);
            QVERIFY(old[1].layers[0].ruleState.empty());
            const ml::UpdateExplanation e = ml::explainUpdate(record.spec, old[1], nullptr, 0, 1, 1);
            QVERIFY(!e.explained);
            QVERIFY2(e.reason.find(needs[run]) != std::string::npos, e.reason.c_str());
            // A version-2 record must carry its rule state: without it, the record is named.
            QByteArray missing = readAll(record.snapshotsFile);
            const qsizetype at = missing.indexOf("\"rule_state\"");
            QVERIFY(at > 0);
            missing.replace(at, 12, "\"rule_stat_\"");
            QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
            file.write(missing);
            file.close();
            const QString message = ml::test::inputErrorOf([&] { ml::readSnapshotFile(oldPath, run); });
            QVERIFY2(message.contains(oldPath) && message.contains("record 1") && message.contains("rule_state"),
                     qPrintable(message));
        }
    }

    // The files are bounded: an interval that could exceed the budget is refused before training,
    // naming the smallest interval that fits.
    void snapshotBudgetIsEnforcedBeforeTraining() {
        QTemporaryDir tmp;
        const QString out = tmp.filePath("big");
        // 2-6-2: (6x3 + 2x7) floats x 5 matrices + means, about 0.9 kB a snapshot; 30 steps x 2 runs.
        QStringList longXor = kSmallXor;  // each option once: 2000 steps instead of 30
        longXor[longXor.indexOf("--steps") + 1] = "2000";
        const CliResult r = cli(longXor + QStringList{"--optimizer", "momentum,adam", "--snapshots-every", "1",
                                                      "--snapshots-max-mb", "1", "--out", out});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("--snapshots-every 1: 2000 snapshots") && r.err.contains("--snapshots-max-mb") &&
                     r.err.contains("expected --snapshots-every 7 or more"),
                 qPrintable(r.err));
        QVERIFY(!QFile::exists(out));
        const CliResult fits = cli(longXor + QStringList{"--optimizer", "momentum,adam", "--snapshots-every", "7",
                                                         "--snapshots-max-mb", "1", "--out", out});
        QVERIFY2(fits.status == 0, qPrintable(fits.err));
        const qint64 bytes =
            QFileInfo(out + "/momentum/snapshots.bin").size() + QFileInfo(out + "/adam/snapshots.bin").size();
        // The bound counts every buffer a rule may keep (7 layer-sized): momentum and adam fill under half.
        QVERIFY2(bytes <= 1000000 && bytes > 400000, qPrintable(QString::number(bytes)));
    }

    void divergedRunFolderCanBeReadBack() {
        // lr 1e38 on an identity network overflows the weights in the first step. Whether the
        // trainer keeps the last finite weights or writes "inf"/"nan", the folder must open with
        // every run readable (it once wrote null, which made the whole folder unreadable).
        QTemporaryDir tmp;
        const QString out = tmp.filePath("f");
        QCOMPARE(cli({"train", "--network", "1-4-1", "--activation", "identity", "--data", "toy:sine", "--optimizer",
                      "sgd:lr=1e38,momentum", "--steps", "50", "--out", out, "--quiet"})
                     .status,
                 3);
        const ml::RunFolder folder = ml::readRunFolder(out);
        const std::vector<std::string> problems = folder.problems();
        QVERIFY2(problems.empty(), problems.empty() ? "" : problems.front().c_str());
        QCOMPARE(folder.runs.size(), std::size_t(2));
        QVERIFY(folder.runs[0].result.status == ml::RunStatus::Diverged);
        QVERIFY(folder.runs[0].result.divergedAtStep > 0);
        QCOMPARE(folder.runs[0].finalWeights.size(), std::size_t(2));
        QVERIFY(folder.runs[1].result.status == ml::RunStatus::Done);
    }

    void helpAndDispatchComeFromTheCommandTable() {
        const CliResult unknown = cli({"export"});  // the core table has no export
        QCOMPARE(unknown.status, 2);
        QVERIFY2(unknown.err.contains("unknown command 'export'"), qPrintable(unknown.err));
        for (const char* name : {"train ", "optimizers ", "import-mnist "})
            QVERIFY2(unknown.err.contains(QString("\n  ") + name), qPrintable(unknown.err));

        ml::CommandTable table = ml::coreCommands();
        QStringList seen;
        table.add({"echo",
                   "repeat the arguments",
                   [&](const QStringList& arguments) {
                       seen = arguments;
                       return 0;
                   },
                   {}});
        table.add(
            {"refuse", "always bad input", [](const QStringList&) -> int { throw ml::InputError("--x: no"); }, {}});
        table.add(
            {"fail", "always fails", [](const QStringList&) -> int { throw std::runtime_error("disk full"); }, {}});
        QVERIFY(QString::fromStdString(table.usage()).contains("\n  echo          repeat the arguments\n"));
        QCOMPARE(run(table, {"echo", "a"}).status, 0);
        QCOMPARE(seen, (QStringList{"momentum-lab-cli", "echo", "a"}));
        const CliResult refused = run(table, {"refuse"});
        QCOMPARE(refused.status, 2);
        QCOMPARE(refused.err, QString("momentum-lab-cli: --x: no\n"));
        QCOMPARE(run(table, {"fail"}).status, 1);
    }

    void executableAddsExportWhichNamesAnUnreadableRun() {
        QTemporaryDir tmp;
        const QString folder = tmp.filePath("f");
        QCOMPARE(cli(kSmallXor + QStringList{"--optimizer", "momentum,adam", "--out", folder}).status, 0);
        QFile weights(folder + "/adam/weights_final.json");  // what a diverged run once wrote
        QVERIFY(weights.open(QIODevice::WriteOnly));
        weights.write(R"({"layers":[{"weight":[[null,1]],"bias":[0]}]})");
        weights.close();

        QProcess help;
        help.start(MOMENTUM_LAB_CLI, {"--help"});
        QVERIFY(help.waitForFinished(30000));
        QVERIFY(help.readAllStandardOutput().contains("\n  export        render a run folder's plots"));
        QProcess trainHelp;  // the exit statuses are documented where users look
        trainHelp.start(MOMENTUM_LAB_CLI, {"train", "--help"});
        QVERIFY(trainHelp.waitForFinished(30000));
        const QByteArray trainText = trainHelp.readAllStandardOutput();
        for (const char* status :
             {"0 done", "1 failure", "2 bad input", "3 a run diverged", "129 SIGHUP", "130 SIGINT", "143 SIGTERM"})
            QVERIFY2(trainText.contains(status), status);

        QProcess exporter;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.remove("QT_QPA_PLATFORM");  // export registers its own offscreen QApplication
        exporter.setProcessEnvironment(environment);
        exporter.start(MOMENTUM_LAB_CLI, {"export", folder, "--out", tmp.filePath("report")});
        QVERIFY(exporter.waitForFinished(60000));
        const QString err = exporter.readAllStandardError();
        QCOMPARE(exporter.exitCode(), 0);
        QVERIFY2(err.contains("warning: run adam: " + folder +
                              "/adam/weights_final.json: has 1 layers; network 2-6-2 has 2"),
                 qPrintable(err));
        QVERIFY(!err.contains("run momentum"));
        QVERIFY(QFile::exists(tmp.filePath("report/convergence.png")));
    }

    // Determinism: the same config and seed give byte-identical run folders, apart from the
    // documented wall-time fields (wall_ms in metrics.csv and summary.csv). Several runs, mini-batches
    // (shuffling), evaluations and a momentum-mean variant, so every random stream is involved.
    void sameConfigAndSeedGiveIdenticalRunFolders() {
        QTemporaryDir tmp;
        const QStringList experiment = {"train",
                                        "--network",
                                        "4-6-3",
                                        "--activation",
                                        "relu",
                                        "--loss",
                                        "cross-entropy",
                                        "--data",
                                        "iris",
                                        "--optimizer",
                                        "momentum,momentum:momentum-mean=fan-in:label=fan-in,adam",
                                        "--batch",
                                        "16",
                                        "--epochs",
                                        "3",
                                        "--eval-every",
                                        "4",
                                        "--seed",
                                        "20261202",
                                        "--quiet",
                                        "--out"};
        for (const char* folder : {"a", "b"}) {
            QProcess process;
            process.start(MOMENTUM_LAB_CLI, experiment + QStringList{tmp.filePath(folder)});
            QVERIFY(process.waitForFinished(60000));
            QCOMPARE(process.exitCode(), 0);
        }
        QCOMPARE(ml::test::folderContents(tmp.filePath("a")).size(),
                 std::size_t{2 + 3 * 5});  // config, summary, 3 runs (each with its own summary.csv)
        const QString difference = ml::test::folderDifference(tmp.filePath("a"), tmp.filePath("b"));
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
    }

    void signalStopsTheRunAndCompletesTheFiles_data() {
        QTest::addColumn<int>("signal");
        QTest::newRow("SIGINT") << SIGINT;
        QTest::newRow("SIGTERM") << SIGTERM;
        QTest::newRow("SIGHUP") << SIGHUP;
    }
    void signalStopsTheRunAndCompletesTheFiles() {
        QFETCH(int, signal);
        QTemporaryDir tmp;
        const QString out = tmp.filePath("run");
        QProcess process;
        process.start(MOMENTUM_LAB_CLI,
                      {"train", "--network", "2-6-2", "--loss", "cross-entropy", "--data", "toy:xor", "--steps",
                       "1000000000", "--optimizer", "momentum,adam", "--out", out, "--quiet"});
        QVERIFY(process.waitForStarted());
        // Signal once both runs have logged steps (a fixed wait was too short on a loaded machine).
        const auto loggedRows = [&](const char* label) {
            QFile metrics(out + "/" + label + "/metrics.csv");
            return metrics.open(QIODevice::ReadOnly) ? metrics.readAll().count('\n') - 1 : qsizetype{0};
        };
        QTRY_VERIFY_WITH_TIMEOUT(loggedRows("momentum") > 1 && loggedRows("adam") > 1, 30000);
        QCOMPARE(::kill(static_cast<pid_t>(process.processId()), signal), 0);
        QVERIFY(process.waitForFinished(30000));
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 128 + signal);
        const char* name = signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "SIGHUP";
        QVERIFY(process.readAllStandardError().contains(QByteArray("stopped by ") + name));
        const ml::RunFolder folder = ml::readRunFolder(out);
        QVERIFY(folder.problems().empty());
        for (const ml::RunRecord& run : folder.runs) {
            QVERIFY(run.result.status == ml::RunStatus::Stopped);  // from summary.csv
            QVERIFY(run.metrics.rowCount() > 1);
            QCOMPARE(run.metrics.rowCount(), run.result.steps);
            QCOMPARE(run.finalWeights.size(), std::size_t(2));
            // Each run's folder is a single-run folder of its own: it too says "stopped" (not "done").
            const ml::RunFolder single = ml::readRunFolder(run.directory);
            QCOMPARE(single.runs.size(), std::size_t(1));
            QCOMPARE(single.runs[0].result.statusText(), std::string("stopped"));
        }
    }

    // A study's name and folder reach generated scripts and command lines only as quoted words
    // or escaped comments: the scripts parse (bash -n), run the trials in the hostile folder, and
    // run nothing else.
    void emittedScriptsQuoteNamesAndPaths() {
        QTemporaryDir tmp;
        QByteArray study = kTinyStudy;
        study.replace("\"name\": \"tiny\"", "\"name\": \"tiny\\ntouch PWNED4\\n$(touch PWNED5) `touch PWNED6` 'x\"");
        const QString studyFile = writeText(tmp.filePath("study.json"), study);
        const QString out = tmp.filePath(kHostileFolder);
        QProcess emit_;
        emit_.start(MOMENTUM_LAB_CLI, {"study", studyFile, "--out", out, "--emit", "slurm"});
        QVERIFY(emit_.waitForFinished(60000));
        QVERIFY2(emit_.exitCode() == 0, emit_.readAllStandardError().constData());
        const QString slurm = out + "/slurm";
        for (const char* script : {"tune.sbatch", "final.sbatch", "aggregate.sbatch", "submit.sh"}) {
            const ProcessResult syntax = bash({"-n", script}, slurm);
            QVERIFY2(syntax.status == 0, syntax.err.constData());
        }
        const QByteArray tune = readAll(slurm + "/tune.sbatch");
        QVERIFY2(tune.contains("#SBATCH --output=logs/tune-%A_%a.out\n"), tune.constData());  // no path in a directive
        QVERIFY2(tune.contains("# Study tiny\\ntouch PWNED4\\n"), tune.constData());          // one comment line
        // An array task and the aggregation, run as Slurm would (from the slurm folder).
        const ProcessResult task = bash({"tune.sbatch"}, slurm, {{"SLURM_ARRAY_TASK_ID", "1"}});
        QVERIFY2(task.status == 0, task.err.constData());
        QVERIFY(QFile::exists(out + "/tune/toy_circle/momentum/trial-1/trial.json"));
        const ProcessResult aggregated = bash({"aggregate.sbatch"}, slurm);
        QVERIFY2(aggregated.status == 0, aggregated.err.constData());
        QVERIFY(QFile::exists(out + "/results/trials.csv"));
        const QStringList payloads = payloadFiles(tmp.path());
        QVERIFY2(payloads.isEmpty(), qPrintable(payloads.join(", ")));
    }

    // The pipeline `--list0 | xargs -0 -P N -I{} sh -c {}` runs every trial of a folder whose path
    // holds spaces and quotes; a line break in --out is refused before anything is written.
    void listedCommandsRunInAFolderWithSpaces() {
        QTemporaryDir tmp;
        const QString studyFile = writeText(tmp.filePath("study.json"), kTinyStudy);
        const QString out = tmp.filePath(kHostileFolder);
        const QString command = "\"$0\" study \"$1\" --out \"$2\" --list0 --phase 1 | xargs -0 -P 2 -I{} sh -c {}";
        const ProcessResult pipeline = bash({"-c", command, MOMENTUM_LAB_CLI, studyFile, out}, tmp.path());
        QVERIFY2(pipeline.status == 0, pipeline.err.constData());
        int finished = 0;
        for (const char* optimizer : {"momentum", "sgd"})
            for (int trial = 0; trial < 3; ++trial)
                finished += QFile::exists(out + "/tune/toy_circle/" + optimizer + "/trial-" + QString::number(trial) +
                                          "/trial.json");
        QCOMPARE(finished, 6);
        QVERIFY2(payloadFiles(tmp.path()).isEmpty(), qPrintable(payloadFiles(tmp.path()).join(", ")));

        for (const char* mode : {"--list", "--list0", "--emit"}) {
            const QString broken = tmp.filePath("st\ntouch " + tmp.filePath("PWNED") + "\n");
            QStringList arguments{"study", studyFile, "--out", broken, mode};
            if (QByteArray(mode) == "--emit") arguments << "slurm";
            const CliResult refused = cli(arguments);
            QCOMPARE(refused.status, 2);
            QVERIFY2(refused.err.contains("--out " + broken + ": holds a line break"), qPrintable(refused.err));
            QVERIFY(!QFileInfo::exists(broken));
        }
    }

    // study's modes exclude one another; an option no chosen mode reads is refused, not ignored.
    void studyRefusesOptionsItsModeDoesNotRead_data() {
        QTest::addColumn<QStringList>("options");
        QTest::addColumn<QString>("message");
        QTest::newRow("--phase alone") << QStringList{"--phase", "1"} << "--phase: only read with --list or --list0";
        QTest::newRow("--throttle alone")
            << QStringList{"--throttle", "4"} << "--throttle: only read with --emit slurm";
        QTest::newRow("--list --trial") << QStringList{"--list", "--trial", "3"} << "--list and --trial: give one of";
        QTest::newRow("--emit --list") << QStringList{"--emit", "slurm", "--list"} << "--list and --emit: give one of";
        QTest::newRow("--jobs --trial") << QStringList{"--jobs", "2", "--trial", "0"}
                                        << "--jobs: only read when running every trial";
    }
    void studyRefusesOptionsItsModeDoesNotRead() {
        QFETCH(QStringList, options);
        QFETCH(QString, message);
        QTemporaryDir tmp;
        const QString studyFile = writeText(tmp.filePath("study.json"), kTinyStudy);
        const CliResult r = cli(QStringList{"study", studyFile, "--out", tmp.filePath("out")} + options);
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY(!QFileInfo::exists(tmp.filePath("out")));
    }

    void malformedConfigNamesTheFile() {
        QTemporaryDir tmp;
        const QString config = tmp.filePath("broken.json");
        QFile file(config);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{\"network\": \"1-2-1\", ");
        file.close();
        const CliResult r = cli({"train", "--config", config, "--out", tmp.filePath("o")});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains(config) && r.err.contains("invalid JSON"), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
