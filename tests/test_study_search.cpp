// Studies' tuning search: refining rounds (planned from the rounds before, past an edge while the
// best value sits on it) and several tuning seeds per candidate, with equal budgets; the plan
// stays the same for every front end (local run, --list by round, --trial K, Slurm arrays per round).
#include "TestSupport.h"
#include "cli/Cli.h"
#include "io/Files.h"
#include "io/JsonFile.h"
#include "study/StudyRunner.h"
#include "study/TrialQueue.h"
#include "study/TuningRounds.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <chrono>
#include <cmath>
#include <functional>
#include <future>
#include <iostream>
#include <set>
#include <signal.h>
#include <sstream>

using namespace ml;

namespace {

// tests/studies/refined.json (the Slurm test runs it too): two optimizers on toy:circle, a 3-value
// coarse grid, 2 refining rounds of 2, 2 tuning seeds: (1 + 3 + 2 x 2) candidates x 2 seeds = 16
// tuning trials each, then 3 final seeds.
QByteArray refinedStudy() {
    return readFileBytes(QStringLiteral(MOMENTUM_LAB_SOURCE_DIR "/tests/studies/refined.json"));
}

QJsonObject refinedJson() { return parseJsonObject(refinedStudy(), "refined.json"); }

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

// A refining search run against a synthetic validation figure of one value (infinity: diverged),
// as the study runner runs it: round 0 the grid, each later round planned from the ones before.
struct SyntheticSearch {
    std::vector<double> values, scores;
    int best() const {
        int b = 0;
        for (int i = 1; i < static_cast<int>(scores.size()); ++i)
            if (scores[i] < scores[b]) b = i;
        return b;
    }
    double bestValue() const { return values[best()]; }
};

SyntheticSearch searchSynthetic(
    std::vector<double> grid, int rounds, int points, const std::function<double(double)>& score,
    const std::function<bool(double)>& allowed = [](double) { return true; }) {
    SyntheticSearch search;
    for (const double v : grid) search.values.push_back(v), search.scores.push_back(score(v));
    const double coarse = std::log(grid[1]) - std::log(grid[0]);
    for (int r = 1; r <= rounds; ++r)
        for (const double v : planRefiningRound(search.values, search.best(), coarse, r, points, allowed))
            search.values.push_back(v), search.scores.push_back(score(v));
    return search;
}

std::vector<double> halfDecadeGrid() {  // 1e-4 .. 1, the shipped studies' grid
    std::vector<double> grid;
    for (int i = 0; i <= 8; ++i) grid.push_back(std::pow(10.0, -4.0 + 0.5 * i));
    return grid;
}

double decades(double a, double b) { return std::abs(std::log10(a) - std::log10(b)); }

// The results files a study's trials determine (time-to-target.csv holds wall-clock times).
const char* const kResultFiles[] = {"trials.csv", "selected.csv", "sensitivity.csv", "summary.csv",
                                    "paired.csv", "bands.csv",    "results.json"};

}  // namespace

