// The desktop study views on a study folder made here by the CLI: the results table shows core's
// aggregation (summary.csv and the final runs' own test losses), the band plot one band per
// optimizer, the sensitivity plot one line per optimizer on a log axis, both figures export, and
// folders that are not readable studies give messages naming the folder or file.
#include "TestSupport.h"
#include "cli/Cli.h"
#include "command/ExportCommand.h"
#include "export/Figure.h"
#include "export/PgfplotsFigure.h"
#include "study/PerformanceProfilePlot.h"
#include "io/Files.h"
#include "stats/Descriptive.h"
#include "study/HyperParameterHeatmap.h"
#include "study/ParallelCoordinatesPlot.h"
#include "study/SensitivityPlot.h"
#include "study/Study.h"
#include "study/StudyBandPlot.h"
#include "study/StudyResultsTable.h"
#include "study/StudyRunDialog.h"
#include "study/StudyWindow.h"
#include "study/TrialOutcome.h"
#include "runfolder/RunCsv.h"

#include <QApplication>
#include <QCheckBox>
#include <QHeaderView>
#include <QComboBox>
#include <QMessageBox>
#include <QTimer>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QPushButton>
#include <QStandardPaths>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <qcustomplot.h>

#include <cmath>
#include <set>
#include <iostream>
#include <sstream>

using namespace ml;

namespace {

// tests/studies/tiny.json: two optimizers, 3 tuning trials each, 3 seeds, 60 steps (under a second).
QByteArray tinyStudy() { return readFileBytes(QStringLiteral(MOMENTUM_LAB_SOURCE_DIR "/tests/studies/tiny.json")); }

void writeFile(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(bytes);
}

int runStudyCli(const QStringList& arguments) {
    std::ostringstream sink;
    std::streambuf* previous = std::cerr.rdbuf(sink.rdbuf());
    const int status = runCli(QStringList{"momentum-lab-cli"} + arguments);
    std::cerr.rdbuf(previous);
    return status;
}

QString messageOf(const QString& folder) {
    return test::inputErrorOf([&] { loadStudyResults(folder); });
}

double cell(const StudyResultsTable& table, int row, int column) {
    return table.item(row, column)->data(Qt::UserRole).toDouble();
}

bool near(double a, double b) {  // summary.csv keeps 9 significant digits
    return (std::isnan(a) && std::isnan(b)) || a == b || std::abs(a - b) <= 1e-8 * std::max(std::abs(a), std::abs(b));
}

}  // namespace

