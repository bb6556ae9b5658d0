// Whether a study's choice is fragile: a chosen value on an edge of what was searched (and the
// edge of what diverges, which is not), the selection's stability under resampled tuning seeds on
// hand-made scores, and what results.json and the summary table say about it.
#include "TestSupport.h"
#include "cli/Cli.h"
#include "io/Files.h"
#include "io/JsonFile.h"
#include "study/SelectionFragility.h"
#include "study/StudyPlan.h"
#include "study/StudyAggregate.h"
#include "study/StudySummaryTable.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <iostream>
#include <sstream>

using namespace ml;

namespace {

constexpr double kInf = INFINITY;

// A 1-D search over lr, one tuning seed: the values and their scores (infinity: diverged).
std::vector<TuningScore> lrTrials(const std::vector<std::pair<double, double>>& scores) {
    std::vector<TuningScore> trials;
    for (const auto& [lr, score] : scores) trials.push_back({{lr}, 7, score, std::isinf(score)});
    return trials;
}

int runCliQuietly(QStringList arguments, QString* out = nullptr) {
    arguments.prepend("momentum-lab-cli");
    std::ostringstream printed, captured;
    std::streambuf* previousOut = std::cout.rdbuf(printed.rdbuf());
    std::streambuf* previousErr = std::cerr.rdbuf(captured.rdbuf());
    const int status = runCli(arguments);
    std::cout.rdbuf(previousOut);
    std::cerr.rdbuf(previousErr);
    if (out) *out = QString::fromStdString(printed.str());
    return status;
}

}  // namespace

class TestStudyFragility : public QObject {
    Q_OBJECT
private slots:
    void aChoiceOnTheTopEdgeIsFlagged() {
        const SelectionFragility f = assessSelection({"lr"}, lrTrials({{0.01, 0.5}, {0.1, 0.3}, {1.0, 0.2}}), {1.0});
        QCOMPARE(f.parameters.size(), std::size_t(1));
        const ParameterFragility& lr = f.parameters[0];
        QVERIFY(lr.above == EdgeSide::Edge);
        QVERIFY(lr.below == EdgeSide::Searched);
        QVERIFY(lr.onEdge() && f.onEdge());
        QCOMPARE(lr.edgeName(), std::string("upper edge"));
        QCOMPARE(lr.searchedLow, 0.01);
        QCOMPARE(lr.searchedHigh, 1.0);
        QCOMPARE(lr.lower.value, 0.1);
        QCOMPARE(lr.lower.score, 0.3);
        QVERIFY(std::isnan(lr.upper.value));
        QCOMPARE(f.chosenScore, 0.2);
    }

    void aChoiceBelowADivergedValueIsTheEdgeOfWhatDiverges() {
        const SelectionFragility f =
            assessSelection({"lr"}, lrTrials({{0.01, 0.5}, {0.1, 0.3}, {1.0, 0.2}, {3.16, kInf}}), {1.0});
        const ParameterFragility& lr = f.parameters.at(0);
        QVERIFY(lr.above == EdgeSide::Diverged);
        QVERIFY(!lr.onEdge() && !f.onEdge());
        QCOMPARE(lr.upper.value, 3.16);
        QVERIFY(std::isinf(lr.upper.score));
        QCOMPARE(lr.edgeName(), std::string());
        // The bottom of the range is an edge too; an interior choice is on neither.
        QVERIFY(assessSelection({"lr"}, lrTrials({{0.01, 0.1}, {0.1, 0.3}}), {0.01}).parameters[0].below ==
                EdgeSide::Edge);
        const ParameterFragility inside =
            assessSelection({"lr"}, lrTrials({{0.01, 0.5}, {0.1, 0.1}, {1.0, 0.3}}), {0.1}).parameters[0];
        QVERIFY(inside.below == EdgeSide::Searched && inside.above == EdgeSide::Searched);
    }

    // A value at the hyper-parameter's own bound (momentum 0) has nothing beyond it: not an edge.
    void aChoiceAtTheParametersBoundIsNotFragile() {
        const std::vector<TuningScore> trials = lrTrials({{0.0, 0.1}, {0.5, 0.3}, {0.9, 0.4}});
        const ParameterFragility bounded = assessSelection({{"momentum", 0.0, 1.0}}, trials, {0.0}).parameters[0];
        QVERIFY(bounded.below == EdgeSide::Bound && !bounded.onEdge());
        QCOMPARE(toString(bounded.below), std::string("bound"));
        QVERIFY(assessSelection({"momentum"}, trials, {0.0}).parameters[0].below == EdgeSide::Edge);
    }