class TestStudySearch : public QObject {
    Q_OBJECT
private slots:
    // A validation figure with its optimum at 0.56, between the half-decade grid's 0.316 and 1: the
    // grid picks 0.316, a quarter-decade then an eighth-decade round bracket the optimum.
    void refiningRoundsBracketAnOptimumTheGridMisses() {
        const auto bowl = [](double lr) { return std::pow(std::log10(lr) - std::log10(0.56), 2); };
        const SyntheticSearch coarse = searchSynthetic(halfDecadeGrid(), 0, 2, bowl);
        QVERIFY(decades(coarse.bestValue(), 0.56) > 0.2);
        const SyntheticSearch refined = searchSynthetic(halfDecadeGrid(), 2, 2, bowl);
        QCOMPARE(refined.values.size(), std::size_t(9 + 2 * 2));
        // Round 1 tries the quarter-decade values around the coarse best, round 2 the eighth-decade ones.
        QVERIFY(std::abs(decades(refined.values[9], coarse.bestValue()) - 0.25) < 1e-9);
        QVERIFY(std::abs(decades(refined.values[10], coarse.bestValue()) - 0.25) < 1e-9);
        const SyntheticSearch round1 = searchSynthetic(halfDecadeGrid(), 1, 2, bowl);
        QVERIFY(std::abs(decades(refined.values[11], round1.bestValue()) - 0.125) < 1e-9);
        QVERIFY(std::abs(decades(refined.values[12], round1.bestValue()) - 0.125) < 1e-9);
        QVERIFY2(decades(refined.bestValue(), 0.56) <= 0.0625 + 1e-9, qPrintable(QString::number(refined.bestValue())));
        // Bracketed: a searched value on each side of the choice scores worse.
        const double chosen = refined.bestValue();
        bool below = false, above = false;
        for (std::size_t i = 0; i < refined.values.size(); ++i) {
            below |= refined.values[i] < chosen && refined.scores[i] > refined.scores[refined.best()];
            above |= refined.values[i] > chosen && refined.scores[i] > refined.scores[refined.best()];
        }
        QVERIFY(below && above);
    }

    // The best value on the top edge of the grid: the next round goes past it at the coarse spacing,
    // again while the best stays on the edge, until a value diverges; then it refines inside.
    void edgeExtensionMovesPastATopEdgeChoice() {
        const auto rising = [](double lr) { return lr > 20 ? INFINITY : std::pow(std::log10(lr) - 1.0, 2); };
        const SyntheticSearch search = searchSynthetic(halfDecadeGrid(), 3, 2, rising);
        QCOMPARE(searchSynthetic(halfDecadeGrid(), 0, 2, rising).bestValue(), 1.0);
        // Round 1: 3.16 and 10, past the edge at 1.
        QVERIFY(std::abs(search.values[9] - std::sqrt(10.0)) < 1e-9);
        QVERIFY(search.values[10] == 10.0);  // exactly, so its label reads "lr=10"
        // Round 2: 10 is on the new edge: 31.6 (diverges) and 100 (diverges).
        QVERIFY(search.values[11] > 30 && std::isinf(search.scores[11]));
        // Round 3: 10 is bounded by a diverged value: it bisects the half decades next to it.
        QVERIFY(std::abs(decades(search.values[13], 10.0) - 0.25) < 1e-9);
        QVERIFY(std::abs(decades(search.values[14], 10.0) - 0.25) < 1e-9);
        QCOMPARE(search.bestValue(), 10.0);
        // A bound on the hyper-parameter (a value it may not take) makes the round refine instead.
        const SyntheticSearch bounded =
            searchSynthetic(halfDecadeGrid(), 1, 2, rising, [](double v) { return v <= 1; });
        QVERIFY(std::abs(decades(bounded.values[9], 1.0) - 0.25) < 1e-9);
        QVERIFY(std::abs(decades(bounded.values[10], 1.0) - 0.125) < 1e-9 && bounded.values[10] < 1);
    }

    void parsesAndRefusesTheSearchKeys() {
        const Study study = studyFromJson(refinedJson(), "refined.json");
        QCOMPARE(study.refine.rounds, 2);
        QCOMPARE(study.refine.points, 2);
        QCOMPARE(study.tuningSeeds, 2);
        QCOMPARE(study.candidates(), 8);
        const auto refused = [](const char* key, const QJsonValue& value) {
            QJsonObject json = refinedJson(), section = json["study"].toObject();
            section[key] = value;
            json["study"] = section;
            return test::inputErrorOf([&] { studyFromJson(json, "S.json"); });
        };
        QVERIFY(refused("budget", 15).contains("S.json: study.budget: 15 trials cannot be shared by 2 tuning seeds"));
        QVERIFY2(refused("budget", 18)
                     .contains("the grid has 3 points; with the untuned defaults and 4 refining "
                               "candidates that makes 8 candidates x 2 tuning seeds = 16 trials, "
                               "but the budget is 18"),
                 qPrintable(refused("budget", 18)));
        QVERIFY(
            refused("tuning-statistic", "mode").contains("study.tuning-statistic: expected \"median\" or \"mean\""));
        QVERIFY(refused("refine", QJsonObject{{"rounds", 0}}).contains("study.refine.rounds: expected a whole number"));
        QVERIFY(refused("refine", QJsonObject{{"rounds", 1}, {"step", 2}}).contains("unknown key 'step'"));
        QVERIFY(refused("search",
                        QJsonObject{{"*", QJsonObject{{"lr", QJsonObject{{"log-uniform", QJsonArray{0.01, 1}}}}}}})
                    .contains("a refining search (study.refine) starts from a grid of at least 2 values"));
    }