class TestStudyViews : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;
    QString study_;

    // lr x momentum, quasi-random (heat-maps with cells), run once on first use.
    QString twoParameterStudy() {
        if (QFileInfo::exists(tmp_.filePath("two/study.json"))) return tmp_.filePath("two");
        writeFile(tmp_.filePath("two.json"), R"({
  "name": "two", "network": "2-8-2", "activation": "tanh", "loss": "cross-entropy", "data": "toy:circle",
  "seed": 3, "batch": 32, "steps": 40, "eval-every": 20,
  "runs": [{"optimizer": "momentum", "lr": 0.1, "momentum": 0.9}],
  "study": {"budget": 5, "search": {"*": {"lr": {"log-uniform": [0.01, 1]}, "momentum": {"uniform": [0.5, 0.95]}}}, "seeds": 2}
})");
        const QString folder = tmp_.filePath("two");
        if (runStudyCli({"study", tmp_.filePath("two.json"), "--out", folder, "--jobs", "2", "--quiet"}) != 0)
            return {};
        return folder;
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        writeFile(tmp_.filePath("tiny.json"), tinyStudy());
        study_ = tmp_.filePath("study");
        QCOMPARE(runStudyCli({"study", tmp_.filePath("tiny.json"), "--out", study_, "--jobs", "2", "--quiet"}), 0);
    }

    // Every number of the table is core's: summary.csv of the aggregation, and the mean is the
    // plain mean of the final runs' last test losses, read from their own folders.
    void tableShowsCoresAggregate() {
        const StudyResults results = loadStudyResults(study_);
        QVERIFY(!results.aggregated);          // the CLI aggregated already
        QCOMPARE(results.finishedTrials, 12);  // 2 optimizers x (3 tuning trials + 3 seeds)
        StudyWindow window(results, StudyWindowHooks{});
        const StudyResultsTable& table = *window.table();
        QCOMPARE(table.rowCount(), 2);

        const std::vector<CsvRecord> summary = csvRecords(
            readFileBytes(study_ + "/results/summary.csv"),
            "task,optimizer,seeds,test_loss_median,test_loss_q1,test_loss_q3,test_loss_mean,test_loss_ci_low,test_loss_ci_high,"
            "test_accuracy_median,test_accuracy_q1,test_accuracy_q3,test_accuracy_mean,test_accuracy_ci_low,"
            "test_accuracy_ci_high,target,steps_to_target_median,reached_target",
            "summary.csv");
        QCOMPARE(summary.size(), std::size_t(2));
        const StudyPlan plan(loadStudy(study_ + "/study.json"));
        const StudyLayout layout(study_, plan);
        for (int row = 0; row < 2; ++row) {
            const QList<QByteArray>& f = summary[static_cast<std::size_t>(row)].fields;
            QCOMPARE(table.item(row, StudyResultsTable::Optimizer)->text(), QString::fromUtf8(f[1]));
            QCOMPARE(cell(table, row, StudyResultsTable::Seeds), 3.0);
            const std::pair<int, int> columns[] = {
                {StudyResultsTable::LossMedian, 3},     {StudyResultsTable::LossMean, 6},
                {StudyResultsTable::LossCiLow, 7},      {StudyResultsTable::LossCiHigh, 8},
                {StudyResultsTable::AccuracyMedian, 9}, {StudyResultsTable::AccuracyMean, 12},
                {StudyResultsTable::AccuracyCiLow, 13}, {StudyResultsTable::AccuracyCiHigh, 14},
                {StudyResultsTable::StepsToTarget, 16}};
            for (const auto& [column, csvColumn] : columns) {
                const double expected = csvNumber(f[csvColumn], "summary.csv", row + 2, "", true);
                QVERIFY2(near(cell(table, row, column), expected), qPrintable(QString("row %1 column %2: %3 vs %4")
                                                                                  .arg(row)
                                                                                  .arg(column)
                                                                                  .arg(cell(table, row, column))
                                                                                  .arg(expected)));
            }
            QVERIFY(table.item(row, StudyResultsTable::Configuration)->text().startsWith("lr="));

            std::vector<double> losses;
            for (const int trial : plan.finalTrials(0, row))
                losses.push_back(finalEvaluatedLoss(readTrialOutcome(layout, trial)->metrics));
            QVERIFY(near(cell(table, row, StudyResultsTable::LossMean), stats::mean(losses)));
            QVERIFY(near(cell(table, row, StudyResultsTable::LossMedian), stats::median(losses)));
        }
    }

    // P(better than the baseline): counted here from the final runs' own folders, seed by seed
    // (both optimizers ran the same 3 seeds, so it is paired); the default baseline is momentum.
    void betterThanBaselineCountsSeedWins() {
        StudyWindow window(loadStudyResults(study_), StudyWindowHooks{});
        QCOMPARE(window.baselineChooser()->currentText(), QString("momentum"));
        const StudyPlan plan(loadStudy(study_ + "/study.json"));
        const StudyLayout layout(study_, plan);
        const auto finalLosses = [&](int optimizer) {
            std::vector<double> losses;  // in seed order: finalTrials are
            for (const int trial : plan.finalTrials(0, optimizer)) {
                const TrialOutcome outcome = *readTrialOutcome(layout, trial);
                const double loss = finalEvaluatedLoss(outcome.metrics);
                losses.push_back(outcome.diverged() || std::isnan(loss) ? INFINITY : loss);
            }
            return losses;
        };
        const std::vector<double> momentum = finalLosses(0), neuronMean = finalLosses(1);
        QCOMPARE(momentum.size(), std::size_t(3));
        double wins = 0;
        for (std::size_t s = 0; s < 3; ++s)
            wins += neuronMean[s] < momentum[s] ? 1 : neuronMean[s] == momentum[s] ? 0.5 : 0;
        const StudyResultsTable& table = *window.table();
        QCOMPARE(table.item(0, StudyResultsTable::BetterThanBaseline)->text(), QString("baseline"));
        QCOMPARE(cell(table, 1, StudyResultsTable::BetterThanBaseline), wins / 3);
        QVERIFY(table.horizontalHeaderItem(StudyResultsTable::BetterThanBaseline)->text().contains("momentum"));
        // The other baseline: the complement.
        window.baselineChooser()->setCurrentIndex(1);
        QCOMPARE(table.item(1, StudyResultsTable::BetterThanBaseline)->text(), QString("baseline"));
        QCOMPARE(cell(table, 0, StudyResultsTable::BetterThanBaseline), 1.0 - wins / 3);
    }

    // The tuned configuration shows 4 significant digits; the tooltip keeps every digit.
    void tunedConfigurationIsRounded() {
        StudyResults results = loadStudyResults(study_);
        results.optimizerResults[0].configuration = "lr=0.0316227766016838 momentum=0.9";
        StudyResultsTable table;
        table.setResults(results, "momentum");
        QCOMPARE(table.item(0, StudyResultsTable::Configuration)->text(), QString("lr=0.03162 momentum=0.9"));
        QVERIFY(table.item(0, StudyResultsTable::Configuration)
                    ->toolTip()
                    .startsWith("lr=0.0316227766016838 momentum=0.9<br>"));  // then where the choice sits
    }

    // Without results (a study run with --list / --trial, or through Slurm before its last job),
    // opening it aggregates first; the numbers are the same.
    void missingResultsAreAggregatedOnOpening() {
        const StudyResults before = loadStudyResults(study_);
        QDir(study_ + "/results").removeRecursively();
        const StudyResults after = loadStudyResults(study_);
        QVERIFY(after.aggregated);
        QVERIFY(QFile::exists(study_ + "/results/results.json"));
        QCOMPARE(after.optimizerResults.size(), before.optimizerResults.size());
        for (std::size_t i = 0; i < after.optimizerResults.size(); ++i)
            QCOMPARE(after.optimizerResults[i].testLoss.ciHigh, before.optimizerResults[i].testLoss.ciHigh);
        QCOMPARE(after.bands.size(), before.bands.size());
    }

    // One filled band per optimizer, between its lower and upper curve, around its centre line.
    void bandPlotHasOneBandPerOptimizer() {
        StudyWindow window(loadStudyResults(study_), StudyWindowHooks{});
        for (int statistic = 0; statistic < 2; ++statistic) {
            window.findChild<QComboBox*>("statistic")->setCurrentIndex(statistic);
            QCustomPlot* plot = window.bandPlot()->plot();
            QCOMPARE(window.bandPlot()->bandCount(), 2);
            int filled = 0;
            for (int g = 0; g < plot->graphCount(); ++g) {
                QCPGraph* upper = plot->graph(g);
                QCPGraph* lower = upper->channelFillGraph();
                if (!lower) continue;
                ++filled;
                QCPGraph* centre = plot->graph(g + 1);  // drawn right after its band
                QCOMPARE(centre->data()->size(), upper->data()->size());
                QVERIFY(centre->data()->size() >= 3);  // test loss at steps 20, 40, 60 (and step 0)
                for (int i = 0; i < centre->data()->size(); ++i) {
                    QVERIFY(lower->data()->at(i)->value <= centre->data()->at(i)->value + 1e-12);
                    QVERIFY(centre->data()->at(i)->value <= upper->data()->at(i)->value + 1e-12);
                }
            }
            QCOMPARE(filled, 2);
            QCOMPARE(plot->legend->itemCount(), 2);
        }
        // The median line is bands.csv's test-loss median of the first optimizer.
        window.findChild<QComboBox*>("statistic")->setCurrentIndex(0);
        const StudyBand* band = window.results().band(window.results().tasks.front(), "momentum", "test_loss");
        QVERIFY(band);
        const QCPGraph* centre = window.bandPlot()->plot()->graph(2);
        QCOMPARE(centre->data()->size(), static_cast<int>(band->points.size()));
        QCOMPARE(centre->data()->at(1)->value, band->points[1].value.median);
        QCOMPARE(centre->data()->at(1)->key, static_cast<double>(band->points[1].step));
    }

    void sensitivityPlotHasOneLinePerOptimizerOnALogAxis() {
        StudyWindow window(loadStudyResults(study_), StudyWindowHooks{});
        QCOMPARE(window.findChild<QComboBox*>("parameter")->currentText(), QString("lr"));
        QCustomPlot* plot = window.sensitivityPlot()->plot();
        QCOMPARE(window.sensitivityPlot()->lineCount(), 2);
        QCOMPARE(plot->xAxis->scaleType(), QCPAxis::stLogarithmic);
        // The budget of 3: the defaults (lr 0.1) and the grid 0.03, 0.3, sorted by lr.
        for (int g = 0; g < 2; ++g) {
            QCOMPARE(plot->graph(g)->data()->size(), 3);
            QCOMPARE(plot->graph(g)->data()->at(0)->key, 0.03);
            QCOMPARE(plot->graph(g)->data()->at(2)->key, 0.3);
        }
        // Its range (0.02 to 0.45) spans under 1.6 decades, where QCustomPlot's log ticker fell back to
        // linear ticks and labelled nothing below 0.1: the lowest trial's lr has its label now.
        plot->replot();
        QVERIFY2(plot->xAxis->tickVectorLabels().contains("0.03"),
                 qPrintable(plot->xAxis->tickVectorLabels().join(' ')));
    }

    // At 1366 x 768 every header of the results table is read whole (the last one was clipped to
    // "…etter than moment"), and no two headers read alike: each CI column says what it bounds.
    void resultsTableHeadersFitAndAreDistinct() {
        StudyWindow window(loadStudyResults(study_), StudyWindowHooks{});
        window.resize(1366, 740);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const StudyResultsTable& table = *window.table();
        const QHeaderView* header = table.horizontalHeader();
        QStringList seen;
        for (int column = 0; column < table.columnCount(); ++column) {
            if (table.isColumnHidden(column)) continue;
            const QString text = table.horizontalHeaderItem(column)->text();
            QVERIFY2(!seen.contains(text), qPrintable("two columns read " + text));
            seen << text;
            int needed = 0;
            for (const QString& line : text.split('\n'))
                needed = std::max(needed, header->fontMetrics().horizontalAdvance(line));
            QVERIFY2(
                header->sectionSize(column) >= needed,
                qPrintable(
                    QString("'%1': %2 px for %3 px of text").arg(text).arg(header->sectionSize(column)).arg(needed)));
            QVERIFY2(header->sectionViewportPosition(column) + header->sectionSize(column) <= table.viewport()->width(),
                     qPrintable("'" + text + "' ends outside the table"));
        }
        QVERIFY(seen.join(' ').contains("Loss mean CI low") || seen.join(' ').contains("Loss mean\nCI low"));
    }

    // The sensitivity plot's scores may span decades: a log y option beside the parameter.
    void sensitivityPlotHasALogYOption() {
        StudyWindow window(loadStudyResults(study_), StudyWindowHooks{});
        auto* logY = window.findChild<QCheckBox*>("sensitivityLogY");
        QVERIFY(logY);
        QCustomPlot* plot = window.sensitivityPlot()->plot();
        QCOMPARE(plot->yAxis->scaleType(), QCPAxis::stLinear);
        logY->setChecked(true);
        QCOMPARE(plot->yAxis->scaleType(), QCPAxis::stLogarithmic);
        QVERIFY(plot->yAxis->range().lower > 0);
        for (int g = 0; g < plot->graphCount(); ++g)
            for (auto it = plot->graph(g)->data()->constBegin(); it != plot->graph(g)->data()->constEnd(); ++it)
                QVERIFY(plot->yAxis->range().contains(it->value));
        logY->setChecked(false);
        QCOMPARE(plot->yAxis->scaleType(), QCPAxis::stLinear);
    }

    // Clicking a trial in the sensitivity plot opens that trial's run folder (its lr in config.json).
    void sensitivityPointOpensItsTrial() {
        QStringList opened;
        StudyWindow window(loadStudyResults(study_), {{}, [&](const QString& folder) { opened << folder; }});
        window.resize(1200, 720);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCustomPlot* plot = window.sensitivityPlot()->plot();
        plot->replot();
        const QCPGraph* line = plot->graph(1);  // neuron-mean: lr 0.03, 0.1 (defaults), 0.3
        const QPointF pixel = line->coordsToPixels(line->data()->at(2)->key, line->data()->at(2)->value);
        QTest::mouseClick(plot, Qt::LeftButton, Qt::NoModifier, pixel.toPoint());
        QCOMPARE(opened.size(), 1);
        QVERIFY2(opened.front().contains("/tune/") && opened.front().contains("/neuron-mean/trial-"),
                 qPrintable(opened.front()));
        const QJsonObject config = QJsonDocument::fromJson(readFileBytes(opened.front() + "/config.json")).object();
        QCOMPARE(config["runs"].toArray().at(0).toObject()["lr"].toDouble(), 0.3);
    }

    // Two searched hyper-parameters (lr x momentum, quasi-random): one cell per trial, coloured by
    // its score; clicking a cell opens that trial, whose config.json holds the cell's values.
    void heatmapCellOpensItsTrial() {
        const QString folder = twoParameterStudy();
        QStringList opened;
        StudyWindow window(loadStudyResults(folder), {{}, [&](const QString& run) { opened << run; }});
        window.resize(1200, 720);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.findChild<QComboBox*>("heatX")->setCurrentText("lr");
        window.findChild<QComboBox*>("heatY")->setCurrentText("momentum");
        QCOMPARE(window.heatmap()->trialCount(), 5);

        // Trial 3's cell: its column and row are the ranks of its values among the trials'.
        std::set<double> lrs, momenta;
        double lr = NAN, momentum = NAN;
        QString trialFolder;
        for (const SensitivityPoint& p : window.results().sensitivity) {
            (p.parameter == "lr" ? lrs : momenta).insert(p.value);
            if (p.trial == 3) (p.parameter == "lr" ? lr : momentum) = p.value, trialFolder = p.folder;
        }
        const int column = static_cast<int>(std::distance(lrs.begin(), lrs.find(lr)));
        const int row = static_cast<int>(std::distance(momenta.begin(), momenta.find(momentum)));
        QCOMPARE(window.heatmap()->folderAt(column, row), trialFolder);
        QCustomPlot* plot = window.heatmap()->plot();
        plot->replot();
        const QPoint pixel(qRound(plot->xAxis->coordToPixel(column)), qRound(plot->yAxis->coordToPixel(row)));
        QTest::mouseClick(plot, Qt::LeftButton, Qt::NoModifier, pixel);
        QCOMPARE(opened, QStringList{trialFolder});
        const QJsonObject run = QJsonDocument::fromJson(readFileBytes(trialFolder + "/config.json"))
                                    .object()["runs"]
                                    .toArray()
                                    .at(0)
                                    .toObject();
        QVERIFY(std::abs(run["lr"].toDouble() - lr) <= 1e-6 * lr);
        QVERIFY(std::abs(run["momentum"].toDouble() - momentum) <= 1e-6);
    }

    // Both figures go through the app's figure export, and render as PNG, PDF and SVG.
    void figuresExport() {
        QStringList exported;
        StudyWindow window(loadStudyResults(study_), {[&](const NamedFigure& figure) { exported << figure.name; }, {}});
        for (QPushButton* button : window.findChildren<QPushButton*>()) button->click();
        const QString task = window.results().tasks.front();
        exported.sort();
        QCOMPARE(
            exported,
            (QStringList{"study-band-" + task + "-test_loss", "study-heatmap-" + task + "-momentum-lr-lr",
                         "study-parallel-coordinates-" + task + "-momentum", "study-sensitivity-" + task + "-lr"}));
        for (const NamedFigure& figure : window.figures()) {
            const FigureOptions options{600, 400, 96, figure.caption};
            QVERIFY(figure.figure.render(FigureFormat::Png, options).startsWith("\x89PNG"));
            QVERIFY(figure.figure.render(FigureFormat::Pdf, options).startsWith("%PDF"));
            QVERIFY(figure.figure.render(FigureFormat::Svg, options).contains("<svg"));
        }
        const QString path = tmp_.filePath("band.svg");
        window.figures().front().figure.save(path, {600, 400, 96, "band"});
        QVERIFY(QFileInfo(path).size() > 1000);
    }

    // Dolan–Moré over two tasks, the areas counted here from the costs: task 1 A 10 B 20 (ratios 1, 2),
    // task 2 A 30 B 15 (ratios 2, 1): both optimizers have rho(1) = 1/2, rho(2) = 1 and the area
    // up to 4 is the mean of (4 - ratio).
    void performanceProfileStepsAndAreas() {
        StudyResults results = loadStudyResults(study_);
        QCOMPARE(results.profileCosts.size(), std::size_t(1));  // one task: one row, no profile drawn
        PerformanceProfilePlot plot;
        plot.show(results);
        QCOMPARE(plot.lineCount(), 0);

        results.tasks = QStringList{"a", "b"};
        results.profileCosts = {
            {10, 20},
            {30, 15},
        };
        results.profileCosts.push_back({12, INFINITY});  // a third task B never finished: it never counts for B
        plot.show(results);
        QCOMPARE(plot.lineCount(), 2);
        for (int o = 0; o < 2; ++o) {
            double area = 0;
            for (const std::vector<double>& costs : results.profileCosts) {
                const double ratio = costs[o] / std::min(costs[0], costs[1]);
                if (ratio <= 4) area += 4 - ratio;
            }
            QVERIFY(near(plot.area(o), area / 3));
            QVERIFY(plot.plot()->graph(o)->name().contains(QString::number(area / 3, 'f', 2)));
            QCOMPARE(plot.plot()->graph(o)->lineStyle(), QCPGraph::lsStepLeft);
        }
        // A: best on tasks 1 and 3 (rho(1) = 2/3), within 2 on all (rho(2) = 1).
        const auto rho = [&](int o, double tau) { return plot.plot()->graph(o)->data()->findBegin(tau, false)->value; };
        QVERIFY(near(rho(0, 1.0), 2.0 / 3) && near(rho(0, 2.0), 1.0));
        QVERIFY(near(rho(1, 1.0), 1.0 / 3) && near(rho(1, 2.0), 2.0 / 3) && near(rho(1, 4.0), 2.0 / 3));

        // The window shows it (and exports it) only with several tasks.
        StudyWindow window(results, StudyWindowHooks{});
        QCOMPARE(window.figures().size(), std::size_t(5));
        QCOMPARE(window.profilePlot()->lineCount(), 2);
    }

    // One nearly diverged trial (a finite but huge score) does not set the colour range: it ends
    // at Tukey's fence of the log scores, counted here from the inputs.
    void heatmapColourRangeIgnoresAnOutlier() {
        StudyResults results;
        results.selection = "final-validation-loss";
        const std::vector<double> scores{0.5, 0.6, 0.7, 0.8, 1000};
        std::vector<double> logs;
        for (int k = 0; k < 5; ++k) {
            results.sensitivity.push_back({"t", "o", "lr", k, 0.01 * (k + 1), scores[k], {}});
            results.sensitivity.push_back({"t", "o", "momentum", k, 0.5 + 0.1 * k, scores[k], {}});
            logs.push_back(std::log10(scores[k]));
        }
        HyperParameterHeatmap map;
        map.show(results, "t", "o", "lr", "momentum");
        auto* colours = qobject_cast<QCPColorMap*>(map.plot()->plottable(0));
        QVERIFY(colours);
        const double q1 = std::log10(0.6), q3 = std::log10(0.8);  // sorted logs, quartiles at positions 1 and 3
        QVERIFY(near(colours->dataRange().upper, std::pow(10.0, q3 + 1.5 * (q3 - q1))));
        QCOMPARE(colours->dataRange().lower, 0.5);
        QCOMPARE(map.clippedCount(), 1);
        QVERIFY(colours->colorScale()->label().contains("1 outlier"));
        // Without the outlier nothing is clipped: the range is the scores' own.
        results.sensitivity.resize(8);
        map.show(results, "t", "o", "lr", "momentum");
        colours = qobject_cast<QCPColorMap*>(map.plot()->plottable(0));
        QCOMPARE(map.clippedCount(), 0);
        QCOMPARE(colours->dataRange().upper, 0.8);
    }

    // Every study figure exports as pgfplots: the .tex reads the CSV beside it, whose columns are
    // the plotted points; pdflatex compiles it when TeX Live with pgfplots is installed.
    void figuresExportAsPgfplots() {
        StudyWindow window(loadStudyResults(study_), StudyWindowHooks{});
        // The lr x momentum study of heatmapCellOpensItsTrial, for a heat-map with cells.
        StudyWindow two(loadStudyResults(twoParameterStudy()), StudyWindowHooks{});
        two.findChild<QComboBox*>("heatX")->setCurrentText("lr");
        two.findChild<QComboBox*>("heatY")->setCurrentText("momentum");
        std::vector<NamedFigure> figures = window.figures();
        figures.push_back(two.figures().at(2));
        QTemporaryDir dir;
        for (const NamedFigure& figure : figures) {
            QVERIFY(figure.figure.plot());
            const QString tex = dir.filePath(figure.name + ".tex");
            figure.figure.save(tex, {605, 340, 300, figure.caption});
            const QByteArray text = readFileBytes(tex);
            QVERIFY2(text.contains("width=160.1mm, height=90.0mm"), text.constData());  // 605 x 340 px at 96 per inch
            QVERIFY(QFileInfo::exists(dir.filePath(figure.name + ".csv")));
            if (figure.figure.plot()->plottableCount() > 0)
                QVERIFY2(text.contains("{" + figure.name.toUtf8() + ".csv}"), text.constData());
        }
        // The heat-map: one row per cell, the score where a trial is, nan elsewhere.
        const QByteArray mapTex = readFileBytes(dir.filePath(figures.back().name + ".tex"));
        QVERIFY(mapTex.contains("matrix plot*") && mapTex.contains("colorbar"));
        const QByteArray mapCsv = readFileBytes(dir.filePath(figures.back().name + ".csv"));
        auto* map = qobject_cast<QCPColorMap*>(figures.back().figure.plot()->plottable(0));
        QVERIFY(map);
        const int cells = map->data()->keySize() * map->data()->valueSize();
        QCOMPARE(mapCsv.count("\n") - 1, cells);
        QCOMPARE(mapCsv.count(",nan\n"), cells - two.heatmap()->trialCount());
        // The band plot's CSV: each drawn median line's points, column by column.
        const NamedFigure band = window.figures().front();
        const QByteArray csv = readFileBytes(dir.filePath(band.name + ".csv"));
        const QList<QByteArray> lines = csv.trimmed().split('\n');
        const QList<QByteArray> header = lines.front().split(',');
        int checked = 0;
        for (int g = 0; g < band.figure.plot()->graphCount(); ++g) {
            const QCPGraph* graph = band.figure.plot()->graph(g);
            if (!band.figure.plot()->legend->hasItemWithPlottable(graph)) continue;  // a band's edge
            const qsizetype x = header.indexOf(graph->name().toUtf8() + "_x"),
                            y = header.indexOf(graph->name().toUtf8() + "_y");
            QVERIFY2(x >= 0 && y >= 0, lines.front().constData());
            QVERIFY(graph->dataCount() > 1);
            for (int i = 0; i < graph->dataCount(); ++i) {
                const QList<QByteArray> row = lines[i + 1].split(',');
                QVERIFY(near(row[x].toDouble(), graph->data()->at(i)->key));
                QVERIFY(near(row[y].toDouble(), graph->data()->at(i)->value));
            }
            ++checked;
        }
        QCOMPARE(checked, 2);
        const QByteArray tex = readFileBytes(dir.filePath(band.name + ".tex"));
        QVERIFY2(tex.contains("\\addlegendentry{momentum}") && tex.contains("fill between"), tex.constData());

        // Compiled by pdflatex when TeX Live has pgfplots and preview (scripts/setup.sh installs
        // texlive-latex-base, texlive-pictures and preview-latex-style), and so is the aggregation's
        // band figure (the same writer, core's io/PgfplotsDocument).
        QProcess which;
        which.start("kpsewhich", {"pgfplots.sty", "preview.sty"});
        if (!which.waitForFinished(20000) || which.readAllStandardOutput().count('\n') != 2 ||
            QStandardPaths::findExecutable("pdflatex").isEmpty())
            QSKIP(
                "pdflatex with pgfplots and preview is not installed (kpsewhich pgfplots.sty preview.sty): the .tex files are not compiled");
        QStringList names;
        for (const NamedFigure& figure : figures) names << figure.name;
        const QString aggregated = "band-" + loadStudyResults(study_).tasks.front();
        for (const char* suffix : {".tex", ".csv"})
            QVERIFY(QFile::copy(study_ + "/results/" + aggregated + suffix, dir.filePath(aggregated + suffix)));
        names << aggregated;
        for (const QString& name : names) {
            QProcess latex;
            latex.setWorkingDirectory(dir.path());
            latex.start("pdflatex", {"-interaction=nonstopmode", "-halt-on-error", name + ".tex"});
            QVERIFY(latex.waitForFinished(120000));
            QVERIFY2(latex.exitCode() == 0, latex.readAllStandardOutput().right(3000).constData());
            QVERIFY2(QFileInfo(dir.filePath(name + ".pdf")).size() > 1000, qPrintable(name));
        }
    }

    // export --study: the study's figures for its task in every format, and its results files.
    void exportCommandIncludesTheStudy() {
        const StudyPlan plan(loadStudy(study_ + "/study.json"));
        const QString run = StudyLayout(study_, plan).trialDirectory(plan.finalTrials(0, 0).front());
        const QString out = tmp_.filePath("report");
        QCOMPARE(runExportCommand(
                     {run, "--out", out, "--study", study_, "--width", "400", "--height", "300", "--dpi", "96"}),
                 0);
        const QString task = loadStudyResults(study_).tasks.front();
        for (const QString& stem : {"study-band-" + task + "-test_loss", "study-sensitivity-" + task + "-lr"})
            for (const char* suffix : {".png", ".pdf", ".svg", ".tex", ".csv"})
                QVERIFY2(QFileInfo(out + "/study/" + stem + suffix).size() > 0, qPrintable(stem + suffix));
        QCOMPARE(readFileBytes(out + "/study/results-summary.csv"), readFileBytes(study_ + "/results/summary.csv"));
        QCOMPARE(runExportCommand({run, "--out", out, "--study", tmp_.filePath("nowhere")}), 2);
    }

    void badFoldersGiveClearMessages() {
        const QString missing = tmp_.filePath("nowhere");
        QString message = messageOf(missing);
        QVERIFY2(message.contains(missing) && message.contains("not a folder"), qPrintable(message));

        const QString empty = tmp_.filePath("empty");
        QVERIFY(QDir().mkpath(empty));
        message = messageOf(empty);
        QVERIFY2(message.contains(empty) && message.contains("no study.json"), qPrintable(message));

        const QString broken = tmp_.filePath("broken");
        QVERIFY(QDir().mkpath(broken));
        writeFile(broken + "/study.json", "{\"name\": \"x\",\n \"runs\": [}");
        message = messageOf(broken);
        QVERIFY2(message.contains(broken + "/study.json:2:"), qPrintable(message));

        const QString unstarted = tmp_.filePath("unstarted");
        QVERIFY(QDir().mkpath(unstarted));
        writeFile(unstarted + "/study.json", tinyStudy());
        message = messageOf(unstarted);
        QVERIFY2(message.contains(unstarted) && message.contains("no trial"), qPrintable(message));

        // A damaged results file is named with its line, not shown half-read.
        const QString damaged = tmp_.filePath("damaged");
        QCOMPARE(runStudyCli({"study", tmp_.filePath("tiny.json"), "--out", damaged, "--jobs", "2", "--quiet"}), 0);
        writeFile(damaged + "/results/bands.csv",
                  "task,optimizer,series,step,seeds,median,q1,q3,mean,mean_ci_low,mean_ci_high\n"
                  "t,momentum,test_loss,20,3,0.5,0.4,0.6,0.5,x,0.6\n");
        message = messageOf(damaged);
        QVERIFY2(message.contains("bands.csv:2: column mean_ci_low"), qPrintable(message));
        // And the window's opener shows it instead of a window (the message box is closed by the test).
        QTimer::singleShot(0, [] {
            for (QWidget* w : QApplication::topLevelWidgets())
                if (auto* box = qobject_cast<QMessageBox*>(w)) box->accept();
        });
        QVERIFY(StudyWindow::open(damaged, nullptr, StudyWindowHooks{}) == nullptr);
    }

    // The run dialog trains the same study as the CLI on its worker thread: cancelled at once it
    // stops (nothing aggregated), started again it resumes, and its results equal the CLI's.
    void runDialogRunsTheCliStudy() {
        const QString folder = tmp_.filePath("from-dialog");
        StudyRunDialog dialog;
        dialog.setStudy(tmp_.filePath("tiny.json"), folder, 2);
        QSignalSpy finished(&dialog, &StudyRunDialog::finished);
        QSignalSpy failed(&dialog, &StudyRunDialog::failed);
        dialog.start();
        QVERIFY(dialog.running());
        dialog.cancel();
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.running(), 20000);
        QCOMPARE(finished.size(), 0);
        QVERIFY(!QFile::exists(folder + "/results/summary.csv"));

        dialog.start();
        QVERIFY(finished.wait(60000));
        QCOMPARE(failed.size(), 0);
        QCOMPARE(finished.front().front().toString(), folder);
        for (const char* file : {"summary.csv", "bands.csv", "sensitivity.csv", "paired.csv"})
            QCOMPARE(readFileBytes(folder + "/results/" + file), readFileBytes(study_ + "/results/" + file));
    }

    // A choice on an edge of what was searched is marked in the table; its tooltip says which edge,
    // the scores around the choice and why its stability is unknown. The tiny study's marks are
    // its warnings.
    void tableMarksAChoiceOnAnEdge() {
        StudyResults results;
        results.optimizers = {"a", "b"};
        for (const QString& optimizer : results.optimizers) {
            StudyOptimizerResult r;
            r.task = "t";
            r.optimizer = optimizer;
            r.configuration = "lr=1";
            r.fragility.known = true;
            r.fragility.score = 0.2;
            ChoiceParameter lr{
                "lr", 1.0, 0.01, optimizer == "a" ? 1.0 : 3.16, "searched", optimizer == "a" ? "edge" : "diverged"};
            lr.lowerValue = 0.316, lr.lowerScore = 0.338;
            if (optimizer == "b") lr.upperValue = 3.16, lr.upperScore = INFINITY;
            r.fragility.parameters = {lr};
            results.optimizerResults.push_back(r);
        }
        StudyResultsTable table;
        table.setResults(results, "a");
        const QTableWidgetItem* a = table.item(0, StudyResultsTable::Configuration);
        const QTableWidgetItem* b = table.item(1, StudyResultsTable::Configuration);
        QVERIFY(a->data(StudyResultsTable::kOnEdgeRole).toBool() && a->text().endsWith("⚠"));
        QVERIFY(!b->data(StudyResultsTable::kOnEdgeRole).toBool() && !b->text().contains("⚠"));
        QVERIFY2(a->toolTip().contains("lr = 1 is on the upper edge of what was searched (0.01 … 1)"),
                 qPrintable(a->toolTip()));
        QVERIFY2(a->toolTip().contains("0.338 at 0.316 · <b>0.2 at 1</b>"), qPrintable(a->toolTip()));
        QVERIFY(a->toolTip().contains("One tuning seed: stability not measurable."));
        QVERIFY2(b->toolTip().contains("lr: the next value above (3.16) diverged"), qPrintable(b->toolTip()));
        QVERIFY(b->toolTip().contains("diverged at 3.16"));

        const StudyResults tiny = loadStudyResults(study_);
        StudyResultsTable tinyTable;
        tinyTable.setResults(tiny, tiny.baseline);
        int marks = 0;
        for (int row = 0; row < tinyTable.rowCount(); ++row) {
            QVERIFY(tiny.optimizerResults[static_cast<std::size_t>(row)].fragility.known);
            marks +=
                tinyTable.item(row, StudyResultsTable::Configuration)->data(StudyResultsTable::kOnEdgeRole).toBool();
        }
        QCOMPARE(marks, tiny.warnings.size());
    }

    // The sensitivity plot rings each optimizer's chosen point and draws the searched range's edges.
    void sensitivityPlotMarksTheChoiceAndTheSearchedRange() {
        const StudyResults results = loadStudyResults(study_);
        SensitivityPlot plot;
        plot.show(results, results.tasks.front(), "lr");
        QCOMPARE(plot.lineCount(), 2);
        QCOMPARE(plot.chosenCount(), 2);
        QCOMPARE(plot.searchedEdges(), (std::vector<double>{0.03, 0.3}));
        QCOMPARE(plot.plot()->itemCount(), 2);  // the two dashed edges
        for (int o = 0; o < 2; ++o) {
            const QCPGraph* ring = plot.plot()->graph(2 + o);
            const StudyOptimizerResult* r = results.result(results.tasks.front(), results.optimizers[o]);
            QCOMPARE(ring->data()->at(0)->key, r->fragility.parameter("lr")->value);
            QCOMPARE(ring->data()->at(0)->value, r->fragility.score);
            QVERIFY(!plot.plot()->legend->hasItemWithPlottable(ring));
        }
    }

    // With two keys and two tuning seeds, the line at each lr is the best point tried there, its
    // score the median over its seeds; a value where every point diverged is not drawn.
    void sensitivityLineIsTheBestPointAtEachValue() {
        StudyResults results;
        results.selection = "final-validation-loss";
        results.tasks = {"t"};
        results.optimizers = {"o"};
        const struct {
            double lr, momentum, first, second;
        } points[] = {
            {0.1, 0.5, 0.4, 0.6}, {0.1, 0.9, 0.2, 0.4}, {1.0, 0.5, INFINITY, INFINITY}, {1.0, 0.9, 0.8, INFINITY}};
        int trial = 0;
        for (const auto& p : points)
            for (const double score : {p.first, p.second}) {
                results.sensitivity.push_back({"t", "o", "lr", trial, p.lr, score, QString::number(trial)});
                results.sensitivity.push_back({"t", "o", "momentum", trial, p.momentum, score, QString::number(trial)});
                ++trial;
            }
        SensitivityPlot plot;
        plot.show(results, "t", "lr");
        QCOMPARE(plot.lineCount(), 1);
        QCOMPARE(plot.plot()->graph(0)->data()->size(), 1);
        QCOMPARE(plot.plot()->graph(0)->data()->at(0)->key, 0.1);
        QCOMPARE(plot.plot()->graph(0)->data()->at(0)->value, 0.3);  // median of 0.2 and 0.4, momentum 0.9
        QCOMPARE(plot.trialFolder(0, 0), QString("2"));              // that point's first trial
        QVERIFY2(plot.plot()->graph(0)->name().contains("3 diverged"), qPrintable(plot.plot()->graph(0)->name()));
    }

    // One polyline per tuning trial across lr, momentum and the score; the chosen one drawn thick
    // and black; drawn headlessly.
    void parallelCoordinatesDrawEveryTrial() {
        const StudyResults results = loadStudyResults(twoParameterStudy());
        ParallelCoordinatesPlot plot;
        plot.resize(700, 420);
        plot.show(results, results.tasks.front(), "momentum");
        std::set<int> trials;
        for (const SensitivityPoint& p : results.sensitivity) trials.insert(p.trial);
        QCOMPARE(plot.polylineCount(), static_cast<int>(trials.size()));
        QCOMPARE(plot.polylineCount(), 5);
        QCOMPARE(plot.axes(), (QStringList{"lr", "momentum", "final validation loss"}));
        QCOMPARE(plot.chosenCount(), 1);
        QCOMPARE(plot.plot()->graph(plot.polylineCount() - 1)->pen().color(), QColor(Qt::black));  // on top
        for (int i = 0; i < plot.polylineCount(); ++i) QVERIFY(!plot.folderOf(i).isEmpty());
        const QImage image = plot.plot()->toPixmap(700, 420).toImage();
        int dark = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x) dark += qGray(image.pixel(x, y)) < 40;
        QVERIFY2(dark > 200, qPrintable(QString::number(dark)));

        // A diverged trial ends apart, dashed, above the score axis.
        StudyResults made;
        made.selection = "final-validation-loss";
        const std::vector<double> scores{0.5, 0.3, INFINITY};
        for (int k = 0; k < 3; ++k) {
            made.sensitivity.push_back({"t", "o", "lr", k, 0.01 * std::pow(10.0, k), scores[k], {}});
            made.sensitivity.push_back({"t", "o", "momentum", k, 0.5 + 0.2 * k, scores[k], {}});
        }
        plot.show(made, "t", "o");
        QCOMPARE(plot.polylineCount(), 3);
        QCOMPARE(plot.divergedCount(), 1);
        QCOMPARE(plot.chosenCount(), 0);                   // no fragility known: nothing chosen
        const QCPGraph* diverged = plot.plot()->graph(0);  // drawn first, below the others
        QCOMPARE(diverged->pen().style(), Qt::DashLine);
        QVERIFY(diverged->data()->at(2)->value > 1.0);
        QCOMPARE(diverged->data()->at(0)->value, 1.0);               // lr 1, the top of a log axis
        QCOMPARE(plot.plot()->graph(2)->data()->at(2)->value, 0.0);  // the best score, the axis's bottom
    }

    // "inf" (a score that never reached its target, a diverged trial) reads back as infinity.
    void infinityReadsBack() {
        QVERIFY(std::isinf(csvNumber("inf", "x.csv", 2, "score", false)));
        QVERIFY(std::isnan(csvNumber("", "x.csv", 2, "score", true)));
    }
};

QTEST_MAIN(TestStudyViews)
#include "test_study_views.moc"
