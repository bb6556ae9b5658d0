// Studies: the file format and its messages, the validation split, lockstep pairing across
// separately run trials, the trial plan, running (threads, resume, --trial, --list, --emit slurm)
// and aggregation checked against the trial folders themselves.
#include "TestSupport.h"
#include "cli/Cli.h"
#include "data/DataRegistry.h"
#include "io/JsonFile.h"
#include "stats/Descriptive.h"
#include "study/CommitThread.h"
#include "study/StudyAggregate.h"
#include "study/StudyRunner.h"
#include "study/TrialLock.h"
#include "study/TrialOutcome.h"
#include "study/TrialQueue.h"
#include "train/LockstepTrainer.h"
#include "experiment/ExperimentJson.h"
#include "runfolder/RunCsv.h"
#include "runfolder/RunFolderLayout.h"
#include "io/Files.h"

#include <QDateTime>
#include <QDir>
#include <QJsonArray>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <functional>
#include <future>
#include <numeric>
#include <iostream>
#include <set>
#include <sstream>

using namespace ml;

namespace {

// tests/studies/tiny.json, the study the Slurm test and test_study_views run too: two optimizers,
// 3 tuning trials each, 3 seeds, 60 steps.
QByteArray tinyStudy() { return readFileBytes(QStringLiteral(MOMENTUM_LAB_SOURCE_DIR "/tests/studies/tiny.json")); }

QJsonObject tinyJson() { return parseJsonObject(tinyStudy(), "tiny.json"); }

// A run folder's CSV file without its wall_ms column (the only one that differs between two
// trainings of the same run).
QByteArray withoutWallClock(const QByteArray& csv) {
    const QList<QByteArray> lines = csv.split('\n');
    const qsizetype column = lines.front().split(',').indexOf("wall_ms");
    if (column < 0) qFatal("no wall_ms column in %s", lines.front().constData());
    QByteArrayList kept;
    for (const QByteArray& line : lines) {
        QList<QByteArray> cells = line.split(',');
        if (cells.size() > column) cells.removeAt(column);
        kept.push_back(cells.join(','));
    }
    return kept.join('\n');
}

QString writeFile(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly)) qFatal("cannot write %s", qPrintable(path));
    file.write(bytes);
    return path;
}

struct CliResult {
    int status;
    QString out;
    QString err;
};

CliResult cli(QStringList arguments) {
    arguments.prepend("momentum-lab-cli");
    std::ostringstream captured, printed;
    std::streambuf* previousErr = std::cerr.rdbuf(captured.rdbuf());
    std::streambuf* previousOut = std::cout.rdbuf(printed.rdbuf());
    const int status = runCli(arguments);
    std::cerr.rdbuf(previousErr);
    std::cout.rdbuf(previousOut);
    return {status, QString::fromStdString(printed.str()), QString::fromStdString(captured.str())};
}

QByteArray readAll(const QString& path) { return readFileBytes(path); }

// The CSV rows of `file` as lists of fields (no quoted fields in these tests), header first.
std::vector<QStringList> csvRows(const QString& file) {
    std::vector<QStringList> rows;
    for (const QByteArray& line : readAll(file).split('\n'))
        if (!line.isEmpty()) rows.push_back(QString::fromUtf8(line).split(','));
    return rows;
}

QString column(const std::vector<QStringList>& rows, const QStringList& row, const QString& name) {
    return row.value(rows.front().indexOf(name));
}

}  // namespace

class TestStudy : public QObject {
    Q_OBJECT
private slots:
    void parsesTheStudySection() {
        const Study study = studyFromJson(tinyJson(), "tiny.json");
        QCOMPARE(study.tasks.size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(study.tasks[0].name), QString("toy_circle"));
        QCOMPARE(study.optimizers.size(), std::size_t(2));
        QCOMPARE(study.budget, 3);
        QCOMPARE(study.seeds, 3);
        QCOMPARE(study.target, 0.5);
        QVERIFY(study.selection == SelectionMetric::FinalValidationLoss);
        QCOMPARE(study.optimizers[1].space.at(0).grid, (std::vector<double>{0.03, 0.3}));

        QJsonObject json = tinyJson();
        QJsonObject section = json["study"].toObject();
        section["search"] = QJsonObject{{"*", QJsonObject{{"lr", QJsonObject{{"log-grid", QJsonArray{0.001, 1, 4}}}}}}};
        section["budget"] = 5;
        json["study"] = section;
        const Study logGrid = studyFromJson(json, "s.json");
        const std::vector<double>& grid = logGrid.optimizers[0].space[0].grid;
        QCOMPARE(grid.size(), std::size_t(4));
        QVERIFY(std::abs(grid[1] - 0.01) < 1e-12 && std::abs(grid[2] - 0.1) < 1e-12 && grid[3] == 1.0);
        QCOMPARE(studyFromJson(QJsonObject(json), "s.json").seeds, 3);
    }