    // Trial numbers: rounds in order, each candidate on every tuning seed; the tuning seeds are
    // apart from the final seeds; every optimizer gets the same number of trials.
    void plansRoundsAndTuningSeedsWithEqualBudgets() {
        const StudyPlan plan(studyFromJson(refinedJson(), "refined.json"));
        QCOMPARE(plan.rounds(), 3);
        QCOMPARE(plan.tuningCount(), 2 * 16);
        QCOMPARE(plan.roundBegin(1), 2 * 4 * 2);
        QCOMPARE(plan.roundBegin(2), 2 * 4 * 2 + 2 * 2 * 2);
        std::set<std::uint64_t> tuningSeeds, finalSeeds;
        for (int o = 0; o < 2; ++o) {
            const std::vector<int> trials = plan.tuningTrials(0, o);
            QCOMPARE(static_cast<int>(trials.size()), plan.study().budget);
            for (std::size_t i = 0; i < trials.size(); ++i) {
                const StudyTrial& t = plan.trial(trials[i]);
                QCOMPARE(t.number, static_cast<int>(i));
                QCOMPARE(t.number, t.candidate * 2 + t.tuningSeed);
                QCOMPARE(t.round, t.candidate < 4 ? 0 : t.candidate < 6 ? 1 : 2);
                tuningSeeds.insert(t.seed);
            }
            for (const int k : plan.finalTrials(0, o)) finalSeeds.insert(plan.trial(k).seed);
        }
        QCOMPARE(tuningSeeds, (std::set<std::uint64_t>{3, 3 + 3 + 1}));
        QCOMPARE(finalSeeds, (std::set<std::uint64_t>{4, 5, 6}));
        QCOMPARE(plan.experiment(plan.trial(1), plan.point(0, 0)).seed, std::uint64_t(7));
    }

    // A refining round's trials wait for the rounds before them (same task and optimizer).
    void aRefiningRoundWaitsForTheRoundsBefore() {
        using namespace std::chrono_literals;
        const StudyPlan plan(studyFromJson(refinedJson(), "refined.json"));
        const std::vector<int> round0 = plan.roundTrials(0, 0, 0), round1 = plan.roundTrials(1, 0, 0);
        TrialQueue queue(plan, round1, {});
        std::vector<int> tuning = round0;
        tuning.insert(tuning.end(), round1.begin(), round1.end());
        TrialQueue both(plan, tuning, {});
        for (const int k : round0) QCOMPARE(both.take(), std::optional<int>(k));
        auto waiter = std::async(std::launch::async, [&] { return both.take(); });
        for (std::size_t i = 0; i + 1 < round0.size(); ++i) both.finished(round0[i]);
        QCOMPARE(waiter.wait_for(100ms), std::future_status::timeout);
        both.finished(round0.back());
        QCOMPARE(waiter.get(), std::optional<int>(round1.front()));
        QCOMPARE(queue.take(), std::optional<int>(round1.front()));  // round 0 already finished (resumed)
    }

