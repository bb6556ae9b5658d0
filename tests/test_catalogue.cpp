// The catalogue of bad input: every malformed input in tests/catalogue/catalogue.json is
// given to the built CLI as a child process, which must exit with the entry's status and print the
// entry's message fragment (the fragment names the file, line or field and what was expected).
// initTestCase runs all entries, several at a time; each data row then checks one entry's outcome.
//
// An entry: {"name", "args": [...], "status": N, "message": "fragment", optional "files":
// {"relative/path": CONTENT}, "setup": ["run-single" | "run-multi" | "idx"], "env": {NAME: VALUE}}.
// "@" in args, message and file paths stands for the entry's temporary folder. CONTENT is a string
// (the file's text), or an object: {"text" | "hex": ..., "gzip": true, "gzipTrailer": N} (the
// bytes, gzip-compressed, with the trailer's size field replaced by N), {"repeat": TEXT, "times": N},
// {"fifo": true}, {"folder": true} or {"remove": true}. Setups: "run-single" / "run-multi" copy a
// run folder trained once by initTestCase to @/run; "idx" / "idx-gz" write a valid small IDX set
// (plain / gzipped) to @/idx (files may then replace or remove one of it).
#include "data/DataFiles.h"
#include "data/Idx.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <memory>
#include <vector>

#include <sys/stat.h>

namespace {

QString substitute(QString text, const QString& root) { return text.replace("@", root); }

QByteArray contentOf(const QJsonValue& spec) {
    if (spec.isString()) return spec.toString().toUtf8();
    const QJsonObject object = spec.toObject();
    QByteArray bytes = object.contains("hex") ? QByteArray::fromHex(object["hex"].toString().toLatin1())
                                              : object["text"].toString().toUtf8();
    if (object.contains("repeat")) bytes = object["repeat"].toString().toUtf8().repeated(object["times"].toInt());
    if (object["gzip"].toBool() || object.contains("gzipTrailer")) bytes = ml::gzipCompress(bytes);
    if (object.contains("gzipTrailer")) {
        const auto size = static_cast<quint32>(object["gzipTrailer"].toDouble());
        for (int k = 0; k < 4; ++k) bytes[bytes.size() - 4 + k] = static_cast<char>((size >> (8 * k)) & 0xFF);
    }
    return bytes;
}

bool copyFolder(const QString& from, const QString& to) {
    QDirIterator it(from, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString source = it.next();
        const QString target = to + source.mid(from.size());
        QDir().mkpath(QFileInfo(target).absolutePath());
        if (!QFile::copy(source, target)) return false;
    }
    return true;
}

// A valid 3x2-pixel IDX set: 6 training and 2 test images; `suffix` ".gz" compresses it.
void writeIdxSet(const QString& dir, const QString& suffix) {
    QDir().mkpath(dir);
    const std::vector<std::uint8_t> pixels(6 * 3 * 2, 128), labels{0, 1, 2, 3, 4, 5};
    const auto file = [&](const char* name) { return (dir + "/" + name + suffix).toStdString(); };
    ml::writeIdx(file("train-images-idx3-ubyte"), {6, 3, 2}, pixels);
    ml::writeIdx(file("train-labels-idx1-ubyte"), {6}, labels);
    ml::writeIdx(file("t10k-images-idx3-ubyte"), {2, 3, 2}, std::span(pixels).first(12));
    ml::writeIdx(file("t10k-labels-idx1-ubyte"), {2}, std::span(labels).first(2));
}

}  // namespace

// One entry's files, arguments and environment, made ready in its own temporary folder.
struct Prepared {
    std::unique_ptr<QTemporaryDir> folder = std::make_unique<QTemporaryDir>();
    QStringList arguments;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    QString problem;  // why the entry could not be set up ("" when all is well)
    int status = 0;
    QString err;
};

class TestCatalogue : public QObject {
    Q_OBJECT
    QTemporaryDir templates_;              // the run folders every run-folder entry starts from
    std::map<QString, Prepared> results_;  // by entry name, filled by initTestCase

