// Data safety: nothing lost, nothing written where it does not belong. A full disk fails
// the command and keeps the previous files; labels cannot name paths; a killed run keeps its
// metrics; numbers out of range are refused before any conversion.
#include "TestSupport.h"
#include "io/FileError.h"
#include "io/Files.h"
#include "data/DataFiles.h"
#include "data/DataRegistry.h"
#include "io/MemoryBudget.h"
#include "optim/OptimizerCatalog.h"
#include "experiment/ExperimentJson.h"
#include "train/LockstepTrainer.h"
#include "runfolder/RunFolderWriter.h"
#include "runfolder/RunCsv.h"
#include "runfolder/RunFolderLayout.h"
#include "runfolder/RunFolderReader.h"
#include "runfolder/SnapshotFile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <map>
#include <utility>
#include <sys/stat.h>
#include <sys/resource.h>

using namespace ml;

namespace {

QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// While alive, every write beyond `bytes` of a file fails with EFBIG ("File too large"): a full
// disk without privileges. SIGXFSZ is ignored so that the write fails instead of the process.
class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes) {
        getrlimit(RLIMIT_FSIZE, &previous_);
        previousHandler_ = std::signal(SIGXFSZ, SIG_IGN);
        rlimit limit = previous_;
        limit.rlim_cur = bytes;
        setrlimit(RLIMIT_FSIZE, &limit);
    }
    ~FileSizeLimit() {
        setrlimit(RLIMIT_FSIZE, &previous_);
        std::signal(SIGXFSZ, previousHandler_);
    }

private:
    rlimit previous_{};
    void (*previousHandler_)(int) = nullptr;
};

struct CliResult {
    int status;
    QString err;
};

CliResult runCli(const QStringList& arguments) {
    QProcess process;
    process.start(MOMENTUM_LAB_CLI, arguments);
    process.waitForFinished(120000);
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1, process.readAllStandardError()};
}

void writeFile(const QString& path, const QByteArray& contents) {
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(contents);
}

struct ShellResult {
    int status;
    QString out;
    QString err;
};

// Runs a POSIX shell script in its own user and mount namespace (`unshare -rm`), where it may
// mount a small tmpfs; "$1" is the CLI. The script exits 77 when the namespace cannot mount.
ShellResult runInMountNamespace(const QString& script, const QStringList& arguments) {
    QProcess process;
    process.start("unshare", QStringList{"-rm", "sh", "-c", script, "sh", MOMENTUM_LAB_CLI} + arguments);
    if (!process.waitForStarted(10000)) return {77, {}, "unshare is not available"};
    process.waitForFinished(120000);
    const QString err = process.readAllStandardError();
    if (err.startsWith("unshare:")) return {77, {}, err};  // no user namespaces here (e.g. a container)
    return {process.exitCode(), process.readAllStandardOutput(), err};
}

const QStringList kSineRun = {"train",       "--network", "1-2-2-1", "--data", "toy:sine",
                              "--optimizer", "momentum",  "--steps", "10",     "--quiet"};

// `arguments` with each FLAG VALUE pair of `options` replacing that flag's value, or added (the CLI
// takes each option once).
QStringList with(QStringList arguments, const QStringList& options) {
    for (qsizetype i = 0; i + 1 < options.size(); i += 2) {
        const qsizetype at = arguments.indexOf(options[i]);
        if (at >= 0) arguments[at + 1] = options[i + 1];
        else arguments << options[i] << options[i + 1];
    }
    return arguments;
}

}  // namespace