    // The local run, the trials run one by one through --list --round / --trial K (as Slurm array
    // tasks would), and a run resumed after trials lost their markers give the same files; a
    // refining round refuses to run before the rounds it is planned from.
    void listedTrialsAndAResumeEqualTheLocalRun() {
        QTemporaryDir tmp;
        const QString studyFile = writeFile(tmp.filePath("refined.json"), refinedStudy());
        const QString local = tmp.filePath("local"), listed = tmp.filePath("listed");
        QCOMPARE(cli({"study", studyFile, "--out", local, "--jobs", "2", "--quiet"}).status, 0);

        const StudyPlan plan(loadStudy(studyFile));
        const CliResult early =
            cli({"study", studyFile, "--out", listed, "--trial", QString::number(plan.roundBegin(1)), "--quiet"});
        QCOMPARE(early.status, 2);
        QVERIFY2(early.err.contains("round 1 of toy_circle / momentum is planned from the rounds before it, which are "
                                    "unfinished: 8 tuning trial(s) missing (0, 1, 2, 3, 4, ...)"),
                 qPrintable(early.err));
        for (int r = 0; r < plan.rounds(); ++r) {
            const QStringList commands =
                cli({"study", studyFile, "--out", listed, "--list", "--round", QString::number(r)})
                    .out.split('\n', Qt::SkipEmptyParts);
            QCOMPARE(commands.size(), plan.roundBegin(r + 1) - plan.roundBegin(r));
            for (int i = 0; i < commands.size(); ++i) {
                QVERIFY(commands[i].endsWith("--trial " + QString::number(plan.roundBegin(r) + i) + " --quiet"));
                QCOMPARE(cli({"study", studyFile, "--out", listed, "--trial", QString::number(plan.roundBegin(r) + i),
                              "--quiet"})
                             .status,
                         0);
            }
        }
        for (int k = plan.tuningCount(); k < plan.trialCount(); ++k)
            QCOMPARE(cli({"study", studyFile, "--out", listed, "--trial", QString::number(k), "--quiet"}).status, 0);
        QCOMPARE(cli({"aggregate", listed}).status, 0);
        for (const char* file : kResultFiles)
            QVERIFY2(readFileBytes(local + "/results/" + file) == readFileBytes(listed + "/results/" + file), file);

        // The refined rounds' values are new ones, planned from round 0 (not the grid again).
        const StudyLayout layout(local, plan);
        const CandidateTable table = readCandidates(layout, 0, 0, plan.rounds());
        QCOMPARE(static_cast<int>(table.candidates.size()), plan.study().candidates());
        std::set<double> values;
        for (const CandidateOutcome& c : table.candidates) {
            values.insert(c.values.front());
            QCOMPARE(static_cast<int>(c.trials.size()), 2);
        }
        QVERIFY(values.size() >= 7);  // the defaults' 0.1 is also on the grid
        const QString trials = QString::fromUtf8(readFileBytes(local + "/results/trials.csv"));
        QVERIFY(
            trials.startsWith("trial,phase,task,optimizer,number,seed,configuration,evaluated_on,status,final_loss,"
                              "final_accuracy,best_accuracy,score,round,candidate,tuning_seed\n"));
        const QJsonObject marker = readJsonObject(layout.trialMarker(plan.roundBegin(2) + 1));
        QCOMPARE(marker["round"].toInt(), 2);
        QCOMPARE(marker["tuning_seed"].toInt(), 1);

        // As after a SIGKILL: trials of each round and a final run lose their markers (unfinished).
        for (const int k : {1, plan.roundBegin(1) + 2, plan.roundBegin(2), plan.tuningCount() + 1})
            QVERIFY(QFile::remove(layout.trialMarker(k)));
        const QByteArray before = readFileBytes(local + "/results/summary.csv");
        QCOMPARE(cli({"study", studyFile, "--out", local, "--jobs", "2", "--quiet"}).status, 0);
        for (const char* file : kResultFiles)
            QVERIFY2(readFileBytes(local + "/results/" + file) == readFileBytes(listed + "/results/" + file), file);
        QCOMPARE(readFileBytes(local + "/results/summary.csv"), before);
    }

