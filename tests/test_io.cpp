// The I/O module and the run-folder formats: atomic writes and their errors, the JSON loader's
// messages, the status vocabulary both ways, the folder layout, the CSV forms and the weights
// file's spelling of non-finite values; number text (std::to_chars) reading back bit for bit; the pgfplots writer.
#include "TestSupport.h"
#include "io/FileError.h"
#include "io/Files.h"
#include "io/JsonFile.h"
#include "io/PgfplotsDocument.h"
#include "runfolder/RunCsv.h"
#include "runfolder/RunFolderLayout.h"
#include "train/RunStatus.h"
#include "runfolder/WeightsFile.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>

using namespace ml;

namespace {

// `count` finite floats from random bit patterns (every exponent, denormals included), plus the
// edge values.
std::vector<float> randomFiniteFloats(std::size_t count) {
    std::mt19937 random(12345);
    std::vector<float> values{0.0f,           -0.0f,          1.0f, 0.1f, -3.0f, 16777216.0f, 1e-45f, -1.17549435e-38f,
                              3.40282347e38f, -3.40282347e38f};
    while (values.size() < count) {
        const float value = std::bit_cast<float>(static_cast<std::uint32_t>(random()));
        if (std::isfinite(value)) values.push_back(value);
    }
    return values;
}

QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

}  // namespace