    // A grid over two keys: each key along the line through the choice, the other key held.
    void aGridIsCheckedAlongEachKey() {
        std::vector<TuningScore> trials;
        for (const double lr : {0.01, 0.1, 1.0})
            for (const double momentum : {0.5, 0.9, 0.99}) {
                // Best at lr 0.1 and the highest momentum; lr 1 diverges with momentum 0.99.
                const double score = lr == 1.0 && momentum == 0.99 ? kInf : std::abs(std::log10(lr) + 1) + 1 - momentum;
                trials.push_back({{lr, momentum}, 7, score, std::isinf(score)});
            }
        const SelectionFragility f = assessSelection({"lr", "momentum"}, trials, {0.1, 0.99});
        QCOMPARE(f.parameters.size(), std::size_t(2));
        QVERIFY(f.parameters[0].below == EdgeSide::Searched);
        QVERIFY(f.parameters[0].above == EdgeSide::Diverged);  // lr 1 at momentum 0.99
        QVERIFY(f.parameters[1].above == EdgeSide::Edge);      // momentum 0.99 is the top of its grid
        QCOMPARE(f.parameters[1].lower.value, 0.9);
        QCOMPARE(f.parameters[1].lower.score, 0.1);
        QCOMPARE(f.parameters[1].edgeName(), std::string("upper edge"));
    }

    void oneTuningSeedCannotMeasureStability() {
        const SelectionFragility f = assessSelection({"lr"}, lrTrials({{0.01, 0.5}, {0.1, 0.3}}), {0.1});
        QCOMPARE(f.tuningSeeds, 1);
        QVERIFY(!f.measurable());
        QCOMPARE(f.resamples, 0);
    }

    // Three tuning seeds per point: the bootstrap's share of wins against the exact one, counted
    // over all 27 equally likely draws of three seeds (the same draw for both points).
    void stabilityIsTheShareOfResampledWins() {
        const std::vector<double> a{0.10, 0.40, 0.12}, b{0.20, 0.11, 0.30};
        std::vector<TuningScore> trials;
        for (std::uint64_t s = 0; s < 3; ++s) {
            trials.push_back({{0.1}, s, a[s], false});
            trials.push_back({{1.0}, s, b[s], false});
        }
        const auto median3 = [](double x, double y, double z) {
            return std::max(std::min(x, y), std::min(std::max(x, y), z));
        };
        int aWins = 0;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                for (int k = 0; k < 3; ++k) aWins += median3(a[i], a[j], a[k]) <= median3(b[i], b[j], b[k]) ? 1 : 0;
        const SelectionFragility f = assessSelection({"lr"}, trials, {0.1}, {SeedStatistic::Median, 4000, 1});
        QCOMPARE(f.tuningSeeds, 3);
        QCOMPARE(f.chosenScore, 0.12);
        QVERIFY2(std::abs(f.stability - aWins / 27.0) < 0.03,
                 qPrintable(QString("%1 vs %2").arg(f.stability).arg(aWins / 27.0)));
        // Deterministic: the same RNG seed gives the same stability.
        QCOMPARE(assessSelection({"lr"}, trials, {0.1}, {SeedStatistic::Median, 4000, 1}).stability, f.stability);
        // The same point tried again on the same seeds (the defaults equal to a grid value) counts once.
        std::vector<TuningScore> twice = trials;
        for (std::uint64_t seed = 0; seed < 3; ++seed) twice.push_back({{0.1}, seed, a[seed], false});
        QCOMPARE(assessSelection({"lr"}, twice, {0.1}).tuningSeeds, 3);
        QCOMPARE(assessSelection({"lr"}, twice, {0.1}, {SeedStatistic::Median, 4000, 1}).stability, f.stability);
        // A point that wins on every seed is always chosen again.
        trials[1].score = trials[3].score = trials[5].score = 1.0;
        QCOMPARE(assessSelection({"lr"}, trials, {0.1}).stability, 1.0);
    }