    void refusesBadStudiesNamingTheField() {
        const auto errorWith = [](const std::function<void(QJsonObject&)>& edit) {
            QJsonObject json = tinyJson();
            QJsonObject section = json["study"].toObject();
            edit(section);
            json["study"] = section;
            return test::inputErrorOf([&] { studyFromJson(json, "s.json"); });
        };
        QVERIFY(errorWith([](QJsonObject& s) { s["budgets"] = 3; }).contains("s.json: study: unknown key 'budgets'"));
        QVERIFY(errorWith([](QJsonObject& s) {
                    s["budget"] = 0;
                }).contains("s.json: study.budget: expected a whole number from 1"));
        QVERIFY(errorWith([](QJsonObject& s) { s["budget"] = 4; }).contains("the budget is 4"));
        QVERIFY(
            errorWith([](QJsonObject& s) { s.remove("search"); }).contains("has no search space but the budget is 3"));
        QVERIFY(
            errorWith([](QJsonObject& s) {
                s["search"] = QJsonObject{{"*", QJsonObject{{"beta2", QJsonObject{{"grid", QJsonArray{0.9, 0.99}}}}}}};
            }).contains("study.search.*.beta2: momentum (momentum) has no hyper-parameter 'beta2'"));
        QVERIFY(errorWith([](QJsonObject& s) {
                    s["search"] = QJsonObject{{"*", QJsonObject{{"lr", QJsonObject{{"grid", QJsonArray{-1, 0.3}}}}}}};
                }).contains("study.search.*.lr"));
        QVERIFY(
            errorWith([](QJsonObject& s) {
                s["search"] = QJsonObject{{"*", QJsonObject{{"lr", QJsonObject{{"log-uniform", QJsonArray{0, 1}}}}}}};
            }).contains("study.search.*.lr.log-uniform: lr: a log-uniform range needs 0 < low < high"));
        QVERIFY(errorWith([](QJsonObject& s) {
                    s["search"] = QJsonObject{{"adam", QJsonObject{}}};
                }).contains("study.search.adam: no run is labelled so"));
        QVERIFY(errorWith([](QJsonObject& s) {
                    s["selection"] = "steps-to-target";
                    s.remove("target");
                }).contains("study.target: missing; selection steps-to-target needs a target loss"));
        QVERIFY(errorWith([](QJsonObject& s) {
                    s["tasks"] = QJsonArray{QJsonObject{{"name", "a/b"}}};
                }).contains("study.tasks[0].name: expected a non-empty name"));
        QVERIFY(errorWith([](QJsonObject& s) {
                    s["tasks"] = QJsonArray{QJsonObject{{"name", "a"}, {"network", "2-x"}}};
                }).contains("s.json: study.tasks[0]: network"));
        QVERIFY(test::inputErrorOf([] {
                    studyFromJson(parseJsonObject(R"({"network":"2-2"})", "e.json"), "e.json");
                }).contains("e.json: study: missing"));

        // Syntax errors come from the one JSON loader, as FILE:LINE:COLUMN.
        QTemporaryDir tmp;
        const QString path = writeFile(tmp.filePath("bad.json"), "{\n  \"study\": {\n    \"budget\": 3,,\n  }\n}\n");
        const QString message = test::inputErrorOf([&] { loadStudy(path); });
        QVERIFY2(message.startsWith(path + ":3:"), qPrintable(message));
    }

    void validationIsAFixedPartOfTheTrainingData() {
        QCOMPARE(validationSize(1437), Eigen::Index(240));
        QCOMPARE(validationSize(8000), Eigen::Index(1333));
        QCOMPARE(validationSize(60000), Eigen::Index(10000));
        const DataSplit full = loadDataSplit("digits", 1);
        const DataSplit tuning = applyHoldout(loadDataSplit("digits", 1), Holdout::Validation);
        const DataSplit final = applyHoldout(loadDataSplit("digits", 2), Holdout::Test);
        QCOMPARE(tuning.train->size(), Eigen::Index(1197));
        QCOMPARE(tuning.test->size(), Eigen::Index(240));
        QCOMPARE(final.train->size(), Eigen::Index(1197));
        QCOMPARE(final.test->size(), Eigen::Index(360));
        // Validation and the remaining training samples partition the training split: every
        // training row is in exactly one of them; the final runs train on the same rows.
        const auto rows = [](const Dataset& d) {
            std::vector<Eigen::Index> all(d.size());
            std::iota(all.begin(), all.end(), Eigen::Index{0});
            Batch batch;
            d.gather(all, batch);
            std::multiset<std::vector<float>> set;
            for (Eigen::Index i = 0; i < batch.size(); ++i)
                set.insert(
                    std::vector<float>(batch.inputs.row(i).data(), batch.inputs.row(i).data() + batch.inputs.cols()));
            return set;
        };
        std::multiset<std::vector<float>> joined = rows(*tuning.train);
        for (const auto& row : rows(*tuning.test)) joined.insert(row);
        QVERIFY(joined == rows(*full.train));
        QVERIFY(rows(*final.train) == rows(*tuning.train));
        QVERIFY(rows(*final.test) == rows(*full.test));
    }

    void separateTrialsArePairedLikeLockstepRuns() {
        // A trial trains one optimizer alone; with the same seed it must see the same initial
        // weights and batches as in a lockstep comparison, so its metrics are those of the lockstep run.
        const Study study = studyFromJson(tinyJson(), "tiny.json");
        const StudyPlan plan(study);
        const StudyTrial& a = plan.trial(plan.finalTrials(0, 0).at(1));
        const StudyTrial& b = plan.trial(plan.finalTrials(0, 1).at(1));
        QCOMPARE(a.seed, b.seed);
        Experiment lockstep = plan.experiment(a, {});
        lockstep.runs.push_back(plan.experiment(b, {}).runs.front());
        const Experiment aloneA = plan.experiment(a, {}), aloneB = plan.experiment(b, {});
        struct Collect : TrainingObserver {
            std::vector<std::vector<float>> losses = std::vector<std::vector<float>>(2);
            void stepFinished(const StepMetrics& m) override { losses[m.run].push_back(m.trainLoss); }
        };
        const auto train = [](const Experiment& e) {
            LockstepTrainer trainer(e, loadExperimentData(e));
            Collect collect;
            trainer.addObserver(&collect);
            RunControl control;
            trainer.run(control);
            return collect.losses;
        };
        const auto both = train(lockstep);
        QCOMPARE(train(aloneA)[0], both[0]);
        QCOMPARE(train(aloneB)[0], both[1]);
        QVERIFY(both[0] != both[1]);
    }

