// Data safety (issue 9): nothing lost, nothing written where it does not belong. A full disk fails
// the command and keeps the previous files; labels cannot name paths; a killed run keeps its
// metrics; numbers out of range are refused before any conversion.
#include "TestSupport.h"
#include "io/FileError.h"
#include "io/Files.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
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
    return {process.exitCode(), process.readAllStandardOutput(), process.readAllStandardError()};
}

const QStringList kSineRun = {"train", "--network", "1-2-2-1", "--data", "toy:sine", "--optimizer", "momentum",
                              "--steps", "10", "--quiet"};

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
        const ShellResult r = runInMountNamespace(script, QStringList{tmp.filePath("disk"), tmp.filePath("keep")} + kSineRun);
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
};

QTEST_GUILESS_MAIN(TestSafety)
#include "test_safety.moc"