    // The tiny study: results.json says where each choice sits, the summary table and its warnings
    // agree with it.
    void resultsSayWhereTheChoiceSits() {
        QTemporaryDir tmp;
        const QString out = tmp.filePath("out");
        QCOMPARE(runCliQuietly({"study", QStringLiteral(MOMENTUM_LAB_SOURCE_DIR "/tests/studies/tiny.json"), "--out",
                                out, "--jobs", "2", "--quiet"}),
                 0);
        const QJsonObject results = readJsonObject(out + "/results/results.json");
        QStringList expectedWarnings;
        for (const QJsonValue& entry : results["tasks"][0]["optimizers"].toArray()) {
            const QJsonObject fragility = entry["fragility"].toObject();
            QCOMPARE(fragility["tuning_seeds"].toInt(), 1);
            QVERIFY(fragility["stability"].isNull());
            QCOMPARE(fragility["stability_note"].toString(), QString("one tuning seed: stability not measurable"));
            const QJsonObject lr = fragility["parameters"][0].toObject();
            QCOMPARE(lr["parameter"].toString(), QString("lr"));
            // tiny.json searches lr 0.03 and 0.3; the defaults add 0.1.
            QCOMPARE(lr["searched_low"].toDouble(), 0.03);
            QCOMPARE(lr["searched_high"].toDouble(), 0.3);
            const double chosen = lr["value"].toDouble();
            QVERIFY(entry["configuration"].toString().contains("lr=" + QString::number(chosen)));
            const bool onEdge = chosen == 0.03 || chosen == 0.3;
            QCOMPARE(lr["on_edge"].toBool(), onEdge);
            QCOMPARE(fragility["on_edge"].toBool(), onEdge);
            QCOMPARE(lr["lower_neighbour"].isNull(), chosen == 0.03);
            QCOMPARE(lr["upper_neighbour"].isNull(), chosen == 0.3);
            if (onEdge)
                expectedWarnings << "toy_circle / " + entry["optimizer"].toString() +
                                        ": lr = " + QString::number(chosen) + " is on the " +
                                        (chosen == 0.3 ? "upper" : "lower") +
                                        " edge of what was searched (0.03 to 0.3); the best value may lie beyond it";
        }
        QStringList warnings;
        for (const QJsonValue& w : results["warnings"].toArray()) warnings << w.toString();
        QCOMPARE(warnings, expectedWarnings);

        const StudySummaryTable table(results);
        QCOMPARE(table.header().value(3), QString("choice: edge; stability"));
        for (const QStringList& row : table.rows()) QVERIFY2(row[3].endsWith("; 1 tuning seed"), qPrintable(row[3]));
        QString printed;
        QCOMPARE(runCliQuietly({"aggregate", out}, &printed), 0);
        for (const QString& warning : expectedWarnings)
            QVERIFY2(printed.contains("warning: " + warning), qPrintable(printed));
        QVERIFY(runCliQuietly({"aggregate", out, "--markdown"}, &printed) == 0);
        QCOMPARE(printed.count("**Warning:**"), expectedWarnings.size());
    }

    // The shipped two-parameter study: a grid over two keys counts every pair against the budget
    // (5 x 5 pairs and the defaults, each on 3 tuning seeds: 78 trials per optimizer).
    void theTwoParameterPresetSpendsEqualBudgets() {
        const Study study = loadStudy(":/studies/3-lr-momentum-digits.json");
        QCOMPARE(study.optimizers.size(), std::size_t(3));
        QCOMPARE(study.tuningSeeds, 3);
        QCOMPARE(study.candidates(), 26);
        const StudyPlan plan(study);
        for (int o = 0; o < 3; ++o) {
            QCOMPARE(study.optimizers[static_cast<std::size_t>(o)].space.size(), std::size_t(2));
            QCOMPARE(plan.tuningTrials(0, o).size(), std::size_t(78));
        }
        // adam's last pair, its keys in the file's (sorted) order: beta2, lr.
        QCOMPARE(plan.point(2, 25), (stats::TrialPoint{0.9999, 0.1}));
    }
};

QTEST_GUILESS_MAIN(TestStudyFragility)
#include "test_study_fragility.moc"