    void plansTheTrials() {
        const StudyPlan plan(studyFromJson(tinyJson(), "tiny.json"));
        QCOMPARE(plan.tuningCount(), 2 * 3);
        QCOMPARE(plan.trialCount(), 2 * 3 + 2 * 3);
        QVERIFY(plan.point(0, 0).empty());  // trial 0: the untuned defaults
        QCOMPARE(plan.point(1, 2), stats::TrialPoint{0.3});
        const StudyTrial& tuning = plan.trial(4);
        QCOMPARE(tuning.optimizer, 1);
        QCOMPARE(tuning.number, 1);
        const Experiment e = plan.experiment(tuning, plan.point(1, 1));
        QVERIFY(e.holdout == Holdout::Validation);
        QCOMPARE(e.runs.size(), std::size_t(1));
        QCOMPARE(e.runs[0].hp.lr, 0.03);
        QCOMPARE(e.runs[0].optimizer, std::string("neuron-mean"));
        QCOMPARE(e.seed, std::uint64_t(3));
        const StudyTrial& final = plan.trial(plan.trialCount() - 1);
        QVERIFY(final.phase == StudyPhase::Final);
        QCOMPARE(final.seed, std::uint64_t(3 + 3));
        QVERIFY(plan.experiment(final, {}).holdout == Holdout::Test);
        QVERIFY(test::inputErrorOf([&] {
                    plan.trial(12);
                }).contains("--trial: 12 is not a trial of this study; expected 0 to 11"));
    }

