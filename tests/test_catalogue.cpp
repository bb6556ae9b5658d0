// The catalogue of bad input (issue 9): every malformed input in tests/catalogue/catalogue.json is
// given to the built CLI as a child process, which must exit with the entry's status and print the
// entry's message fragment (the fragment names the file, line or field and what was expected).
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

class TestCatalogue : public QObject {
    Q_OBJECT
    QTemporaryDir templates_;  // the run folders every run-folder entry starts from

    QString runCli(const QStringList& arguments, const QProcessEnvironment& environment, int& status) {
        QProcess process;
        process.setProcessEnvironment(environment);
        process.start(MOMENTUM_LAB_CLI, arguments);
        // Bad input is refused at once; a hang (a FIFO read without a writer) fails the entry.
        if (!process.waitForFinished(20000)) {
            process.kill();
            process.waitForFinished();
            status = -2;
            return "timed out after 20 s";
        }
        status = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
        return QString::fromUtf8(process.readAllStandardError());
    }

private Q_SLOTS:
    void initTestCase() {
        const QStringList base{"train", "--network", "1-3-1", "--data", "toy:sine", "--steps", "20", "--quiet"};
        int status = 0;
        const QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        runCli(base + QStringList{"--optimizer", "momentum", "--out", templates_.filePath("run-single")}, environment, status);
        QCOMPARE(status, 0);
        runCli(base + QStringList{"--optimizer", "momentum,adam", "--out", templates_.filePath("run-multi")}, environment, status);
        QCOMPARE(status, 0);
    }

    void badInput_data() {
        QTest::addColumn<QJsonObject>("entry");
        QFile file(QStringLiteral(MOMENTUM_LAB_SOURCE_DIR) + "/tests/catalogue/catalogue.json");
        QVERIFY(file.open(QIODevice::ReadOnly));
        QJsonParseError error;
        const QJsonArray entries = QJsonDocument::fromJson(file.readAll(), &error).object()["entries"].toArray();
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        QVERIFY2(entries.size() >= 100, qPrintable(QString::number(entries.size())));
        QSet<QString> names;
        for (const QJsonValue& entry : entries) {
            const QString name = entry["name"].toString();
            QVERIFY2(!names.contains(name), qPrintable("two entries named " + name));
            names.insert(name);
            QTest::newRow(qPrintable(name)) << entry.toObject();
        }
    }
    void badInput() {
        QFETCH(QJsonObject, entry);
        QTemporaryDir tmp;
        const QString root = tmp.path();
        for (const QJsonValue& setup : entry["setup"].toArray()) {
            if (setup.toString().startsWith("idx")) writeIdxSet(root + "/idx", setup.toString() == "idx-gz" ? ".gz" : "");
            else QVERIFY2(copyFolder(templates_.filePath(setup.toString()), root + "/run"), qPrintable(setup.toString()));
        }
        const QJsonObject files = entry["files"].toObject();
        for (auto it = files.begin(); it != files.end(); ++it) {
            const QString path = root + "/" + it.key();
            QDir().mkpath(QFileInfo(path).absolutePath());
            QFile::remove(path);
            QDir(path).removeRecursively();
            const QJsonObject special = it.value().toObject();  // empty for plain text
            if (special["remove"].toBool()) {
                continue;
            } else if (special["fifo"].toBool()) {
                QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
            } else if (special["folder"].toBool()) {
                QVERIFY(QDir().mkpath(path));
            } else {
                QFile file(path);
                QVERIFY(file.open(QIODevice::WriteOnly));
                file.write(contentOf(it.value()));
            }
        }
        QStringList arguments;
        for (const QJsonValue& argument : entry["args"].toArray()) arguments << substitute(argument.toString(), root);
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        const QJsonObject env = entry["env"].toObject();
        for (auto it = env.begin(); it != env.end(); ++it) environment.insert(it.key(), it.value().toString());

        int status = 0;
        const QString err = runCli(arguments, environment, status);
        const QString expected = substitute(entry["message"].toString(), root);
        QVERIFY2(status == entry["status"].toInt(),
                 qPrintable(QString("exit status %1, expected %2; stderr: %3").arg(status).arg(entry["status"].toInt()).arg(err)));
        QVERIFY2(!expected.isEmpty() && err.contains(expected), qPrintable("expected \"" + expected + "\" in: " + err));
        QVERIFY2(!err.contains("bad_alloc") && !err.contains("terminate called"), qPrintable(err));  // refused, not crashed
    }
};

QTEST_GUILESS_MAIN(TestCatalogue)
#include "test_catalogue.moc"