class TestIo : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void atomicWriteReplacesTheWholeFile() {
        QTemporaryDir tmp;
        const QString path = tmp.filePath("a.txt");
        writeFileAtomically(path, "first");
        writeFileAtomically(path, "second");
        QCOMPARE(readAll(path), QByteArray("second"));
        QCOMPARE(QDir(tmp.path()).entryList(QDir::Files), QStringList{"a.txt"});  // no temporary left
    }

    void unwritablePathThrowsFileErrorNamingIt() {
        QTemporaryDir tmp;
        const QString path = tmp.filePath("missing-folder/a.txt");
        try {
            writeFileAtomically(path, "x");
            QFAIL("no FileError");
        } catch (const FileError& error) {
            QCOMPARE(error.path(), path);
            QVERIFY(!error.reason().isEmpty());
            QVERIFY2(QString(error.what()).startsWith(path + ": cannot write ("), error.what());
        }
    }

    void uncommittedFileLeavesTheOldOne() {
        QTemporaryDir tmp;
        const QString path = tmp.filePath("metrics.csv");
        writeFileAtomically(path, "old");
        {
            AtomicFile file(path);
            file.write("new, never committed");
        }
        QCOMPARE(readAll(path), QByteArray("old"));
        AtomicFile file(path);
        file.write("new");
        file.commit();
        QCOMPARE(readAll(path), QByteArray("new"));
    }

    // A study trial's files (its marker, written later, says they are whole): each is written in
    // place at once, replacing an older one; commit() syncs every file and log; a write or sync
    // that fails names its path.
    void durableBatchWritesInPlaceAndSyncsOnCommit() {
        QTemporaryDir tmp;
        const QString a = tmp.filePath("config.json"), b = tmp.filePath("summary.csv"),
                      log = tmp.filePath("metrics.csv");
        writeFileAtomically(b, "old");
        AppendOnlyFile metrics(log);
        metrics.append("step\n1\n");
        metrics.closeUnsynced();
        DurableBatch batch;
        batch.write(a, "{}");
        batch.write(b, QByteArray(100000, 'x'));
        batch.syncOnCommit(log);
        QCOMPARE(readAll(a), QByteArray("{}"));
        QCOMPARE(readAll(b), QByteArray(100000, 'x'));
        batch.commit();
        QCOMPARE(readAll(a), QByteArray("{}"));
        QCOMPARE(readAll(b), QByteArray(100000, 'x'));
        QCOMPARE(readAll(log), QByteArray("step\n1\n"));
        QCOMPARE(QDir(tmp.path()).entryList(QDir::Files), (QStringList{"config.json", "metrics.csv", "summary.csv"}));

        const QString unwritable = tmp.filePath("missing-folder/c.json");
        try {
            batch.write(unwritable, "c");
            QFAIL("no FileError for a file in a missing folder");
        } catch (const FileError& error) {
            QCOMPARE(error.path(), unwritable);
        }
        DurableBatch failing;
        const QString missing = tmp.filePath("gone.csv");
        failing.write(tmp.filePath("c.json"), "c");
        failing.syncOnCommit(missing);
        try {
            failing.commit();
            QFAIL("no FileError");
        } catch (const FileError& error) {
            QCOMPARE(error.path(), missing);
        }
    }

    void jsonErrorsNameFileLineAndColumn() {
        // The "}" where a value should be is line 2, column 15; Qt's offset points just past it.
        const QString message =
            test::inputErrorOf([] { parseJsonObject("{\"a\": 1,\n  \"b\": [1, 2, }", "EXP.json"); });
        QVERIFY2(message.startsWith("EXP.json:2:16: invalid JSON: "), qPrintable(message));
        QCOMPARE(test::inputErrorOf([] { parseJsonObject("[1, 2]", "W.json"); }),
                 QString("W.json: expected a JSON object { ... }"));
        QTemporaryDir tmp;
        const QString missing = tmp.filePath("none.json");
        QVERIFY(test::inputErrorOf([&] { readJsonObject(missing); }).startsWith(missing + ": cannot open"));
        writeFileAtomically(tmp.filePath("ok.json"), "{\"x\": 2}");
        QCOMPARE(readJsonObject(tmp.filePath("ok.json")).value("x").toInt(), 2);
    }

    // A key given twice in one object is refused where it appears again; the same key in different
    // objects, a key-like string value, and escapes are read as the parser reads them.
    void jsonKeysGivenTwiceAreRefused() {
        QCOMPARE(
            test::inputErrorOf([] { parseJsonObject("{\"steps\": 30,\n \"steps\": 60}", "E.json"); }),
            QString(
                "E.json:2:2: key 'steps' appears twice in one object (first at E.json:1:2); expected each key once"));
        QVERIFY(test::inputErrorOf([] {
                    parseJsonObject("{\"layers\": [{\"w\": [1]}], \"x\": {\"a\": \"}\", \"b\": 1}, \"layers\": []}",
                                    "W.json");
                }).startsWith("W.json:1:51: key 'layers' appears twice"));
        QVERIFY(test::inputErrorOf([] {
                    parseJsonObject("{\"runs\": [{\"lr\": 1, \"lr\": 2}]}", "E.json");
                }).contains("key 'lr' appears twice"));
        QVERIFY(test::inputErrorOf([] {
                    parseJsonObject("{\"steps\": 1, \"st\\u0065ps\": 2}", "E.json");
                }).contains("key 'steps' appears twice"));
        const QJsonObject fine = parseJsonObject(
            "{\"a\": {\"k\": 1}, \"b\": {\"k\": \"k\"}, \"c\": [\"k\", \"k\"], \"d\": \"a\\\"b\", \"k\": [{\"k\": 1}, {\"k\": 2}]}",
            "F.json");
        QCOMPARE(fine.size(), 5);
    }

    void statusTextRoundTrips() {
        const std::pair<RunStatus, std::string> expected[] = {{RunStatus::Pending, "pending"},
                                                              {RunStatus::Running, "running"},
                                                              {RunStatus::Done, "done"},
                                                              {RunStatus::Stopped, "stopped"}};
        for (const auto& [status, text] : expected) {
            QCOMPARE(statusText(status), text);
            QVERIFY(parseStatusText(text)->status == status);
        }
        QCOMPARE(statusText(RunStatus::Diverged, 12), std::string("diverged at step 12"));
        const std::optional<ParsedStatus> diverged = parseStatusText("diverged at step 1234567");
        QVERIFY(diverged && diverged->status == RunStatus::Diverged);
        QCOMPARE(diverged->divergedAtStep, 1234567L);
        for (const char* bad :
             {"Done", "diverged at step", "diverged at step x", "diverged at step 3 ", "", "finished"})
            QVERIFY2(!parseStatusText(bad), bad);
    }

    void layoutOfOneAndOfSeveralRuns() {
        const RunFolderLayout one("/r", {"momentum"});
        QCOMPARE(one.runDirectory(0), QString("/r"));
        QCOMPARE(one.metricsFile(0), QString("/r/metrics.csv"));
        QCOMPARE(one.finalWeightsFile(0), QString("/r/weights_final.json"));
        QCOMPARE(one.initialWeightsRelative(0), std::string("weights_initial.json"));
        QVERIFY(!one.hasSummary());
        const RunFolderLayout two("/r", {"momentum", "adam"});
        QCOMPARE(two.runDirectory(1), QString("/r/adam"));
        QCOMPARE(two.runConfigFile(1), QString("/r/adam/config.json"));
        QCOMPARE(two.initialWeightsFile(0), QString("/r/momentum/weights_initial.json"));
        QCOMPARE(two.initialWeightsRelative(0), std::string("momentum/weights_initial.json"));
        QCOMPARE(two.configFile(), QString("/r/config.json"));
        QCOMPARE(two.summaryFile(), QString("/r/summary.csv"));
        QVERIFY(two.hasSummary());
        // config.json's "init" is relative to the folder, whatever the folder was called.
        QCOMPARE(RunFolderLayout("out", {"a", "b"}).initialWeightsRelative(1), std::string("b/weights_initial.json"));
        QCOMPARE(RunFolderLayout("out", {"a", "b"}).finalWeightsFile(0), QString("out/a/weights_final.json"));
    }

    void summaryCsvRoundTripsAndRefusesUnknownStatus() {
        RunResult diverged;
        diverged.label = "wild";
        diverged.status = RunStatus::Diverged;
        diverged.divergedAtStep = 7;
        diverged.steps = 6;
        diverged.finalTrainLoss = 0.5f;
        diverged.wallMs = 1.25;
        RunResult stopped;
        stopped.label = "calm";
        stopped.status = RunStatus::Stopped;
        const QByteArray csv = summaryHeader() + summaryRow(diverged) + summaryRow(stopped);
        QCOMPARE(summaryRow(diverged), QByteArray("wild,0.5,,,6,1.250,diverged at step 7\n"));
        const std::vector<RunResult> back = parseSummaryCsv(csv, "summary.csv");
        QCOMPARE(back.size(), std::size_t(2));
        QCOMPARE(back[0].label, std::string("wild"));
        QVERIFY(back[0].status == RunStatus::Diverged);
        QCOMPARE(back[0].divergedAtStep, 7L);
        QCOMPARE(back[0].finalTrainLoss, 0.5f);
        QVERIFY(std::isnan(back[0].finalTestLoss));
        QVERIFY(back[1].status == RunStatus::Stopped);
        const QString message =
            test::inputErrorOf([] { parseSummaryCsv(summaryHeader() + "a,1,1,1,3,1.0,finished\n", "S.csv"); });
        QVERIFY2(message.startsWith("S.csv:2: column status: 'finished' is not one of pending, running"),
                 qPrintable(message));
    }

    void metricsCsvErrorsNameLineAndColumn() {
        const QByteArray csv = metricsHeader() + "1,1,0.5,,,0.1\n2,1,abc,,,0.2\n";
        const QString message = test::inputErrorOf([&] { parseMetricsCsv(csv, "m.csv", 0); });
        QCOMPARE(message, QString("m.csv:3: column train_loss: 'abc' is not a number"));
        QCOMPARE(test::inputErrorOf([] { parseMetricsCsv("step,loss\n", "m.csv", 0); }).left(25),
                 QString("m.csv:1: expected the hea"));
    }

    // The reader parses cells in place (std::from_chars) with the syntax QByteArray::toDouble took:
    // blanks around a number, a leading '+', "inf"; anything else in a cell is refused by name.
    void metricsCsvNumberCellsKeepTheirSyntax() {
        const QByteArray csv = metricsHeader() + "1,1, 0.5 ,+inf,,1\r\n\n2,2,-inf,1e-3,0.25,+2.5\n";
        const std::vector<StepMetrics> rows = parseMetricsCsv(csv, "m.csv", 3);
        QCOMPARE(rows.size(), std::size_t(2));
        QCOMPARE(rows[0].run, 3);
        QCOMPARE(rows[0].trainLoss, 0.5f);
        QVERIFY(std::isinf(rows[0].testLoss) && rows[0].testLoss > 0);
        QVERIFY(std::isnan(rows[0].testAccuracy));
        QCOMPARE(rows[1].step, 2L);
        QVERIFY(std::isinf(rows[1].trainLoss) && rows[1].trainLoss < 0);
        QCOMPARE(rows[1].testLoss, 1e-3f);
        QCOMPARE(rows[1].wallMs, 2.5);
        for (const char* cell : {"0x10", "1e", "+-1", "1 2", "+", "5%"}) {
            const QByteArray bad = metricsHeader() + "1,1," + cell + ",,,1\n";
            QCOMPARE(test::inputErrorOf([&] { parseMetricsCsv(bad, "m.csv", 0); }),
                     QString("m.csv:2: column train_loss: '%1' is not a number").arg(cell));
        }
        QCOMPARE(test::inputErrorOf([] { parseMetricsCsv(metricsHeader() + "1,1,0.5,,\n", "m.csv", 0); }),
                 QString("m.csv:2: has 5 fields; expected 6"));
        QCOMPARE(test::inputErrorOf([] { parseMetricsCsv(metricsHeader() + "1,,0.5,,,1\n", "m.csv", 0); }),
                 QString("m.csv:2: column epoch is empty"));
        // A last row without its line break was cut off by a kill: ignored.
        QCOMPARE(parseMetricsCsv(metricsHeader() + "1,1,0.5,,,1\n2,1,0.4", "m.csv", 0).size(), std::size_t(1));
    }

    void weightsFileRoundTripsBitForBit() {
        // 100,000 values: the size of a 784-128-10 network's weights.
        const std::vector<float> values = randomFiniteFloats(100199);
        Parameters parameters{Matrix(100, 801), Matrix(199, 101)};  // 80,100 + 20,099 values
        NetworkSpec network;
        network.setLayers("800-100-199");
        std::size_t next = 0;
        for (Matrix& layer : parameters)
            for (Eigen::Index i = 0; i < layer.size(); ++i) layer.data()[i] = values[next++];
        const QByteArray json = weightsToJson(parameters, network);
        const Parameters back = weightsFromJson(json, "w.json", network);
        QCOMPARE(weightsToJson(back, network), json);  // the file's bytes round-trip
        QCOMPARE(back.size(), parameters.size());
        for (std::size_t l = 0; l < parameters.size(); ++l) {
            QCOMPARE(back[l].rows(), parameters[l].rows());
            QCOMPARE(back[l].cols(), parameters[l].cols());
            for (Eigen::Index i = 0; i < back[l].size(); ++i) {
                // Every value bit for bit; -0 is written (and read as) 0, the one documented exception.
                const float written = parameters[l].data()[i] == 0.0f ? 0.0f : parameters[l].data()[i];
                if (std::bit_cast<std::uint32_t>(back[l].data()[i]) != std::bit_cast<std::uint32_t>(written))
                    QFAIL(qPrintable(QString("layer %1 value %2: %3 read back as %4")
                                         .arg(l)
                                         .arg(i)
                                         .arg(double(parameters[l].data()[i]), 0, 'g', 9)
                                         .arg(double(back[l].data()[i]), 0, 'g', 9)));
            }
        }
    }

    void metricsRowsRoundTripBitForBitIntoOneBuffer() {
        const std::vector<float> values = randomFiniteFloats(30000);
        QByteArray csv = metricsHeader();
        csv.reserve(1 << 22);
        const qsizetype capacity = csv.capacity();
        for (std::size_t i = 0; i < values.size(); i += 3) {
            StepMetrics m;
            m.step = long(i / 3 + 1);
            m.epoch = 7;
            m.trainLoss = values[i];
            m.testLoss = values[i + 1];
            m.testAccuracy = values[i + 2];
            m.wallMs = 0.001 * double(i);
            appendMetricsRow(csv, m);
        }
        QCOMPARE(csv.capacity(), capacity);  // rows are appended into the one buffer
        const std::vector<StepMetrics> back = parseMetricsCsv(csv, "m.csv", 0);
        QCOMPARE(back.size(), values.size() / 3);
        for (std::size_t r = 0; r < back.size(); ++r) {
            const float written[3] = {values[3 * r], values[3 * r + 1], values[3 * r + 2]};
            const float read[3] = {back[r].trainLoss, back[r].testLoss, back[r].testAccuracy};
            for (int c = 0; c < 3; ++c)
                QCOMPARE(std::bit_cast<std::uint32_t>(read[c]), std::bit_cast<std::uint32_t>(written[c]));
            QVERIFY(std::abs(back[r].wallMs - 0.001 * double(3 * r)) < 1e-9);  // to the microsecond
        }
    }

    void nonFiniteWeightsAreWrittenAsStringsAndReadBack() {
        Matrix layer(1, 4);
        layer << NAN, INFINITY, -INFINITY, 0.25f;
        NetworkSpec network;
        network.setSizes({3, 1});
        const QByteArray json = weightsToJson({layer}, network);
        QCOMPARE(json, QByteArray(R"({"layers":[{"bias":[0.25],"weight":[["nan","inf","-inf"]]}]})"));
        const Parameters back = weightsFromJson(json, "w.json", network);
        QVERIFY(std::isnan(back[0](0, 0)));
        QCOMPARE(back[0](0, 1), INFINITY);
        QCOMPARE(back[0](0, 2), -INFINITY);
        QCOMPARE(back[0](0, 3), 0.25f);
        const QString message = test::inputErrorOf(
            [&] { weightsFromJson(R"({"layers":[{"bias":[0.25],"weight":[[null, 1, 2]]}]})", "w.json", network); });
        QVERIFY2(message.startsWith("w.json: layers[0].weight[0][0]: expected a number"), qPrintable(message));
    }

    // The one pgfplots writer: labels escaped for pdflatex, unique column stems, columns of
    // different lengths padded with nan, every plot reading the CSV named beside the .tex.
    void pgfplotsDocumentWritesTexAndCsv() {
        QCOMPARE(PgfplotsDocument::latex(QString::fromUtf8("lr_1 & 50% \u03bc\u00d7{x}")),
                 QByteArray("lr\\_1 \\& 50\\% $\\mu$$\\times$\\{x\\}"));
        PgfplotsDocument doc("fig.csv");
        const QByteArray a = doc.stem("Neuron mean"), b = doc.stem("neuron-mean"), c = doc.stem("\u03bc");
        QCOMPARE(a, QByteArray("neuron-mean"));
        QCOMPARE(b, QByteArray("neuron-mean-2"));
        QCOMPARE(c, QByteArray("series2"));
        doc.addColumn(a + "_x", {1, 2, 3});
        doc.addColumn(a + "_y", {0.5, 0.25, 0.125});
        doc.addColumn(b + "_x", {1});
        doc.beginAxis("xlabel={step}");
        doc.addPlot("draw=red", a + "_x", a + "_y");
        doc.addLegendEntry("a_b");
        doc.endAxis();
        const PgfplotsFiles files = doc.render("title", 120, 80);
        QCOMPARE(files.csv,
                 QByteArray("neuron-mean_x,neuron-mean_y,neuron-mean-2_x\n1,0.5,1\n2,0.25,nan\n3,0.125,nan\n"));
        QVERIFY2(files.tex.contains(
                     "\\begin{axis}[xlabel={step}]\n\\addplot[draw=red] table[x=neuron-mean_x, y=neuron-mean_y, "
                     "col sep=comma] {fig.csv};\n\\addlegendentry{a\\_b}\n\\end{axis}\n"),
                 files.tex.constData());
        QVERIFY(files.tex.contains("120.0 mm x 80.0 mm"));
        QCOMPARE(PgfplotsDocument::millimetres(160.08), QByteArray("160.1mm"));
    }

    // Every character the writer maps compiles inside a legend entry (TikZ redefines \to there, so
    // the arrow of a fork's label "momentum@60→neuron-mean" needs \rightarrow), when TeX Live with
    // pgfplots and preview is installed (scripts/setup.sh installs them).
    void pgfplotsLabelsCompile() {
        QProcess which;
        which.start("kpsewhich", {"pgfplots.sty", "preview.sty"});
        if (!which.waitForFinished(20000) || which.readAllStandardOutput().count('\n') != 2 ||
            QStandardPaths::findExecutable("pdflatex").isEmpty())
            QSKIP("pdflatex with pgfplots and preview is not installed (kpsewhich pgfplots.sty preview.sty)");
        QTemporaryDir dir;
        PgfplotsDocument doc("labels.csv");
        doc.addColumn("x", {0, 1});
        doc.addColumn("y", {0, 1});
        doc.beginAxis("xlabel={" + PgfplotsDocument::latex(QString::fromUtf8("lr \u00b1 \u03bc")) + "}");
        for (const char* label : {"momentum@60\u2192neuron-mean", "\u03bc\u00d7\u03bb \u2212 \u03b5 \u03c3",
                                  "a \u2013 b \u2014 c\u2026", "\u2264 \u2265 \u00b7 \u2248 50% & _{x}"}) {
            doc.addPlot("draw=red", "x", "y");
            doc.addLegendEntry(QString::fromUtf8(label));
        }
        doc.endAxis();
        const PgfplotsFiles files = doc.render("labels", 120, 80);
        QFile tex(dir.filePath("labels.tex")), csv(dir.filePath("labels.csv"));
        QVERIFY(tex.open(QIODevice::WriteOnly) && tex.write(files.tex) == files.tex.size());
        QVERIFY(csv.open(QIODevice::WriteOnly) && csv.write(files.csv) == files.csv.size());
        tex.close();
        csv.close();
        QProcess latex;
        latex.setWorkingDirectory(dir.path());
        latex.start("pdflatex", {"-interaction=nonstopmode", "-halt-on-error", "labels.tex"});
        QVERIFY(latex.waitForFinished(120000));
        QVERIFY2(latex.exitCode() == 0, latex.readAllStandardOutput().right(3000).constData());
    }
};

QTEST_GUILESS_MAIN(TestIo)
#include "test_io.moc"