    void runsResumesAndAggregates() {
        QTemporaryDir tmp;
        const QString studyFile = writeFile(tmp.filePath("tiny.json"), tinyStudy());
        const QString out = tmp.filePath("out");

        // Phase 2 cannot start before phase 1 has finished.
        CliResult early = cli({"study", studyFile, "--out", out, "--trial", "7", "--quiet"});
        QCOMPARE(early.status, 2);
        QVERIFY2(
            early.err.contains("phase 1 of toy_circle / momentum is unfinished: 3 tuning trial(s) missing (0, 1, 2)"),
            qPrintable(early.err));

        CliResult first = cli({"study", studyFile, "--out", out, "--jobs", "2", "--quiet"});
        QCOMPARE(first.status, 0);
        const StudyPlan plan(loadStudy(QDir(out).filePath("study.json")));
        const StudyLayout layout(out, plan);
        for (int k = 0; k < plan.trialCount(); ++k) QVERIFY(QFileInfo::exists(layout.trialMarker(k)));
        // Every trial is an ordinary run folder.
        QVERIFY(QFileInfo::exists(layout.trialDirectory(4) + "/config.json"));
        QVERIFY(loadExperiment(layout.trialDirectory(4) + "/config.json").holdout == Holdout::Validation);

        // The selection is the tuning trial with the lowest final validation loss.
        const QString results = layout.resultsDirectory();
        const auto selected = csvRows(results + "/selected.csv");
        for (int o = 0; o < 2; ++o) {
            int best = -1;
            double bestLoss = INFINITY;
            for (const int k : plan.tuningTrials(0, o)) {
                const double loss = finalEvaluatedLoss(readTrialOutcome(layout, k)->metrics);
                if (loss < bestLoss) bestLoss = loss, best = k;
            }
            QCOMPARE(column(selected, selected[1 + o], "trial").toInt(), best);
        }
        // The summary's median test loss is the median over the final seeds' folders.
        const auto summary = csvRows(results + "/summary.csv");
        for (int o = 0; o < 2; ++o) {
            std::vector<double> losses;
            for (const int k : plan.finalTrials(0, o)) {
                const auto metrics = parseMetricsCsv(readAll(layout.trialDirectory(k) + "/metrics.csv"), "m", 0);
                losses.push_back(metrics.back().testLoss);
            }
            QCOMPARE(column(summary, summary[1 + o], "seeds").toInt(), 3);
            QVERIFY(std::abs(column(summary, summary[1 + o], "test_loss_median").toDouble() - stats::median(losses)) <
                    1e-6);
        }
        for (const char* file :
             {"trials.csv", "sensitivity.csv", "expected-best.csv", "bands.csv", "paired.csv", "time-to-target.csv",
              "profile.csv", "results.json", "band-toy_circle.tex", "band-toy_circle.csv"})
            QVERIFY2(QFileInfo::exists(results + "/" + file), file);
        QCOMPARE(csvRows(results + "/paired.csv").size(), std::size_t(1 + 2));  // test_loss and test_error
        QVERIFY(readAll(results + "/band-toy_circle.tex").contains("width=120.0mm, height=80.0mm"));
        // The band figure (core's pgfplots writer) reads only columns of the CSV beside it, and its
        // median column is bands.csv's test-loss median.
        const QByteArray tex = readAll(results + "/band-toy_circle.tex");
        const auto figure = csvRows(results + "/band-toy_circle.csv");
        static const QRegularExpression read(
            QStringLiteral("table\\[x=([^,]+), y=([^,\\]]+)[^\\]]*\\] \\{band-toy_circle\\.csv\\}"));
        int tables = 0;
        for (const QRegularExpressionMatch& m : read.globalMatch(QString::fromUtf8(tex))) {
            ++tables;
            for (const QString& name : {m.captured(1), m.captured(2)})
                QVERIFY2(figure[0].contains(name), qPrintable(name));
        }
        QCOMPARE(tables, 2 * 3);  // per optimizer: the median and the band's two edges
        QVERIFY(tex.contains("\\addlegendentry{neuron-mean}") &&
                tex.contains("fill between[of=momentum-q1 and momentum-q3]"));
        std::vector<double> medians;
        const auto bands = csvRows(results + "/bands.csv");
        for (const QStringList& row : bands)
            if (column(bands, row, "optimizer") == "momentum" && column(bands, row, "series") == "test_loss")
                medians.push_back(column(bands, row, "median").toDouble());
        QVERIFY(!medians.empty());
        QCOMPARE(figure.size(), 1 + medians.size());
        for (std::size_t i = 0; i < medians.size(); ++i)
            QCOMPARE(column(figure, figure[1 + i], "momentum_median").toDouble(), medians[i]);

        // aggregate --markdown: the summary as a Markdown table, P(loss < momentum) counted here from
        // the final runs' folders seed by seed (the same seeds give the same initial weights and batches).
        const CliResult markdown = cli({"aggregate", out, "--markdown"});
        QCOMPARE(markdown.status, 0);
        // The table's lines, then a warning for each choice on an edge of what was searched.
        const QStringList lines = markdown.out.split('\n', Qt::SkipEmptyParts).filter(QRegularExpression("^\\|"));
        QCOMPARE(lines.size(), 2 + 2);
        QVERIFY2(
            lines[0].startsWith("| task | optimizer | chosen | choice: edge; stability | validation below / chosen / "
                                "above | seeds | test loss median [IQR] |") &&
                lines[0].endsWith("| median steps to loss 0.5 (reached) | P(loss < momentum) |"),
            qPrintable(lines[0]));
        QVERIFY(lines[1].startsWith("|---|---|"));
        const auto finalLosses = [&](int o) {
            std::vector<double> losses;  // in seed order
            for (const int k : plan.finalTrials(0, o))
                losses.push_back(finalEvaluatedLoss(readTrialOutcome(layout, k)->metrics));
            return losses;
        };
        const std::vector<double> momentumLosses = finalLosses(0), neuronMeanLosses = finalLosses(1);
        double wins = 0;
        for (std::size_t i = 0; i < 3; ++i)
            wins += neuronMeanLosses[i] < momentumLosses[i] ? 1 : neuronMeanLosses[i] == momentumLosses[i] ? 0.5 : 0;
        const QStringList momentumRow = lines[2].split(" | "), neuronMeanRow = lines[3].split(" | ");
        QCOMPARE(momentumRow.value(1), QString("momentum"));
        QCOMPARE(momentumRow.back(), QString("baseline |"));
        QCOMPARE(neuronMeanRow.value(1), QString("neuron-mean"));
        QCOMPARE(neuronMeanRow.back(), QString::number(wins / 3, 'f', 2) + " |");
        QCOMPARE(neuronMeanRow.value(5), QString("3"));

        // Resume: only the unfinished trial runs again; the results are the same.
        const QByteArray summaryBefore = readAll(results + "/summary.csv");
        const QDateTime kept = QFileInfo(layout.trialDirectory(1) + "/metrics.csv").lastModified();
        QVERIFY(QFile::remove(layout.trialMarker(9)));
        QFile::resize(layout.trialDirectory(9) + "/metrics.csv", 40);  // as if killed mid-run
        QTest::qWait(20);
        QCOMPARE(cli({"study", studyFile, "--out", out, "--jobs", "1", "--quiet"}).status, 0);
        QVERIFY(QFileInfo::exists(layout.trialMarker(9)));
        QCOMPARE(QFileInfo(layout.trialDirectory(1) + "/metrics.csv").lastModified(), kept);
        QCOMPARE(readAll(results + "/summary.csv"), summaryBefore);

        // aggregate recomputes from whatever exists; a missing final seed just counts one less.
        QVERIFY(QDir(layout.trialDirectory(plan.trialCount() - 1)).removeRecursively());
        QCOMPARE(cli({"aggregate", out, "--figure-size", "90x60"}).status, 0);
        QVERIFY(readAll(results + "/summary.csv").contains("toy_circle,neuron-mean,2,"));
        QVERIFY(readAll(results + "/band-toy_circle.tex").contains("width=90.0mm, height=60.0mm"));

        // Another study in the same folder is refused.
        QByteArray other = tinyStudy();
        other.replace("\"seeds\": 3", "\"seeds\": 4");
        const CliResult mixed = cli({"study", writeFile(tmp.filePath("other.json"), other), "--out", out});
        QCOMPARE(mixed.status, 2);
        QVERIFY2(mixed.err.contains("holds another study than"), qPrintable(mixed.err));
    }

    void threadsGiveTheSameResultsAsOneWorker() {
        QTemporaryDir tmp;
        const QString studyFile = writeFile(tmp.filePath("tiny.json"), tinyStudy());
        QCOMPARE(cli({"study", studyFile, "--out", tmp.filePath("a"), "--jobs", "1", "--quiet"}).status, 0);
        QCOMPARE(cli({"study", studyFile, "--out", tmp.filePath("b"), "--jobs", "3", "--quiet"}).status, 0);
        for (const char* file : {"summary.csv", "paired.csv", "bands.csv", "selected.csv", "results.json"})
            QCOMPARE(readAll(tmp.filePath("a/results/") + file), readAll(tmp.filePath("b/results/") + file));
    }