class TestSafety : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void failedWriteKeepsThePreviousFileOrNone() {
        QTemporaryDir tmp;
        const QString path = tmp.filePath("config.json");
        writeFileAtomically(path, "previous contents");
        const QString fresh = tmp.filePath("fresh.json");
        {
            const FileSizeLimit limit(4);  // small files fit Qt's write buffer: only the flush fails
            for (const QString& target : {path, fresh}) {
                try {
                    writeFileAtomically(target, "new contents, longer than four bytes");
                    QFAIL(qPrintable(target + ": no FileError"));
                } catch (const FileError& error) {
                    QCOMPARE(error.path(), target);
                    QVERIFY2(QString(error.what()).contains(target + ": cannot write (File too large)"), error.what());
                }
            }
        }
        QCOMPARE(readAll(path), QByteArray("previous contents"));
        QCOMPARE(QDir(tmp.path()).entryList(QDir::Files), QStringList{"config.json"});  // no temporary, no fresh.json
    }

    void fullDiskFailsTheCommandAndKeepsThePreviousFolder() {
        // In a 256 KiB tmpfs: a first run succeeds; with the disk then full, training into the same
        // folder and exporting it must fail, naming the path and the reason, and leave the files.
        QTemporaryDir tmp;
        const QString script = R"(
            mount -t tmpfs -o size=256k tmpfs "$2" 2>/dev/null || exit 77
            cli=$1; disk=$2; keep=$3; shift 3
            "$cli" "$@" --seed 1 --out "$disk/run" || exit 10
            cp -r "$disk/run" "$keep/before"
            cat /dev/zero > "$disk/filler" 2>/dev/null
            "$cli" "$@" --seed 2 --out "$disk/run" 2>"$keep/train.err"; echo "train $?"
            "$cli" "$@" --seed 2 --out "$disk/new" 2>>"$keep/train.err"; echo "new $?"
            "$cli" export "$disk/run" --out "$disk/report" 2>"$keep/export.err"; echo "export $?"
            cp -r "$disk/run" "$keep/after"
            find "$disk" -type f -size 0 | sed 's/^/empty /'
            exit 0)";
        QVERIFY(QDir().mkpath(tmp.filePath("disk")) && QDir().mkpath(tmp.filePath("keep")));
        const ShellResult r =
            runInMountNamespace(script, QStringList{tmp.filePath("disk"), tmp.filePath("keep")} + kSineRun);
        if (r.status == 77) QSKIP(qPrintable("cannot mount a tmpfs here (unshare -rm): " + r.err));
        QVERIFY2(r.status == 0, qPrintable(r.out + r.err));
        QCOMPARE(r.out, QString("train 1\nnew 1\nexport 1\n"));  // and no "empty FILE" line
        const QString trainErr = readAll(tmp.filePath("keep/train.err"));
        QVERIFY2(trainErr.contains(tmp.filePath("disk/run/config.json") + ": cannot write (No space left on device)"),
                 qPrintable(trainErr));
        QVERIFY2(trainErr.contains(tmp.filePath("disk/new/config.json") + ": cannot write (No space left on device)"),
                 qPrintable(trainErr));
        const QString exportErr = readAll(tmp.filePath("keep/export.err"));
        QVERIFY2(exportErr.contains(tmp.filePath("disk/report/")) && exportErr.contains("No space left on device"),
                 qPrintable(exportErr));
        for (const char* file : {"config.json", "metrics.csv", "weights_initial.json", "weights_final.json"}) {
            const QByteArray before = readAll(tmp.filePath("keep/before/") + file);
            QVERIFY2(!before.isEmpty(), file);
            QVERIFY2(readAll(tmp.filePath("keep/after/") + file) == before, file);
        }
    }

    void labelsBecomeSafeNamesByOneRule() {
        const std::pair<const char*, const char*> expected[] = {{"momentum", "momentum"},
                                                                {"/x", "_x"},
                                                                {"../../x", "_._.._x"},
                                                                {".", "_"},
                                                                {"..", "_."},
                                                                {".hidden", "_hidden"},
                                                                {"a b,c", "a_b_c"},
                                                                {"C:\\x", "C__x"},
                                                                {"lr=0.1+wd@2", "lr=0.1+wd@2"},
                                                                {"line\nbreak", "line_break"},
                                                                {"β=0.9", "β=0.9"}};
        for (const auto& [label, name] : expected) QCOMPARE(runFileName(label), QString::fromUtf8(name));
        QVERIFY(RunFolderLayout("/r", {"../../x", "/abs"}).metricsFile(0).startsWith("/r/_._.._x/"));
        QVERIFY(RunFolderLayout("/r", {"../../x", "/abs"}).finalWeightsFile(1).startsWith("/r/_abs/"));
    }

    void refusedLabelsNameTheRunAndWhatWasExpected_data() {
        QTest::addColumn<QStringList>("labels");
        QTest::addColumn<QString>("expected");
        QTest::newRow("summary.csv") << QStringList{"momentum", "summary.csv"}
                                     << "runs[1].label 'summary.csv': names a file of the run folder (summary.csv)";
        QTest::newRow("Config, any case")
            << QStringList{"Config.JSON"}
            << "runs[0].label 'Config.JSON': names a file of the run folder (config.json)";
        QTest::newRow("stem for the CSV export")
            << QStringList{"a", "summary"} << "runs[1].label 'summary': names a file";
        QTest::newRow("collision") << QStringList{"a/b", "a_b"}
                                   << "runs[1].label 'a_b': its folder name 'a_b' is that of runs[0] ('a/b')";
        QTest::newRow("case collision") << QStringList{"Adam", "adam"}
                                        << "runs[1].label 'adam': its folder name 'adam' is that of runs[0]";
        QTest::newRow("too long") << QStringList{QString(121, 'x')} << "too long; expected at most 120 bytes";
        QTest::newRow("empty") << QStringList{"a", ""} << "runs[1].label: expected a non-empty label";
    }
    void refusedLabelsNameTheRunAndWhatWasExpected() {
        QFETCH(QStringList, labels);
        QFETCH(QString, expected);
        std::vector<std::string> list;
        for (const QString& label : labels) list.push_back(label.toStdString());
        const QString message = test::inputErrorOf([&] { checkRunFileNames(list); });
        QVERIFY2(message.contains(expected), qPrintable(message));
    }

    void pathLikeLabelsStayInsideTheRunFolder() {
        QTemporaryDir tmp;
        const QString out = tmp.filePath("a/b/out");
        const QString absolute = tmp.filePath("elsewhere");
        const CliResult r = runCli(with(
            kSineRun, {"--optimizer", "momentum:label=../../x,sgd:label=" + absolute + ",adam:label=.", "--out", out}));
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QVERIFY(!QFile::exists(tmp.filePath("a/x")) && !QFile::exists(absolute));
        const ml::RunFolder folder = ml::readRunFolder(out);
        QVERIFY(folder.problems().empty());
        QCOMPARE(folder.runs.size(), std::size_t(3));
        QCOMPARE(folder.runs[0].spec.label, std::string("../../x"));
        QCOMPARE(folder.runs[2].directory, out + "/_");
        for (const ml::RunRecord& run : folder.runs) {
            QVERIFY2(run.directory.startsWith(out + "/"), qPrintable(run.directory));
            QCOMPARE(run.metrics.rowCount(), 10L);
        }
        QCOMPARE(QDir(out).entryList(QDir::Files), (QStringList{"config.json", "summary.csv"}));

        // The report names its run files by the same rule.
        const QString report = tmp.filePath("report");
        const CliResult exported = runCli({"export", out, "--out", report});
        QVERIFY2(exported.status == 0, qPrintable(exported.err));
        const QString sgdName = runFileName(absolute.toStdString());
        QCOMPARE(QDir(report + "/runs").entryList(QDir::Files),
                 (QStringList{"_._.._x.csv", "_.csv", sgdName + ".csv"}));
        QVERIFY(readAll(report + "/index.html").contains("href=\"runs/_._.._x.csv\""));
    }

    void reservedOrCollidingLabelsAreRefusedBeforeTraining() {
        QTemporaryDir tmp;
        const QString out = tmp.filePath("out");
        CliResult r = runCli(
            with(kSineRun, {"--steps", "100000000", "--optimizer", "momentum:label=summary.csv,sgd", "--out", out}));
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("runs[0].label 'summary.csv': names a file of the run folder"), qPrintable(r.err));
        r = runCli(with(kSineRun, {"--optimizer", "momentum:label=a/b,sgd:label=a_b", "--out", out}));
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("'a_b' is that of runs[0] ('a/b')"), qPrintable(r.err));
        QVERIFY(!QFile::exists(out));  // refused before anything was written
    }

    // A fork is never written over its source, whichever of the two names the other through a link.
    void forkRefusesItsSourceThroughALink() {
        QTemporaryDir tmp;
        const QString run = tmp.filePath("run"), link = tmp.filePath("link");
        const CliResult trained =
            runCli({"train", "--network", "1-2-1", "--data", "toy:sine", "--optimizer", "momentum", "--steps", "20",
                    "--save-state-every", "10", "--quiet", "--out", run});
        QVERIFY2(trained.status == 0, qPrintable(trained.err));
        QVERIFY(QFile::link(run, link));
        const std::map<QString, QByteArray> before = test::folderContents(run);
        for (const auto& [from, out] : {std::pair{run, link}, std::pair{link, run}}) {
            const CliResult r = runCli({"train", "--fork-from", from, "--at-step", "10", "--quiet", "--out", out});
            QCOMPARE(r.status, 2);
            QVERIFY2(r.err.contains("--out " + out + ": is the forked run's folder"), qPrintable(r.err));
            QVERIFY(test::folderContents(run) == before);
        }
    }

    // Training into a run folder replaces the earlier run whole: none of its files (snapshots,
    // diagnostics, saved states, other runs' folders) stays to pass for the new run's; other files stay.
    void retrainingRemovesTheEarlierRunsFiles() {
        QTemporaryDir tmp;
        const QString out = tmp.filePath("run");
        CliResult r = runCli({"train", "--network", "1-2-1", "--data", "toy:sine", "--optimizer", "momentum,adam",
                              "--steps", "20", "--snapshots-every", "5", "--diagnostics-every", "5",
                              "--save-state-every", "10", "--quiet", "--out", out});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QVERIFY(QFile::exists(out + "/adam/snapshots.bin") && QFile::exists(out + "/adam/diagnostics.csv"));
        writeFile(out + "/notes.txt", "mine");
        r = runCli(kSineRun + QStringList{"--out", out});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QCOMPARE(QDir(out).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
                 (QStringList{"config.json", "metrics.csv", "notes.txt", "summary.csv", "weights_final.json",
                              "weights_initial.json"}));
        // And the other way: a single run replaced by two leaves no single-run file at the top.
        r = runCli({"train", "--network", "1-2-1", "--data", "toy:sine", "--optimizer", "momentum,adam", "--steps", "5",
                    "--quiet", "--out", out});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QCOMPARE(QDir(out).entryList(QDir::AllEntries | QDir::NoDotAndDotDot),
                 (QStringList{"adam", "config.json", "momentum", "notes.txt", "summary.csv"}));
        // A study's folder is not a run folder.
        QVERIFY(QDir().mkpath(tmp.filePath("study")));
        writeFile(tmp.filePath("study/study.json"), "{}");
        r = runCli(kSineRun + QStringList{"--out", tmp.filePath("study")});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("--out " + tmp.filePath("study") + ": holds study.json"), qPrintable(r.err));
    }

    // A retraining killed before it ends reads back as stopped, not as the earlier run's "done".
    void killedRetrainingDoesNotReadAsTheEarlierRun() {
        QTemporaryDir tmp;
        const QString out = tmp.filePath("run");
        QCOMPARE(runCli(kSineRun + QStringList{"--out", out}).status, 0);
        QCOMPARE(readRunFolder(out).runs[0].result.status, RunStatus::Done);
        QProcess process;
        process.start(MOMENTUM_LAB_CLI, {"train", "--network", "1-2-2-1", "--data", "toy:sine", "--optimizer",
                                         "momentum", "--steps", "1000000000", "--quiet", "--out", out});
        QVERIFY(process.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(!QFile::exists(out + "/weights_final.json"), 30000);
        QTest::qWait(1500);  // past the one-second flush
        QCOMPARE(::kill(static_cast<pid_t>(process.processId()), SIGKILL), 0);
        QVERIFY(process.waitForFinished(30000));
        const RunFolder folder = readRunFolder(out);
        QCOMPARE(folder.runs[0].result.status, RunStatus::Stopped);
        QVERIFY(folder.runs[0].metrics.rowCount() > 10);
    }

    // summary.csv alone does not make a run done: its final weights and metrics must agree.
    void doneNeedsTheFinalWeightsAndTheLastStep() {
        QTemporaryDir tmp;
        const QString out = tmp.filePath("run");
        QCOMPARE(runCli(kSineRun + QStringList{"--out", out}).status, 0);
        QVERIFY(QFile::remove(out + "/weights_final.json"));
        RunFolder folder = readRunFolder(out);
        QCOMPARE(folder.runs[0].result.status, RunStatus::Stopped);
        QVERIFY2(folder.runs[0].problem.find("summary.csv says done, but the final weights") != std::string::npos,
                 folder.runs[0].problem.c_str());

        QCOMPARE(runCli(kSineRun + QStringList{"--out", out}).status, 0);
        const QByteArray metrics = readAll(out + "/metrics.csv");
        writeFile(out + "/metrics.csv", metrics.left(metrics.indexOf("\n6,")) + "\n");  // rows 1-5 of 10
        folder = readRunFolder(out);
        QCOMPARE(folder.runs[0].result.status, RunStatus::Stopped);
        QVERIFY2(folder.runs[0].problem.find("metrics.csv ends at step 5") != std::string::npos,
                 folder.runs[0].problem.c_str());
    }

    void labelsWithCommasQuotesAndLineBreaksRoundTripThroughSummaryCsv() {
        QTemporaryDir tmp;
        const QString config = tmp.filePath("exp.json");
        writeFile(config,
                  "{\"network\":\"1-2-2-1\",\"data\":\"toy:sine\",\"steps\":4,\"runs\":["
                  "{\"optimizer\":\"momentum\",\"label\":\"mu 0.9, lr 0.1\"},"
                  "{\"optimizer\":\"sgd\",\"label\":\"say \\\"hi\\\"\"},"
                  "{\"optimizer\":\"adam\",\"label\":\"two\\nlines\"}]}");
        const QString out = tmp.filePath("out");
        const CliResult r = runCli({"train", "--config", config, "--out", out, "--quiet"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        const QByteArray summary = readAll(out + "/summary.csv");
        QVERIFY2(summary.contains("\n\"mu 0.9, lr 0.1\",") && summary.contains("\n\"say \"\"hi\"\"\",") &&
                     summary.contains("\n\"two\nlines\","),
                 summary.constData());
        const std::vector<RunResult> results = parseSummaryCsv(summary, "summary.csv");
        QCOMPARE(results.size(), std::size_t(3));
        QCOMPARE(results[0].label, std::string("mu 0.9, lr 0.1"));
        QCOMPARE(results[1].label, std::string("say \"hi\""));
        QCOMPARE(results[2].label, std::string("two\nlines"));
        for (const RunResult& result : results) {
            QCOMPARE(result.steps, 4L);
            QVERIFY(result.status == RunStatus::Done);
        }
        QVERIFY(QFile::exists(out + "/mu_0.9__lr_0.1/metrics.csv"));
        // A line number in a message counts the lines of a quoted line break.
        const QString message = test::inputErrorOf([&] { parseSummaryCsv(summary + "x,1,1,1,zz,1,done\n", "S.csv"); });
        QVERIFY2(message.startsWith("S.csv:6: column steps: 'zz'"), qPrintable(message));
    }

    void metricsReachTheDiskAtEveryEvaluation() {
        // 400 samples in batches of 50: evaluations at steps 8, 16 and 20 (the last). When the
        // trainer reports an evaluated step, its row must already be in metrics.csv on disk.
        QTemporaryDir tmp;
        Experiment experiment;
        experiment.network = {{2, 6, 2}, Activation::Tanh, LossKind::CrossEntropy};
        experiment.data = "toy:xor";
        experiment.batchSize = 50;
        experiment.steps = 20;
        experiment.runs = {{"momentum", "momentum", optimizerInfo("momentum").defaults}};
        LockstepTrainer trainer(experiment, loadDataSplit(experiment.data, experiment.seed));
        RunFolderWriter writer(tmp.path(), trainer);
        struct DiskCheck : TrainingObserver {
            QString path;
            QList<long> seen;  // evaluated steps whose row was on disk
            void stepFinished(const StepMetrics& m) override {
                if (!std::isnan(m.fullTrainLoss) && readAll(path).endsWith(metricsRow(m))) seen << m.step;
            }
        } check;
        check.path = writer.layout().metricsFile(0);
        trainer.addObserver(&writer);
        trainer.addObserver(&check);
        RunControl control;
        trainer.run(control);
        QCOMPARE(check.seen, (QList<long>{8, 16, 20}));
    }

    void killedRunKeepsItsMetricsUpToTheLastCompleteRow() {
        QTemporaryDir tmp;
        const QString out = tmp.filePath("run");
        QProcess process;
        process.start(MOMENTUM_LAB_CLI,
                      {"train", "--network", "2-6-2", "--loss", "cross-entropy", "--data", "toy:xor", "--batch", "10",
                       "--steps", "1000000000", "--optimizer", "momentum,adam", "--out", out, "--quiet"});
        QVERIFY(process.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(out + "/config.json"), 30000);
        QTest::qWait(1500);  // past the one-second flush
        QCOMPARE(::kill(static_cast<pid_t>(process.processId()), SIGKILL), 0);
        QVERIFY(process.waitForFinished(30000));
        QCOMPARE(process.exitStatus(), QProcess::CrashExit);

        const ml::RunFolder folder = ml::readRunFolder(out);
        const std::vector<std::string> problems = folder.problems();
        QVERIFY2(problems.empty(), problems.empty() ? "" : problems.front().c_str());
        QCOMPARE(folder.runs.size(), std::size_t(2));
        for (const ml::RunRecord& run : folder.runs) {
            QVERIFY2(run.metrics.rowCount() > 100, qPrintable(QString::number(run.metrics.rowCount())));
            // Every step's row up to the last complete one: none lost, none twice (beyond the plot's
            // 200,000 points the digest keeps a decimated subset, still in order).
            QCOMPARE(run.metrics.rows().front().step, 1L);
            for (std::size_t i = 1; i < run.metrics.rows().size(); ++i)
                QVERIFY(run.metrics.rows()[i].step > run.metrics.rows()[i - 1].step);
            QCOMPARE(run.metrics.last()->step, run.metrics.rowCount());
            QVERIFY(run.result.status == RunStatus::Stopped);  // no weights_final.json: interrupted
            QCOMPARE(run.result.steps, run.metrics.rowCount());
            QVERIFY(run.finalWeights.empty());
        }
    }

    // What would exceed the memory budget, or never end, is refused before it is read.
    void resourceBudgetsRefuseBeforeAllocating() {
        QTemporaryDir tmp;
        // A FIFO without a writer would block the reader forever; /dev/zero would fill memory.
        const QString fifo = tmp.filePath("data.csv");
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        QString message = test::inputErrorOf([&] { loadDataSplit("csv:" + fifo.toStdString(), 1); });
        QVERIFY2(message.contains(fifo + ": is not a regular file (a FIFO, device or socket); expected a file"),
                 qPrintable(message));
        message = test::inputErrorOf([&] { loadDataSplit("csv:/dev/zero", 1); });
        QVERIFY2(message.contains("/dev/zero: is not a regular file"), qPrintable(message));

        // A gzip bomb: 64 MiB of zeros in about 64 KB, against a budget of 16 MiB.
        const QByteArray bomb = gzipCompress(QByteArray(64 << 20, '\0'));
        QVERIFY(bomb.size() < (1 << 20));
        const QString bombPath = tmp.filePath("bomb.csv.gz");
        writeFile(bombPath, bomb);
        qputenv(kMemoryBudgetVariable, "16M");
        message = test::inputErrorOf([&] { readMaybeGzippedFile(bombPath); });
        QVERIFY2(
            message.contains(bombPath + ": decompressing it (the size its gzip trailer declares) needs 64 MiB, "
                                        "more than the memory budget of 16 MiB (set by MOMENTUM_LAB_MEMORY_BUDGET)"),
            qPrintable(message));
        // The same bomb with a trailer that lies: inflating stops one byte past the declared size.
        QByteArray lying = bomb;
        lying.replace(lying.size() - 4, 4, QByteArray("\x10\x00\x00\x00", 4));  // 16 bytes
        message = test::inputErrorOf([&] { gunzip(lying, "lying.gz"); });
        QVERIFY2(message.contains("lying.gz: decompresses to more than the 16 bytes its gzip trailer declares"),
                 qPrintable(message));

        // A network whose parameters alone exceed the budget: refused before any matrix exists.
        Experiment huge;
        huge.network.setSizes({1, 100000, 100000, 1});
        huge.steps = 1;
        huge.runs = {RunSpec{"sgd", "sgd", {}}};
        message = test::inputErrorOf([&] { huge.validate(); });
        QVERIFY2(message.contains("network 1-100000-100000-1 (10000400001 parameters; weights, gradients and optimizer "
                                  "state of 1 run) needs 261 GiB, more than the memory budget of 16 MiB"),
                 qPrintable(message));
        message = test::inputErrorOf([&] { Network network(huge.network); });
        QVERIFY2(message.contains("network 1-100000-100000-1 (10000400001 parameters) needs 37 GiB"),
                 qPrintable(message));
        qputenv(kMemoryBudgetVariable, "lots");
        message = test::inputErrorOf([&] { huge.validate(); });
        QVERIFY2(message.contains("MOMENTUM_LAB_MEMORY_BUDGET='lots': expected a size in bytes, or with K, M, G or T"),
                 qPrintable(message));
        qunsetenv(kMemoryBudgetVariable);
        // Without the variable: half of the physical memory (below 261 GiB on any machine under 522 GiB).
        message = test::inputErrorOf([&] { huge.validate(); });
        QVERIFY2(message.contains("(half of the physical memory; set MOMENTUM_LAB_MEMORY_BUDGET to change it)"),
                 qPrintable(message));
        QVERIFY(test::inputErrorOf([&] { Network network(NetworkSpec{}); }).isEmpty());
    }

    // What scales with the data is in the one estimate too (requireTrainingWithinMemoryBudget): the
    // activations of a batch and an evaluation chunk, checked when the data's size is known.
    void activationsCountAgainstTheMemoryBudget() {
        Experiment wide;
        wide.network.setLayers("1-100000-1");
        wide.steps = 1;
        wide.batchSize = 0;  // the whole training set
        wide.runs = {RunSpec{"sgd", "sgd", {}}};
        qputenv(kMemoryBudgetVariable, "64M");
        QVERIFY(test::inputErrorOf([&] { wide.validate(); }).isEmpty());  // the parameters fit
        QString message = test::inputErrorOf([&] { loadExperimentData(wide); });
        QVERIFY2(message.contains("network 1-100000-1 (300001 parameters; weights, gradients and optimizer state of "
                                  "1 run; the activations and their gradients of a batch of ") &&
                     message.contains("(--batch 0: the whole training set)") &&
                     message.contains("more than the memory budget of 64 MiB (set by MOMENTUM_LAB_MEMORY_BUDGET); a "
                                      "smaller batch needs less, a larger MOMENTUM_LAB_MEMORY_BUDGET allows more"),
                 qPrintable(message));
        wide.network.setLayers("1-1000-1");
        QVERIFY(test::inputErrorOf([&] { loadExperimentData(wide); }).isEmpty());

        // A convolution padded by 1000 on 8x8 digits: 8 x 2005 x 2005 values per sample.
        Experiment padded;
        padded.data = "digits";
        padded.network.setLayers("1x8x8-conv8k3p1000-10");
        padded.network.loss = LossKind::CrossEntropy;
        padded.steps = 1;
        padded.batchSize = 32;
        padded.runs = {RunSpec{"sgd", "sgd", {}}};
        qputenv(kMemoryBudgetVariable, "4G");
        message = test::inputErrorOf([&] { loadExperimentData(padded); });
        QVERIFY2(message.contains("network 1x8x8-conv8k3p1000-10 (") &&
                     message.contains("the activations and their gradients of a batch of 32 and of an evaluation "
                                      "chunk of 1024) needs "),
                 qPrintable(message));
        qunsetenv(kMemoryBudgetVariable);
        // A padding whose sizes overflow an int is refused by the network spec itself.
        message = test::inputErrorOf([&] { NetworkSpec().setLayers("1x8x8-conv8k3p100000-10"); });
        QVERIFY2(message.contains("--network: conv8k3p100000: makes 8x200006x200006 = 320019200288 values per sample, "
                                  "more than a layer can hold (2147483647); the padding of 100000 is the likely cause"),
                 qPrintable(message));
    }

    // One rule for every float hyper-parameter: a value float32 turns into another is refused.
    void hyperParametersThatChangeAsFloat32AreRefused() {
        const ParameterField& momentum = *findParameterField("momentum");
        const ParameterField& lr = *findParameterField("lr");
        QString message = test::inputErrorOf([&] { requireFloat32Value(momentum, 0.99999999, "--momentum"); });
        QVERIFY2(
            message.contains("--momentum: 0.99999999 becomes 1 as a 32-bit float (what training computes with), "
                             "out of range; expected a number in [0, 1), e.g. 0.99999994, the nearest float inside"),
            qPrintable(message));
        message = test::inputErrorOf([&] { requireFloat32Value(lr, 1e-46, "--lr"); });
        QVERIFY2(message.contains("--lr: 1e-46 becomes 0 as a 32-bit float (what training computes with); give 0 or a "
                                  "value of at least 1.1754944e-38"),
                 qPrintable(message));
        message = test::inputErrorOf([&] { requireFloat32Value(lr, 1e-40, "--lr"); });
        QVERIFY2(message.contains("a subnormal float that keeps fewer digits"), qPrintable(message));
        for (const double fine : {0.0, 0.9999999, 1e-30, 0.1, 3e38})
            QVERIFY(test::inputErrorOf([&] { requireFloat32Value(lr, fine, "--lr"); }).isEmpty());
        QVERIFY(test::inputErrorOf([&] { requireFloat32Value(momentum, 0.99999994, "--momentum"); }).isEmpty());
        // Every path: the CLI flag and --optimizer item, the experiment JSON, validate() (the app's form).
        const QJsonObject json{{"network", "1-2-1"},
                               {"steps", 1},
                               {"runs", QJsonArray{QJsonObject{{"optimizer", "momentum"}, {"momentum", 0.99999999}}}}};
        message = test::inputErrorOf([&] { experimentFromJson(json, "e.json"); });
        QVERIFY2(message.contains("e.json: runs[0] --momentum: 0.99999999 becomes 1"), qPrintable(message));
        Experiment form;
        form.steps = 1;
        form.runs = {RunSpec{"sgd", "sgd", {}}};
        form.runs[0].hp.lr = 1e-46;
        message = test::inputErrorOf([&] { form.validate(); });
        QVERIFY2(message.contains("runs[0] --lr: 1e-46 becomes 0"), qPrintable(message));
        for (const auto& [arguments, expected] :
             {std::pair{QStringList{"--momentum", "0.99999999"}, "--momentum: 0.99999999 becomes 1"},
              std::pair{QStringList{"--lr", "1e-46"}, "--lr: 1e-46 becomes 0"},
              std::pair{QStringList{"--optimizer", "momentum:lr=1e-46"},
                        "--optimizer momentum:lr=1e-46 lr: 1e-46 becomes 0"}}) {
            QTemporaryDir tmp;
            const CliResult r = runCli(QStringList{"train", "--network", "1-2-1", "--data", "toy:sine", "--steps", "1",
                                                   "--quiet", "--out", tmp.filePath("out")} +
                                       arguments);
            QCOMPARE(r.status, 2);
            QVERIFY2(r.err.contains(expected), qPrintable(r.err));
        }
    }

    // A snapshots.bin cut inside a record (a killed run) says so, naming the record, wherever it is read.
    void aSnapshotFileCutInsideARecordSaysWhere() {
        QTemporaryDir tmp;
        const QString run = tmp.filePath("run");
        QCOMPARE(runCli(with(kSineRun, {"--steps", "20", "--snapshots-every", "5", "--out", run})).status, 0);
        const QString file = run + "/snapshots.bin";
        QVERIFY(QFile::resize(file, QFileInfo(file).size() - 10));  // records at steps 5, 10, 15, 20: the last one cut
        SnapshotFileReader reader(file, 0);
        int records = 0;
        while (reader.next()) ++records;
        QCOMPARE(records, 3);
        QVERIFY(reader.truncated());
        QVERIFY2(
            reader.truncationText().starts_with(file.toStdString() + ": the file ends inside record 4 (byte ") &&
                reader.truncationText().ends_with("), cut off while it was written; the 3 records before it were read"),
            reader.truncationText().c_str());
        const CliResult r =
            runCli({"export", run, "--out", tmp.filePath("report"), "--quantity", "gradient", "--step", "20"});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains(file + ": the file ends inside record 4"), qPrintable(r.err));
    }

    void countsAreRangeCheckedBeforeAnyConversion() {
        // The issue's command: 2^62 epochs of batch 1 once overflowed into 0 steps and exit 0.
        QTemporaryDir tmp;
        const QString never = tmp.filePath("never");
        const CliResult cli = runCli({"train", "--network", "1-2-2-1", "--data", "toy:sine", "--optimizer", "sgd",
                                      "--epochs", "4611686018427387904", "--batch", "1", "--out", never, "--quiet"});
        QCOMPARE(cli.status, 2);
        QVERIFY2(cli.err.contains("--epochs: '4611686018427387904' is not a whole number from 0 to 9007199254740992"),
                 qPrintable(cli.err));
        QVERIFY(!QFile::exists(never));

        // Within the JSON range, but 2^53 epochs of 200 steps are more steps than that.
        Experiment experiment;
        experiment.epochs = kMaxCount;
        experiment.batchSize = 1;
        experiment.runs = {{"sgd", "sgd", optimizerInfo("sgd").defaults}};
        QString message = test::inputErrorOf([&] { LockstepTrainer(experiment, loadDataSplit("toy:sine", 7)); });
        QCOMPARE(
            message,
            QString("epochs: 9007199254740992 epochs of 200 steps exceed the largest step count, 9007199254740992"));
        experiment.epochs = 0;
        experiment.steps = kMaxCount;
        experiment.batchSize = 0;  // one step per epoch: more epochs than an int counts
        message = test::inputErrorOf([&] { LockstepTrainer(experiment, loadDataSplit("toy:sine", 7)); });
        QVERIFY2(message.startsWith("steps: 9007199254740992 steps of 1 per epoch exceed the largest epoch number"),
                 qPrintable(message));

        for (const char* json : {R"({"steps": 9.3e180})", R"({"steps": 1152921504606846976})", R"({"epochs": -1})",
                                 R"({"batch": 2.5})"}) {  // seeds: test_train seedsKeepAll64Bits
            message = test::inputErrorOf([&] { experimentFromJson(QJsonDocument::fromJson(json).object(), "E.json"); });
            QVERIFY2(message.contains(": expected a whole number from 0 to 9007199254740992"),
                     qPrintable(message + " <- " + json));
        }
    }

    void runFolderCountsAreRangeChecked_data() {
        QTest::addColumn<QByteArray>("row");
        QTest::addColumn<QString>("expected");
        QTest::newRow("nan step") << QByteArray("nan,1,0.5,,,1.0")
                                  << "m.csv:2: column step: 'nan' is not a whole number from 0 to 9007199254740992";
        QTest::newRow("1e300 step") << QByteArray("1e300,1,0.5,,,1.0")
                                    << "m.csv:2: column step: '1e300' is not a whole number";
        QTest::newRow("negative step") << QByteArray("-1,1,0.5,,,1.0") << "column step: '-1' is not a whole number";
        QTest::newRow("fractional step") << QByteArray("1.5,1,0.5,,,1.0") << "column step: '1.5' is not a whole number";
        QTest::newRow("epoch beyond int")
            << QByteArray("1,3e9,0.5,,,1.0") << "column epoch: '3e9' is not a whole number from 0 to 2147483647";
    }
    void runFolderCountsAreRangeChecked() {
        QFETCH(QByteArray, row);
        QFETCH(QString, expected);
        const QString message = test::inputErrorOf([&] { parseMetricsCsv(metricsHeader() + row + "\n", "m.csv", 0); });
        QVERIFY2(message.contains(expected), qPrintable(message));
        const QString summary =
            test::inputErrorOf([] { parseSummaryCsv(summaryHeader() + "a,1,1,1,1e300,1.0,done\n", "s.csv"); });
        QVERIFY2(summary.startsWith("s.csv:2: column steps: '1e300' is not a whole number"), qPrintable(summary));
    }

    void recordedLayersAreChecked_data() {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("expected");
        QTest::newRow("not an array") << QByteArray(R"({"recorded-layers": {}})")
                                      << "E.json: recorded-layers: expected an array of layers";
        QTest::newRow("no name") << QByteArray(R"({"recorded-layers": [{"kind": "linear", "shape": [3, 4]}]})")
                                 << "E.json: recorded-layers[0].name: missing; expected a text";
        QTest::newRow("one dimension") << QByteArray(
                                              R"({"recorded-layers": [{"name": "a", "kind": "linear", "shape": [3]}]})")
                                       << "E.json: recorded-layers[0].shape: expected the weight's shape";
        QTest::newRow("fractional dimension")
            << QByteArray(R"({"recorded-layers": [{"name": "a", "kind": "linear", "shape": [3, 2.5]}]})")
            << "E.json: recorded-layers[0].shape[1]: expected a whole number from 1 to 2^30";
        QTest::newRow("huge layer")
            << QByteArray(R"({"recorded-layers": [{"name": "a", "kind": "linear", "shape": [65536, 65536]}]})")
            << "E.json: recorded-layers[0].shape: more than 2^30 weights in one layer";
        QTest::newRow("unknown key")
            << QByteArray(R"({"recorded-layers": [{"name": "a", "kind": "linear", "shape": [3, 4], "size": 1}]})")
            << "E.json: recorded-layers[0]: unknown key 'size'";
        QTest::newRow("follows nothing recorded")
            << QByteArray(R"({"recorded-layers": [{"name": "a", "kind": "linear", "shape": [3, 4], "follows": "b"}]})")
            << "E.json: recorded-layers: a follows 'b', which is not a recorded layer";
        QTest::newRow("not the network's layers")
            << QByteArray(
                   R"({"network": "4-5-3", "recorded-layers": [{"name": "a", "kind": "linear", "shape": [5, 4]}]})")
            << "E.json: recorded-layers: not the parameter layers of network 4-5-3";
    }
    void recordedLayersAreChecked() {
        QFETCH(QByteArray, json);
        QFETCH(QString, expected);
        const QString message =
            test::inputErrorOf([&] { experimentFromJson(QJsonDocument::fromJson(json).object(), "E.json"); });
        QVERIFY2(message.startsWith(expected), qPrintable(message));
    }

    // Without "network" the layers are blocks: kept through the JSON form, and refused for training.
    void recordedLayersWithoutNetworkAreBlocks() {
        const QByteArray json = R"({"steps": 3, "recorded-layers": [
            {"name": "left", "kind": "linear", "shape": [5, 4], "follows": null},
            {"name": "features.0", "kind": "conv2d", "shape": [8, 3, 3, 5], "follows": "left"}]})";
        const Experiment experiment = experimentFromJson(QJsonDocument::fromJson(json).object(), "E.json");
        QVERIFY(experiment.recorded.asBlocks);
        QCOMPARE(experiment.recorded.layers.size(), std::size_t(2));
        QCOMPARE(experiment.recorded.layers[1].columnsPerInput(), 15L);
        QVERIFY(layerMatrixShapes(experiment) == (std::vector<std::pair<long, long>>{{5, 5}, {8, 3 * 15 + 1}}));
        QVERIFY(experimentFromJson(toJson(experiment), "again").recorded == experiment.recorded);
        QVERIFY(!toJson(experiment).contains("network"));
        const QString refused = test::inputErrorOf([&] { experiment.validate(); });
        QVERIFY2(refused.startsWith("network: missing; recorded-layers describes"), qPrintable(refused));
        const QString shapes = test::inputErrorOf([&] { checkLayerShapes(experiment, {Matrix(5, 5)}, "w.json"); });
        QCOMPARE(shapes, QString("w.json: has 1 layers; the recorded model has 2"));
    }

    void emptyOrMalformedRunListsAreRefused() {
        QString message = test::inputErrorOf(
            [] { experimentFromJson(QJsonDocument::fromJson(R"({"runs": []})").object(), "E.json"); });
        QCOMPARE(message, QString(R"(E.json: runs: expected at least one run, e.g. [{"optimizer":"momentum"}])"));
        QTemporaryDir tmp;
        writeFile(tmp.filePath("object.json"), R"({"steps": 3, "runs": {"optimizer": "sgd"}})");
        writeFile(tmp.filePath("empty.json"), R"({"steps": 3, "runs": []})");
        for (const char* file : {"object.json", "empty.json"}) {
            const CliResult r =
                runCli({"train", "--config", tmp.filePath(file), "--out", tmp.filePath("o"), "--quiet"});
            QCOMPARE(r.status, 2);
            QVERIFY2(r.err.contains(tmp.filePath(file) + ": runs: expected "), qPrintable(r.err));
        }
        // A file's empty list may still be replaced by --optimizer.
        QCOMPARE(runCli({"train", "--config", tmp.filePath("empty.json"), "--optimizer", "sgd", "--out",
                         tmp.filePath("o"), "--quiet"})
                     .status,
                 0);
    }

    void diskFullWhileTrainingFailsAndKeepsTheRowsWritten() {
        // 64 KiB hold about 1,500 metrics rows of 1-2-2-1: the log fills the disk mid-run.
        QTemporaryDir tmp;
        const QString script = R"(
            mount -t tmpfs -o size=64k tmpfs "$2" 2>/dev/null || exit 77
            cli=$1; disk=$2; keep=$3; shift 3
            "$cli" "$@" --out "$disk/run"; echo "train $?"
            cp -r "$disk/run" "$keep/run"
            exit 0)";
        QVERIFY(QDir().mkpath(tmp.filePath("disk")) && QDir().mkpath(tmp.filePath("keep")));
        const QStringList run = {"train",    "--network", "1-2-2-1", "--data",  "toy:sine", "--optimizer",
                                 "momentum", "--batch",   "1",       "--steps", "100000",   "--quiet"};
        const ShellResult r =
            runInMountNamespace(script, QStringList{tmp.filePath("disk"), tmp.filePath("keep")} + run);
        if (r.status == 77) QSKIP(qPrintable("cannot mount a tmpfs here (unshare -rm): " + r.err));
        QCOMPARE(r.out, QString("train 1\n"));
        QVERIFY2(r.err.contains(tmp.filePath("disk/run/metrics.csv") + ": cannot write (No space left on device)"),
                 qPrintable(r.err));
        const ml::RunFolder folder = ml::readRunFolder(tmp.filePath("keep/run"));
        QVERIFY(folder.problems().empty());
        const std::vector<StepMetrics>& metrics = folder.runs.front().metrics.rows();
        QVERIFY2(metrics.size() > 500, qPrintable(QString::number(metrics.size())));
        for (std::size_t i = 0; i < metrics.size(); ++i) QCOMPARE(metrics[i].step, long(i + 1));
        QVERIFY(folder.runs.front().result.status == RunStatus::Stopped);
    }

    void badInputExitsTwoNamingWhatWasExpectedBeforeTraining_data() {
        QTest::addColumn<QStringList>("arguments");  // "@" stands for the test's temporary folder
        QTest::addColumn<QString>("expected");
        const QStringList run = with(kSineRun, {"--steps", "100000000"});
        QTest::newRow("--out a file") << run + QStringList{"--out", "@/file"}
                                      << "--out @/file: is not a folder; expected a folder to write into";
        QTest::newRow("--out /dev/null") << run + QStringList{"--out", "/dev/null"}
                                         << "--out /dev/null: is not a folder";
        QTest::newRow("--out empty") << run + QStringList{"--out", ""}
                                     << "--out: empty; expected the folder to write into";
        QTest::newRow("--out under a file") << run + QStringList{"--out", "@/file/run"}
                                            << "--out @/file/run: cannot be created: @/file is not a folder";
        QTest::newRow("data 5") << QStringList{"train", "--config", "@/data5.json", "--out", "@/out"}
                                << "@/data5.json: data: expected a string";
        QTest::newRow("runs object") << QStringList{"train", "--config", "@/runs-object.json", "--out", "@/out"}
                                     << "@/runs-object.json: runs: expected an array of runs";
        QTest::newRow("idx:FILE") << with(run, {"--data", "idx:@/file", "--out", "@/out"})
                                  << "IDX folder @/file: is a file; expected a folder";
        QTest::newRow("label=summary.csv") << QStringList{"train",
                                                          "--data",
                                                          "toy:sine",
                                                          "--steps",
                                                          "100000000",
                                                          "--optimizer",
                                                          "sgd,momentum:label=summary.csv",
                                                          "--out",
                                                          "@/out"}
                                           << "runs[1].label 'summary.csv': names a file of the run folder";
    }
    void badInputExitsTwoNamingWhatWasExpectedBeforeTraining() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        QTemporaryDir tmp;
        writeFile(tmp.filePath("file"), "not a folder");
        writeFile(tmp.filePath("data5.json"), R"({"data": 5, "steps": 3, "runs": [{"optimizer": "sgd"}]})");
        writeFile(tmp.filePath("runs-object.json"), R"({"steps": 3, "runs": {"optimizer": "sgd"}})");
        arguments.replaceInStrings("@", tmp.path());
        const CliResult r = runCli(arguments);
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains(expected.replace("@", tmp.path())), qPrintable(r.err));
        QVERIFY(!QFile::exists(tmp.filePath("out")));  // refused before anything was trained or written
    }

    // An --out that can never be a folder is bad input (exit 2) naming --out, found before training:
    // a link to nothing (itself or on the way), a name longer than a file system takes, the kernel's
    // own file systems.
    void impossibleOutFoldersAreBadInput() {
        QTemporaryDir tmp;
        QVERIFY(QFile::link(tmp.filePath("nowhere"), tmp.filePath("dangling")));
        const std::pair<QString, QString> cases[] = {
            {tmp.filePath("dangling"), "cannot be created: " + tmp.filePath("dangling") + " is a link to " +
                                           tmp.filePath("nowhere") + ", which does not exist"},
            {tmp.filePath("dangling/run"), "is a link to " + tmp.filePath("nowhere") + ", which does not exist"},
            {tmp.filePath(QString(300, 'a')), "is 300 bytes long; a file system takes at most 255 bytes per name"},
            {"/proc/momentum-lab/run", "cannot be created: /proc is on the kernel's proc file system"},
        };
        for (const auto& [out, expected] : cases) {
            const CliResult r = runCli(kSineRun + QStringList{"--out", out});
            QVERIFY2(r.status == 2 && r.err.contains("--out " + out + ": ") && r.err.contains(expected),
                     qPrintable(r.err));
        }
        QVERIFY(!QFileInfo::exists(tmp.filePath("nowhere")));
    }

    void readOnlyOutFolderIsBadInput() {
        QTemporaryDir tmp;
        const QString script = R"(
            mount -t tmpfs -o ro,size=64k tmpfs "$2" 2>/dev/null || exit 77
            cli=$1; disk=$2; shift 2
            "$cli" "$@" --out "$disk"; echo "existing $?"
            "$cli" "$@" --out "$disk/new/run"; echo "new $?"
            exit 0)";
        const ShellResult r = runInMountNamespace(script, QStringList{tmp.path()} + kSineRun);
        if (r.status == 77) QSKIP(qPrintable("cannot mount a tmpfs here (unshare -rm): " + r.err));
        QCOMPARE(r.out, QString("existing 2\nnew 2\n"));
        QVERIFY2(r.err.contains("--out " + tmp.path() + ": the folder is not writable"), qPrintable(r.err));
        QVERIFY2(r.err.contains("--out " + tmp.path() + "/new/run: cannot be created: the folder " + tmp.path() +
                                " is not writable"),
                 qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestSafety)
#include "test_safety.moc"