    Prepared prepare(const QJsonObject& entry) const {
        Prepared prepared;
        const QString root = prepared.folder->path();
        for (const QJsonValue& setup : entry["setup"].toArray()) {
            if (setup.toString().startsWith("idx"))
                writeIdxSet(root + "/idx", setup.toString() == "idx-gz" ? ".gz" : "");
            else if (!copyFolder(templates_.filePath(setup.toString()), root + "/run"))
                prepared.problem = "setup " + setup.toString();
        }
        const QJsonObject files = entry["files"].toObject();
        for (auto it = files.begin(); it != files.end(); ++it) {
            const QString path = root + "/" + it.key();
            QDir().mkpath(QFileInfo(path).absolutePath());
            QFile::remove(path);
            QDir(path).removeRecursively();
            const QJsonObject special = it.value().toObject();  // empty for plain text
            if (special["remove"].toBool()) continue;
            if (special["fifo"].toBool()) {
                if (::mkfifo(QFile::encodeName(path).constData(), 0600) != 0) prepared.problem = "mkfifo " + path;
            } else if (special["folder"].toBool()) {
                QDir().mkpath(path);
            } else {
                QFile file(path);
                if (!file.open(QIODevice::WriteOnly) || file.write(contentOf(it.value())) < 0)
                    prepared.problem = "write " + path;
            }
        }
        for (const QJsonValue& argument : entry["args"].toArray())
            prepared.arguments << substitute(argument.toString(), root);
        const QJsonObject env = entry["env"].toObject();
        for (auto it = env.begin(); it != env.end(); ++it) prepared.environment.insert(it.key(), it.value().toString());
        return prepared;
    }

    // Runs the CLI for each entry, kConcurrent at a time: each run mostly waits for the process
    // to start and exit, so running them side by side keeps the whole catalogue fast.
    void runAll(std::vector<Prepared*> entries) {
        constexpr std::size_t kConcurrent = 8;
        for (std::size_t first = 0; first < entries.size(); first += kConcurrent) {
            std::vector<std::unique_ptr<QProcess>> processes;
            const std::size_t last = std::min(entries.size(), first + kConcurrent);
            for (std::size_t i = first; i < last; ++i) {
                processes.push_back(std::make_unique<QProcess>());
                processes.back()->setProcessEnvironment(entries[i]->environment);
                processes.back()->start(MOMENTUM_LAB_CLI, entries[i]->arguments);
            }
            for (std::size_t i = first; i < last; ++i) {
                QProcess& process = *processes[i - first];
                // Bad input is refused at once; a hang (a FIFO read without a writer) fails the entry.
                if (!process.waitForFinished(20000)) {
                    process.kill();
                    process.waitForFinished();
                    entries[i]->status = -2;
                    entries[i]->err = "timed out after 20 s";
                    continue;
                }
                entries[i]->status = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
                entries[i]->err = QString::fromUtf8(process.readAllStandardError());
            }
        }
    }

    static QJsonArray catalogue() {
        QFile file(QStringLiteral(MOMENTUM_LAB_SOURCE_DIR) + "/tests/catalogue/catalogue.json");
        if (!file.open(QIODevice::ReadOnly)) return {};
        return QJsonDocument::fromJson(file.readAll()).object()["entries"].toArray();
    }

private Q_SLOTS:
    void initTestCase() {
        Prepared single, multi;
        const QStringList base{"train", "--network", "1-3-1", "--data", "toy:sine", "--steps", "20", "--quiet"};
        single.arguments = base + QStringList{"--optimizer", "momentum", "--out", templates_.filePath("run-single")};
        multi.arguments = base + QStringList{"--optimizer", "momentum,adam", "--out", templates_.filePath("run-multi")};
        runAll({&single, &multi});
        QVERIFY2(single.status == 0 && multi.status == 0, qPrintable(single.err + multi.err));

        const QJsonArray entries = catalogue();
        QVERIFY2(entries.size() >= 100, qPrintable(QString::number(entries.size())));
        std::vector<Prepared*> all;
        for (const QJsonValue& entry : entries) {
            const QString name = entry["name"].toString();
            QVERIFY2(!results_.contains(name), qPrintable("two entries named " + name));
            all.push_back(&(results_[name] = prepare(entry.toObject())));
        }
        runAll(all);
    }

    void badInput_data() {
        QTest::addColumn<QJsonObject>("entry");
        for (const QJsonValue& entry : catalogue())
            QTest::newRow(qPrintable(entry["name"].toString())) << entry.toObject();
    }
    void badInput() {
        QFETCH(QJsonObject, entry);
        const Prepared& result = results_.at(entry["name"].toString());
        QVERIFY2(result.problem.isEmpty(), qPrintable(result.problem));
        const QString expected = substitute(entry["message"].toString(), result.folder->path());
        const int status = entry["status"].toInt();
        QVERIFY2(
            result.status == status,
            qPrintable(
                QString("exit status %1, expected %2; stderr: %3").arg(result.status).arg(status).arg(result.err)));
        QVERIFY2(!expected.isEmpty() && result.err.contains(expected),
                 qPrintable("expected \"" + expected + "\" in: " + result.err));
        QVERIFY2(!result.err.contains("bad_alloc") && !result.err.contains("terminate called"),
                 qPrintable(result.err));  // refused, not crashed
    }
};

QTEST_GUILESS_MAIN(TestCatalogue)
#include "test_catalogue.moc"