    // A stop (Ctrl-C, the dialog's Stop) while trials wait for the commit thread: every trial counted
    // finished has its marker and whole files, the others have none, and resuming runs only those
    // and gives the results of an uninterrupted run.
    void aStopStillCommitsTheTrainedTrials() {
        QTemporaryDir tmp;
        const StudyPlan plan(studyFromJson(tinyJson(), "tiny.json"));
        const StudyLayout stopped(tmp.filePath("stopped"), plan), whole(tmp.filePath("whole"), plan);
        RunControl control;
        std::vector<int> reported;
        const int finished = runPendingTrials(stopped, pendingTrials(stopped), 2, control, [&](int trial) {
            reported.push_back(trial);
            control.requestStop();
        });
        QCOMPARE(finished, static_cast<int>(reported.size()));
        QVERIFY(finished >= 1 && finished < plan.trialCount());
        for (int k = 0; k < plan.trialCount(); ++k) {
            const bool marked = QFileInfo::exists(stopped.trialMarker(k));
            QCOMPARE(marked, std::find(reported.begin(), reported.end(), k) != reported.end());
            if (marked) QVERIFY(readTrialOutcome(stopped, k)->metrics.rowCount() > 1);
        }
        RunControl resumed, fresh;
        QCOMPARE(runPendingTrials(stopped, pendingTrials(stopped), 2, resumed), plan.trialCount() - finished);
        QCOMPARE(runPendingTrials(whole, pendingTrials(whole), 1, fresh), plan.trialCount());
        const auto contents = [](const StudyLayout& layout, int k, const char* file) {
            const QByteArray bytes = readAll(QDir(layout.trialDirectory(k)).filePath(file));
            return file == std::string(runfolder::kSummary) ? withoutWallClock(bytes) : bytes;
        };
        for (int k = 0; k < plan.trialCount(); ++k)
            for (const char* file : {runfolder::kFinalWeights, runfolder::kSummary, studyfolder::kTrialMarker})
                QVERIFY2(contents(stopped, k, file) == contents(whole, k, file),
                         qPrintable(QString("trial %1: %2").arg(k).arg(file)));
    }

    // The workers share each data set, its evaluation data and phase 1's choice (SharedTrialInputs);
    // every trial must still be what a trial run on its own (`--trial K`, a Slurm task) gives.
    // tiny.json's toy data depend on the seed, so a final seed given another seed's data would differ.
    void sharedInputsGiveTheTrialsRunOneByOne() {
        QTemporaryDir tmp;
        const StudyPlan plan(studyFromJson(tinyJson(), "tiny.json"));
        const StudyLayout shared(tmp.filePath("shared"), plan), alone(tmp.filePath("alone"), plan);
        RunControl control;
        QCOMPARE(runPendingTrials(shared, pendingTrials(shared), 2, control), plan.trialCount());
        for (int k = 0; k < plan.trialCount(); ++k) QVERIFY(runTrial(alone, k, control));  // phase 1 first
        for (int k = 0; k < plan.trialCount(); ++k) {
            for (const char* file :
                 {runfolder::kConfig, runfolder::kInitialWeights, runfolder::kFinalWeights, studyfolder::kTrialMarker})
                QVERIFY2(readAll(QDir(shared.trialDirectory(k)).filePath(file)) ==
                             readAll(QDir(alone.trialDirectory(k)).filePath(file)),
                         qPrintable(QString("trial %1: %2").arg(k).arg(file)));
            // Its evaluations, on the evaluation data the workers share, are those of `train` on its
            // config.json (which converts its own); only the timings differ.
            const QString trained = tmp.filePath(QString("train-%1").arg(k));
            QCOMPARE(cli({"train", "--config", QDir(shared.trialDirectory(k)).filePath(runfolder::kConfig), "--out",
                          trained})
                         .status,
                     0);
            for (const char* file : {runfolder::kMetrics, runfolder::kSummary})
                QVERIFY2(withoutWallClock(readAll(QDir(shared.trialDirectory(k)).filePath(file))) ==
                             withoutWallClock(readAll(QDir(trained).filePath(file))),
                         qPrintable(QString("trial %1: %2").arg(k).arg(file)));
        }
    }

