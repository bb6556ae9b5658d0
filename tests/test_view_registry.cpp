// The view registry (ui/views/ViewRegistry.h): every registered view draws its figures for a run
// folder that recorded everything (snapshots, diagnostics, curvature, the Hessian spectrum; a conv
// network, so the feature maps too), and leaves them out with a reason for a folder without
// snapshots; `momentum-lab-cli export` writes or leaves out exactly the registry's figures; and
// export --quantity weight-change works on a CLI run folder (its initial weights are read).
#include "TestSettings.h"
#include "cli/Cli.h"
#include "command/ExportCommand.h"
#include "export/ViewFigures.h"
#include "model/ComparisonHistory.h"
#include "model/RunComparison.h"
#include "runfolder/RunFolderReader.h"
#include "views/LandscapeView.h"
#include "model/RunSelection.h"
#include "views/ViewRegistry.h"

#include <QDir>
#include <QFile>
#include <QImage>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <set>

using namespace ml;

namespace {

// The views of one headless window, as `momentum-lab-cli export` makes them.
struct Views {
    QWidget host;
    RunComparison runs;
    RunSelection selection;
    ComparisonHistory history;
    ViewSet views{{&selection, &runs, &history}, &host};

    std::vector<std::string> open(const QString& directory) {
        const RunFolder folder = readRunFolder(directory);
        runs.showFolder(folder);
        views.startOver(folder.experiment, false);
        return views.showFolder(folder);
    }
};

// Share of pixels that are not the background (the corner's colour).
double inkOf(const QImage& image) {
    long ink = 0;
    const QRgb background = image.pixel(0, 0);
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            if (image.pixel(x, y) != background) ++ink;
    return double(ink) / (double(image.width()) * image.height());
}

// The figure drawn over the input plane: only for networks of 1 or 2 inputs, so not for the full
// folder's conv network (8 × 8 images).
const QString kInputPlaneOnly = "network-output";

QString readText(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

}  // namespace

class TestViewRegistry : public QObject {
    Q_OBJECT

    QTemporaryDir root_;
    QString full_;   // snapshots, diagnostics, curvature, spectrum; a conv network
    QString plain_;  // metrics only: no snapshot, no final weights

private Q_SLOTS:
    void initTestCase() {
        useOwnSettingsFolder();
        full_ = root_.filePath("full");
        QCOMPARE(runCli({"momentum-lab-cli",
                         "train",
                         "--network",
                         "1x8x8-conv4k3-pool2-10",
                         "--activation",
                         "relu",
                         "--loss",
                         "cross-entropy",
                         "--data",
                         "digits",
                         "--batch",
                         "32",
                         "--steps",
                         "30",
                         "--snapshots-every",
                         "10",
                         "--diagnostics-every",
                         "10",
                         "--curvature-every",
                         "10",
                         "--hessian-spectrum",
                         "--optimizer",
                         "momentum,adam",
                         "--quiet",
                         "--out",
                         full_}),
                 0);
        plain_ = root_.filePath("plain");
        QCOMPARE(
            runCli({"momentum-lab-cli", "train", "--network", "2-4-2", "--loss", "cross-entropy", "--data", "toy:xor",
                    "--batch", "50", "--steps", "20", "--optimizer", "momentum,sgd", "--quiet", "--out", plain_}),
            0);
        for (const char* run : {"momentum", "sgd"})
            QVERIFY(QFile::remove(QDir(plain_).filePath(QString(run) + "/weights_final.json")));
    }

    // Names are file stems: unique over the registry, and every view's dock has its own key.
    void registeredNamesAreUnique() {
        std::set<QString> views, docks, figures;
        for (const ViewRegistration& view : viewRegistry()) {
            QVERIFY2(views.insert(view.name).second, qPrintable(view.name));
            if (view.dock) QVERIFY2(docks.insert(view.dock->objectName).second, qPrintable(view.dock->objectName));
        }
        Views made;
        QCOMPARE(made.views.size(), viewRegistry().size());
        for (const ViewFigure& figure : made.views.figures())
            QVERIFY2(figures.insert(figure.name).second, qPrintable(figure.name));
    }