    // SIGKILL in the middle of a refining round (the CLI as a child, no chance to clean up): the
    // same command resumes and gives the files of an uninterrupted run.
    void aKilledRefiningStudyResumesToTheSameResults() {
        QTemporaryDir tmp;
        QJsonObject json = refinedJson();
        json["steps"] = 1500;  // long enough to be killed mid-round
        const QString studyFile =
            writeFile(tmp.filePath("refined.json"), QJsonDocument(json).toJson(QJsonDocument::Compact));
        const QString killed = tmp.filePath("killed"), whole = tmp.filePath("whole");
        const StudyPlan plan(loadStudy(studyFile));
        QProcess process;
        process.start(MOMENTUM_LAB_CLI, {"study", studyFile, "--out", killed, "--jobs", "2", "--quiet"});
        QVERIFY(process.waitForStarted());
        const StudyLayout layout(killed, plan);
        const QString roundOne = layout.trialMarker(plan.roundBegin(1));
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(roundOne), 120000);
        QCOMPARE(::kill(static_cast<pid_t>(process.processId()), SIGKILL), 0);
        QVERIFY(process.waitForFinished(30000));
        QCOMPARE(process.exitStatus(), QProcess::CrashExit);
        QVERIFY(!pendingTrials(layout).tuning.empty());  // killed before phase 1 ended

        QCOMPARE(cli({"study", studyFile, "--out", killed, "--jobs", "2", "--quiet"}).status, 0);
        QCOMPARE(cli({"study", studyFile, "--out", whole, "--jobs", "2", "--quiet"}).status, 0);
        for (const char* file : kResultFiles)
            QVERIFY2(readFileBytes(killed + "/results/" + file) == readFileBytes(whole + "/results/" + file), file);
    }

    // One tuning array per round, each submitted after the one before succeeded.
    void emitsOneSlurmArrayPerRoundChained() {
        QTemporaryDir tmp;
        const QString studyFile = writeFile(tmp.filePath("refined.json"), refinedStudy());
        const QString out = tmp.filePath("out");
        QCOMPARE(cli({"study", studyFile, "--out", out, "--emit", "slurm"}).status, 0);
        const QByteArray round1 = readFileBytes(out + "/slurm/tune-round-1.sbatch");
        QVERIFY2(round1.contains("#SBATCH --array=0-7%32\n"), round1.constData());
        QVERIFY(round1.contains("--trial $((SLURM_ARRAY_TASK_ID + 16))"));
        QVERIFY(readFileBytes(out + "/slurm/tune.sbatch").contains("#SBATCH --array=0-15%32\n"));
        QVERIFY(readFileBytes(out + "/slurm/tune-round-2.sbatch").contains("--trial $((SLURM_ARRAY_TASK_ID + 24))"));
        QVERIFY(readFileBytes(out + "/slurm/final.sbatch").contains("--trial $((SLURM_ARRAY_TASK_ID + 32))"));
        const QByteArray submit = readFileBytes(out + "/slurm/submit.sh");
        QVERIFY2(submit.contains("tune_round_1=$(sbatch --parsable --dependency=afterok:$tune tune-round-1.sbatch)"),
                 submit.constData());
        QVERIFY(submit.contains("--dependency=afterok:$tune_round_1 tune-round-2.sbatch"));
        QVERIFY(submit.contains("--dependency=afterok:$tune_round_2 final.sbatch"));
        QVERIFY(submit.contains("--dependency=afterok:$final aggregate.sbatch"));
        QCOMPARE(cli({"study", studyFile, "--out", out, "--list", "--round", "3"}).status, 2);
        QCOMPARE(cli({"study", studyFile, "--out", out, "--list", "--round", "1", "--phase", "2"}).status, 2);
        const CliResult alone = cli({"study", studyFile, "--out", out, "--round", "1"});
        QCOMPARE(alone.status, 2);
        QVERIFY2(alone.err.contains("--round: only read with --list or --list0, not with running every trial"),
                 qPrintable(alone.err));
    }
};

QTEST_GUILESS_MAIN(TestStudySearch)
#include "test_study_search.moc"