    // A final run is handed out once its optimizer's tuning trials finished, not when all of phase 1
    // did: a worker moves on to optimizer 0's final runs while optimizer 1 is still being tuned.
    void finalRunsWaitOnlyForTheirOwnTuningTrials() {
        using namespace std::chrono_literals;
        const StudyPlan plan(studyFromJson(tinyJson(), "tiny.json"));
        const std::vector<int> tuning0 = plan.tuningTrials(0, 0), tuning1 = plan.tuningTrials(0, 1);
        const std::vector<int> finals0 = plan.finalTrials(0, 0), finals1 = plan.finalTrials(0, 1);
        QVERIFY(!tuning0.empty() && !tuning1.empty() && !finals0.empty() && !finals1.empty());
        std::vector<int> tuning = tuning0, finals = finals0;
        tuning.insert(tuning.end(), tuning1.begin(), tuning1.end());
        finals.insert(finals.end(), finals1.begin(), finals1.end());
        TrialQueue queue(plan, tuning, finals);
        for (const int k : tuning) QCOMPARE(queue.take(), std::optional<int>(k));  // tuning first, in order

        auto waiter = std::async(std::launch::async, [&] { return queue.take(); });
        for (std::size_t i = 0; i + 1 < tuning0.size(); ++i) queue.finished(tuning0[i]);
        QCOMPARE(waiter.wait_for(100ms), std::future_status::timeout);  // one of optimizer 0's still runs
        queue.finished(tuning0.back());
        QCOMPARE(waiter.get(), std::optional<int>(finals0.front()));  // optimizer 1 is still tuning
        for (std::size_t i = 1; i < finals0.size(); ++i) QCOMPARE(queue.take(), std::optional<int>(finals0[i]));

        auto stopped = std::async(std::launch::async, [&] { return queue.take(); });
        QCOMPARE(stopped.wait_for(100ms), std::future_status::timeout);  // optimizer 1's finals wait
        queue.close();                                                   // a stop or an error
        QCOMPARE(stopped.get(), std::optional<int>());

        // Resumed with phase 1 done: the final runs are ready at once, and the queue then ends.
        TrialQueue resumed(plan, {}, finals1);
        for (const int k : finals1) QCOMPARE(resumed.take(), std::optional<int>(k));
        QCOMPARE(resumed.take(), std::optional<int>());
    }

    // The study runner's commit thread: jobs run one at a time in the order given, a full backlog
    // holds the submitter back (bounding the trials held in memory), drain() waits for every job,
    // and the destructor still runs what is waiting.
    void commitThreadRunsJobsInOrderWithABoundedBacklog() {
        using namespace std::chrono_literals;
        std::vector<int> ran;  // only the commit thread appends
        std::promise<void> release;
        std::shared_future<void> released = release.get_future().share();
        {
            CommitThread committer(1);
            committer.submit([&ran, released] {
                released.wait();
                ran.push_back(0);
            });
            auto second = std::async(std::launch::async, [&] { committer.submit([&ran] { ran.push_back(1); }); });
            QCOMPARE(second.wait_for(100ms), std::future_status::ready);  // job 0 runs, job 1 waits: backlog of 1
            auto third = std::async(std::launch::async, [&] { committer.submit([&ran] { ran.push_back(2); }); });
            QCOMPARE(third.wait_for(100ms), std::future_status::timeout);  // backlog full
            release.set_value();
            third.get();
            committer.drain();
            QCOMPARE(ran, (std::vector<int>{0, 1, 2}));
            committer.submit([&ran] { ran.push_back(3); });
        }
        QCOMPARE(ran, (std::vector<int>{0, 1, 2, 3}));
    }

    // Group commit: the jobs waiting when the thread becomes free run together, after one call of
    // the group's hook (the study's one sync for all their files).
    void commitThreadRunsTheWaitingJobsAsOneGroup() {
        std::vector<int> groupSeen;  // per job, how many groups had begun when it ran (commit thread only)
        int groups = 0;
        std::promise<void> started, release;
        std::shared_future<void> released = release.get_future().share();
        {
            CommitThread committer(3, [&groups] { ++groups; });
            committer.submit([&, released] {
                started.set_value();
                released.wait();
                groupSeen.push_back(groups);
            });
            started.get_future().wait();  // the first group is running
            for (int job = 1; job <= 3; ++job)
                committer.submit([&] { groupSeen.push_back(groups); });  // wait meanwhile
            release.set_value();
            committer.drain();
            QCOMPARE(groups, 2);
            QCOMPARE(groupSeen, (std::vector<int>{1, 2, 2, 2}));
            committer.submit([&] { groupSeen.push_back(groups); });
        }
        QCOMPARE(groupSeen, (std::vector<int>{1, 2, 2, 2, 3}));
    }

    void listsTrialsAndEmitsSlurmScripts() {
        QTemporaryDir tmp;
        const QString studyFile = writeFile(tmp.filePath("tiny.json"), tinyStudy());
        const QString out = tmp.filePath("out");
        const CliResult list = cli({"study", studyFile, "--out", out, "--list"});
        QCOMPARE(list.status, 0);
        const QStringList lines = list.out.split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 12);
        QVERIFY2(
            lines[7].endsWith("study '" + QDir(out).filePath("study.json") + "' --out '" + out + "' --trial 7 --quiet"),
            qPrintable(lines[7]));
        QCOMPARE(cli({"study", studyFile, "--out", out, "--list", "--phase", "2"})
                     .out.split('\n', Qt::SkipEmptyParts)
                     .size(),
                 6);
        QVERIFY(QFileInfo::exists(QDir(out).filePath("study.json")));

        QCOMPARE(cli({"study", studyFile, "--out", out, "--emit", "slurm", "--throttle", "4"}).status, 0);
        const QByteArray tune = readAll(out + "/slurm/tune.sbatch");
        QVERIFY2(tune.contains("#SBATCH --array=0-5%4\n"), tune.constData());
        QVERIFY(tune.contains("--trial $((SLURM_ARRAY_TASK_ID + 0))"));
        QVERIFY(readAll(out + "/slurm/final.sbatch").contains("--trial $((SLURM_ARRAY_TASK_ID + 6))"));
        const QByteArray submit = readAll(out + "/slurm/submit.sh");
        QVERIFY(submit.contains("--dependency=afterok:$tune final.sbatch"));
        QVERIFY(submit.contains("--dependency=afterok:$final aggregate.sbatch"));