    void everyViewDrawsAFigureOfAFullFolder() {
        Views made;
        const std::vector<std::string> problems = made.open(full_);
        QVERIFY2(problems.empty(), problems.empty() ? "" : problems.front().c_str());
        made.views.find<LandscapeView>()->setGridSize(11);  // the smallest useful grid: quick
        made.views.chooseForExport();
        made.views.computeOnRequest();
        FigureOptions options;
        options.dpi = 48;
        const std::vector<ViewFigure> figures = made.views.figures();
        QVERIFY(figures.size() >= 12);
        for (const ViewFigure& figure : figures) {
            if (figure.name == kInputPlaneOnly) {  // tests/test_output_view.cpp draws it for a toy folder
                QVERIFY2(figure.leftOutBecause.contains("has 64 inputs"), qPrintable(figure.leftOutBecause));
                continue;
            }
            QVERIFY2(figure.leftOutBecause.isEmpty(), qPrintable(figure.name + ": " + figure.leftOutBecause));
            const QImage png = QImage::fromData(namedFigure(figure).figure.render(FigureFormat::Png, options), "PNG");
            QVERIFY2(!png.isNull() && inkOf(png) > 0.01, qPrintable(figure.name + " is blank"));
        }
    }

    // Without snapshots or final weights only the convergence plot has something to show; every
    // other figure is left out with a one-line reason.
    void aFolderWithoutSnapshotsLeavesViewsOutWithTheirReasons() {
        Views made;
        made.open(plain_);
        made.views.chooseForExport();
        made.views.computeOnRequest();
        for (const ViewFigure& figure : made.views.figures()) {
            if (figure.name == "convergence") {
                QVERIFY2(figure.leftOutBecause.isEmpty(), qPrintable(figure.leftOutBecause));
                continue;
            }
            QVERIFY2(!figure.leftOutBecause.isEmpty() && !figure.leftOutBecause.contains('\n'),
                     qPrintable(figure.name + " is not left out"));
        }
    }

    // The CLI's export writes every registered figure it can and names each one left out: as many
    // as the registry has, for either folder.
    void cliExportCoversTheRegistry() {
        const std::size_t registered = Views().views.figures().size();
        const QString out = root_.filePath("export-full");
        QCOMPARE(
            runExportCommand({full_, "--out", out, "--compute", "--dpi", "48", "--width", "300", "--height", "200"}),
            0);
        const QString index = readText(QDir(out).filePath("index.html"));
        const auto count = [](const QString& text, const QString& pattern) {
            return std::size_t(text.count(QRegularExpression(pattern)));
        };
        QCOMPARE(count(index, "<img src="), registered - 1);  // all but the output view (kInputPlaneOnly)
        QCOMPARE(count(index, "<li>"), std::size_t(1));
        QVERIFY(index.contains("has 64 inputs"));
        QCOMPARE(std::size_t(QDir(out).entryList({"*.png"}).size()), registered - 1);

        const QString plainOut = root_.filePath("export-plain");
        QCOMPARE(runExportCommand({plain_, "--out", plainOut, "--dpi", "48"}), 0);
        const QString plainIndex = readText(QDir(plainOut).filePath("index.html"));
        QCOMPARE(count(plainIndex, "<img src=") + count(plainIndex, "<li>"), registered);
        QVERIFY(plainIndex.contains("no snapshot recorded for the runs shown"));
    }

    // weight-change is weights minus weights_initial.json: a CLI run folder has them, with
    // snapshots and without (its final weights).
    void exportDrawsTheWeightChangeOfACliRunFolder() {
        const QString out = root_.filePath("weight-change");
        QCOMPARE(runExportCommand({full_, "--out", out, "--quantity", "weight-change", "--dpi", "48"}), 0);
        QVERIFY(QFileInfo::exists(QDir(out).filePath("network-diagram.png")));
        const QString finalOnly = root_.filePath("final-only");
        QCOMPARE(
            runCli({"momentum-lab-cli", "train", "--network", "2-4-2", "--loss", "cross-entropy", "--data", "toy:xor",
                    "--batch", "50", "--steps", "20", "--optimizer", "momentum", "--quiet", "--out", finalOnly}),
            0);
        QCOMPARE(runExportCommand({finalOnly, "--out", root_.filePath("weight-change-final"), "--quantity",
                                   "weight-change", "--step", "20", "--dpi", "48"}),
                 0);
        // The explainer follows a connection there, but final weights alone explain no update: it
        // says so rather than asking for a click.
        QVERIFY(readText(QDir(root_.filePath("weight-change-final")).filePath("index.html"))
                    .contains("Update explainer: not explained: the snapshot keeps no gradient or update here"));
    }
};

QTEST_MAIN(TestViewRegistry)
#include "test_view_registry.moc"