        QCOMPARE(cli({"study", studyFile, "--out", out, "--emit", "pbs"}).status, 2);
        QCOMPARE(cli({"study", studyFile, "--out", out, "--jobs", "0"}).status, 2);
        QCOMPARE(cli({"study", "--out", out}).status, 2);
        const CliResult missing = cli({"study", tmp.filePath("nope.json"), "--out", out});
        QCOMPARE(missing.status, 2);
        QVERIFY(
            missing.err.contains("no such study file, nor a shipped study (seed-question-digits, seed-question, "
                                 "lr-momentum-digits)"));
    }

    // Resuming clears an unfinished trial's folder; when that folder is a link, the link goes and
    // the folder it points at keeps its files.
    void resumeRemovesALinkedTrialFolderNotItsTarget() {
        QTemporaryDir tmp;
        const QString studyFile = writeFile(tmp.filePath("tiny.json"), tinyStudy());
        const QString out = tmp.filePath("out");
        QCOMPARE(cli({"study", studyFile, "--out", out, "--list"}).status, 0);  // creates the folder
        const QString other = tmp.filePath("other");
        QVERIFY(QDir().mkpath(other) && QDir().mkpath(out + "/tune/toy_circle/momentum"));
        writeFile(other + "/keep.txt", "precious");
        const QString trial = out + "/tune/toy_circle/momentum/trial-0";
        QVERIFY(QFile::link(other, trial));
        const CliResult r = cli({"study", studyFile, "--out", out, "--trial", "0", "--quiet"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QCOMPARE(readAll(other + "/keep.txt"), QByteArray("precious"));
        QVERIFY(!QFileInfo(trial).isSymLink() && QFileInfo::exists(trial + "/trial.json"));
    }

    // Run labels become the trials' folder names by train's rule: two labels with one name are refused.
    void labelsThatShareAFolderNameAreRefused() {
        QTemporaryDir tmp;
        QJsonObject json = tinyJson();
        QJsonArray runs = json["runs"].toArray();
        QJsonObject first = runs[0].toObject(), second = runs[1].toObject();
        first["label"] = "a/b";
        second["label"] = "a_b";
        json["runs"] = QJsonArray{first, second};
        const QString studyFile = writeFile(tmp.filePath("s.json"), QJsonDocument(json).toJson());
        const CliResult r = cli({"study", studyFile, "--out", tmp.filePath("out")});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains(studyFile + ": runs[1].label 'a_b': its folder name 'a_b' is that of runs[0] ('a/b')"),
                 qPrintable(r.err));
        QVERIFY(!QFileInfo::exists(tmp.filePath("out")));
    }

    // trial.json must describe its trial of this study: an unknown status, a point the plan does not
    // give, or a study.json edited after the trials ran is refused by name, by aggregate and resume.
    void tamperedTrialsAreRefusedByName() {
        QTemporaryDir tmp;
        const QString studyFile = writeFile(tmp.filePath("tiny.json"), tinyStudy());
        const QString out = tmp.filePath("out");
        for (const char* trial : {"0", "1"})
            QCOMPARE(cli({"study", studyFile, "--out", out, "--trial", trial, "--quiet"}).status, 0);
        const QString marker = out + "/tune/toy_circle/momentum/trial-1/trial.json";
        const QByteArray original = readAll(marker);
        const auto refused = [&](const QString& expected) {
            for (const QStringList& command :
                 {QStringList{"aggregate", out}, QStringList{"study", studyFile, "--out", out, "--quiet"}}) {
                const CliResult r = cli(command);
                if (r.status != 2 || !r.err.contains(expected))
                    return command.front() + ": " + QString::number(r.status) + " " + r.err;
            }
            return QString();
        };

        QJsonObject tampered = parseJsonObject(original, "trial.json");
        tampered["status"] = "banana";
        writeFile(marker, QJsonDocument(tampered).toJson());
        QString problem =
            refused(marker + ": status: expected done or diverged at step N (a finished trial), not 'banana'");
        QVERIFY2(problem.isEmpty(), qPrintable(problem));

        tampered = parseJsonObject(original, "trial.json");
        tampered["point"] = QJsonObject{{"lr", 0.5}};
        writeFile(marker, QJsonDocument(tampered).toJson());
        problem =
            refused(marker + ": point: expected the plan's {\"lr\":0.03} for trial 1 of momentum, not {\"lr\":0.5}");
        QVERIFY2(problem.isEmpty(), qPrintable(problem));

        writeFile(marker, original);
        QByteArray edited = readAll(out + "/study.json");
        edited.replace("\"steps\": 60", "\"steps\": 120");
        writeFile(out + "/study.json", edited);
        const CliResult r = cli({"aggregate", out});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("trial-0/trial.json: plan: the digest") &&
                     r.err.contains(out + "/study.json has the digest") &&
                     r.err.contains("the study was edited after this trial ran"),
                 qPrintable(r.err));
    }

    // One rule for a diverged final seed, in every results file: its test error counts as 1.0 (test
    // accuracy 0), as its test loss counts as infinity. summary.csv's mean accuracies and paired.csv's
    // mean test-error difference then agree seed for seed.
    void aDivergedSeedCountsAsTheWorstInEveryResultsFile() {
        QTemporaryDir tmp;
        const QString studyFile = writeFile(tmp.filePath("tiny.json"), tinyStudy());
        const QString out = tmp.filePath("out");
        QCOMPARE(cli({"study", studyFile, "--out", out, "--jobs", "2", "--quiet"}).status, 0);
        const StudyPlan plan(loadStudy(QDir(out).filePath("study.json")));
        const StudyLayout layout(out, plan);
        const int diverged = plan.finalTrials(0, 1).front();  // neuron-mean's first seed
        QJsonObject marker = parseJsonObject(readAll(layout.trialMarker(diverged)), "trial.json");
        marker["status"] = "diverged at step 60";
        writeFile(layout.trialMarker(diverged), QJsonDocument(marker).toJson());
        QCOMPARE(cli({"aggregate", out}).status, 0);

        const QString results = layout.resultsDirectory();
        const auto summary = csvRows(results + "/summary.csv");
        const auto accuracyMean = [&](int o) {
            return column(summary, summary[1 + o], "test_accuracy_mean").toDouble();
        };
        double expected = 0;  // the mean over neuron-mean's seeds, the diverged one counting 0
        for (const int k : plan.finalTrials(0, 1))
            expected += k == diverged ? 0.0 : finalEvaluatedAccuracy(readTrialOutcome(layout, k)->metrics) / 3.0;
        QVERIFY(std::abs(accuracyMean(1) - expected) < 1e-6);
        const auto paired = csvRows(results + "/paired.csv");
        int errorRows = 0;
        for (const QStringList& row : paired)
            if (column(paired, row, "metric") == "test_error") {  // a = momentum, b = neuron-mean
                ++errorRows;
                QVERIFY2(std::abs(column(paired, row, "mean_difference").toDouble() -
                                  (accuracyMean(1) - accuracyMean(0))) < 1e-6,
                         qPrintable(row.join(',')));
            }
        QCOMPARE(errorRows, 1);
    }

    // A trial is written by one process at a time: a second `--trial K` while K is held is refused,
    // naming the trial; other trials go on, and K is free again once its holder ends.
    void aTrialBeingWrittenIsRefusedToASecondWriter() {
        QTemporaryDir tmp;
        const QString studyFile = writeFile(tmp.filePath("tiny.json"), tinyStudy());
        const QString out = tmp.filePath("out");
        QCOMPARE(cli({"study", studyFile, "--out", out, "--list"}).status, 0);
        const StudyPlan plan(loadStudy(studyFile));
        const StudyLayout layout(out, plan);
        {
            const TrialLock held(layout, 1);
            const CliResult r = cli({"study", studyFile, "--out", out, "--trial", "1", "--quiet"});
            QCOMPARE(r.status, 2);
            QVERIFY2(r.err.contains("trial 1 (" + layout.trialDirectory(1) + "): is being written by another process"),
                     qPrintable(r.err));
            QVERIFY(!QFileInfo::exists(layout.trialDirectory(1)));
            QCOMPARE(cli({"study", studyFile, "--out", out, "--trial", "0", "--quiet"}).status, 0);
        }
        QCOMPARE(cli({"study", studyFile, "--out", out, "--trial", "1", "--quiet"}).status, 0);
        QVERIFY(QFileInfo::exists(layout.trialMarker(1)));
    }

    // Aggregation streams a trial's metrics.csv: the figures come from every row, the band curves
    // are bounded (a short run keeps every row, so its results are those of the whole file).
    void trialMetricsTakeEveryRowIntoBoundedCurves() {
        const auto rowAt = [](long step) {
            StepMetrics m;
            m.step = step;
            m.trainLoss = 1.0f / static_cast<float>(step);
            m.wallMs = static_cast<double>(step);
            if (step % 10 == 0) {
                m.testLoss = 2.0f / static_cast<float>(step);
                m.testAccuracy = step == 30 ? 0.99f : 0.5f;  // the best is early
            }
            return m;
        };
        TrialMetrics longRun(0.0011, true);
        for (long step = 1; step <= 100000; ++step) longRun.add(rowAt(step));
        QCOMPARE(longRun.rowCount(), 100000L);
        QCOMPARE(longRun.finalLoss(), double(2.0f / 100000.0f));
        QCOMPARE(longRun.finalAccuracy(), double(0.5f));
        QCOMPARE(longRun.bestAccuracy(), double(0.99f));
        QCOMPARE(longRun.timeToTarget().steps, 1820.0);  // the first evaluation with 2/step <= 0.0011
        QCOMPARE(longRun.timeToTarget().wallMs, 1820.0);
        QVERIFY(longRun.rows().size() <= std::size_t(kTrialCurvePoints) && longRun.rows().size() > 1000);
        QVERIFY(longRun.evaluations().size() <= std::size_t(kTrialCurvePoints));
        QCOMPARE(longRun.rows().front().step, 1L);  // the whole run stays covered

        TrialMetrics shortRun(0.001, true), tuning(0.001, false);
        for (long step = 1; step <= 5000; ++step) shortRun.add(rowAt(step)), tuning.add(rowAt(step));
        QCOMPARE(shortRun.rows().size(), std::size_t(5000));
        QCOMPARE(shortRun.evaluations().size(), std::size_t(500));
        QVERIFY(tuning.rows().empty() && tuning.evaluations().empty());  // tuning trials keep no curves
        QCOMPARE(tuning.bestAccuracy(), shortRun.bestAccuracy());
    }

    void shippedStudiesParse() {
        for (const char* id : {"1-seed-question-digits", "2-seed-question"}) {
            const Study study = loadStudy(QString(":/studies/") + id + ".json");
            QCOMPARE(study.optimizers.size(), std::size_t(5));
            QCOMPARE(study.seeds, 10);
            QCOMPARE(StudyPlan(study).point(0, 1), stats::TrialPoint{0.0001});
        }
    }
};

QTEST_GUILESS_MAIN(TestStudy)
#include "test_study.moc"
