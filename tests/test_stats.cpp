// The statistics of studies, against values computed by hand (in the comments) or by theory.
#include "stats/Bootstrap.h"
#include "stats/Descriptive.h"
#include "stats/ExpectedBest.h"
#include "stats/PerformanceProfile.h"
#include "stats/SearchSpace.h"
#include "stats/SeedBands.h"
#include "stats/TimeToTarget.h"

#include <QTest>

#include <cmath>
#include <limits>
#include <vector>

using namespace ml::stats;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
bool near(double a, double b, double tolerance = 1e-12) { return std::abs(a - b) <= tolerance; }
}  // namespace

class TestStats : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void quantilesInterpolateLikeNumpy() {
        const std::vector<double> v{4, 1, 3, 2};  // sorted 1 2 3 4
        QVERIFY(near(quantile(v, 0.25), 1.75));   // position 0.75 between 1 and 2
        QVERIFY(near(median(v), 2.5));
        QVERIFY(near(quantile(v, 0.75), 3.25));
        QVERIFY(near(quantile(v, 0.0), 1.0));
        QVERIFY(near(quantile(v, 1.0), 4.0));
        QVERIFY(near(median(std::vector<double>{5, 1, 9}), 5.0));
        QVERIFY(std::isnan(median(std::vector<double>{})));
        const Spread s = spreadOf(std::vector<double>{10, 20, 30, 40, 50});
        QVERIFY(near(s.median, 30) && near(s.lowerQuartile, 20) && near(s.upperQuartile, 40));
        // Tukey's fence: 40 + 1.5 * (40 - 20) = 70; an outlier moves it little (Q3 4 -> 4, Q1 2).
        QVERIFY(near(upperFence(std::vector<double>{10, 20, 30, 40, 50}), 70));
        QVERIFY(near(upperFence(std::vector<double>{1, 2, 3, 4, 1000}), 4 + 1.5 * (4 - 2)));
        QVERIFY(std::isnan(upperFence(std::vector<double>{})));
    }

    void bootstrapMeanIntervalMatchesTheory() {
        // 1..10: mean 5.5; the bootstrap standard error is the population sd / sqrt(n)
        // = 2.8723 / 3.1623 = 0.9083, so the 95 % interval is about 5.5 -+ 1.96 * 0.9083 = [3.72, 7.28].
        std::vector<double> v;
        for (int i = 1; i <= 10; ++i) v.push_back(i);
        const Interval ci = bootstrapMean(v, {0.95, 20000, 1});
        QVERIFY(near(ci.estimate, 5.5));
        QVERIFY2(std::abs(ci.low - 3.72) < 0.15, qPrintable(QString::number(ci.low)));
        QVERIFY2(std::abs(ci.high - 7.28) < 0.15, qPrintable(QString::number(ci.high)));
        // Seeded: the same report twice; another seed moves the bounds a little.
        const Interval again = bootstrapMean(v, {0.95, 20000, 1});
        QCOMPARE(again.low, ci.low);
        QCOMPARE(again.high, ci.high);
        // A constant sample has no spread.
        const Interval constant = bootstrapMean(std::vector<double>{2, 2, 2}, {});
        QVERIFY(near(constant.low, 2) && near(constant.high, 2));
        // A narrower level gives a narrower interval.
        const Interval fifty = bootstrapMean(v, {0.5, 20000, 1});
        QVERIFY(fifty.low > ci.low && fifty.high < ci.high);
    }

    void pairedComparison() {
        // Lower is better. Seeds: 1<2 win, 2=2 tie, 3>1 loss, 4<5 win -> (1 + 0.5 + 0 + 1) / 4.
        const std::vector<double> a{1, 2, 3, 4}, b{2, 2, 1, 5};
        const PairedComparison c = comparePaired(a, b, {0.95, 5000, 3});
        QVERIFY(near(c.probabilityABetter, 0.625));
        QVERIFY(near(c.meanDifference.estimate, (-1 + 0 + 2 - 1) / 4.0));
        QVERIFY(c.meanDifference.low <= c.meanDifference.estimate &&
                c.meanDifference.estimate <= c.meanDifference.high);
        // A run that never reached the target (infinity) loses, and the mean difference is undefined.
        const PairedComparison withFailure = comparePaired(std::vector<double>{kInf, 3}, std::vector<double>{5, 4});
        QVERIFY(near(withFailure.probabilityABetter, 0.5));
        QVERIFY(std::isnan(withFailure.meanDifference.estimate));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, comparePaired(a, std::vector<double>{1}));
    }

    void probabilityBetterPairsBySeedElseAllPairs() {
        // The expected value is counted here from the inputs the way a reader would by hand.
        const auto countWins = [](const std::vector<std::pair<double, double>>& pairs) {
            double wins = 0;
            for (const auto& [x, y] : pairs) wins += x < y ? 1.0 : x == y ? 0.5 : 0.0;
            return wins / static_cast<double>(pairs.size());
        };
        // Seeds 2, 3, 4 are common; seed 1 of A and seed 5 of B have no partner and are left out.
        const SeededValues a{{1, 2, 3, 4}, {0.1, 0.5, 0.9, kInf}};
        const SeededValues b{{2, 3, 4, 5}, {0.6, 0.9, 0.3, 9.0}};
        const BetterProbability paired = probabilityBetter(a, b);
        QVERIFY(paired.paired);
        QCOMPARE(paired.pairs, 3);
        QVERIFY(near(paired.probability, countWins({{0.5, 0.6}, {0.9, 0.9}, {kInf, 0.3}})));  // (1 + 0.5 + 0) / 3
        // Swapping A and B gives the complement.
        QVERIFY(near(probabilityBetter(b, a).probability, 1.0 - paired.probability));
        // No common seed: every seed of A against every seed of B.
        const SeededValues c{{7, 8}, {0.4, 0.7}};
        const BetterProbability all = probabilityBetter(a, c);
        QVERIFY(!all.paired);
        QCOMPARE(all.pairs, 8);
        std::vector<std::pair<double, double>> pairs;
        for (const double x : a.values)
            for (const double y : c.values) pairs.emplace_back(x, y);
        QVERIFY(near(all.probability, countWins(pairs)));  // 0.1 and 0.5 beat 0.7; 0.1 beats 0.4: 3 / 8
        QVERIFY(std::isnan(probabilityBetter(a, SeededValues{}).probability));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, probabilityBetter(a, SeededValues{{1}, {}}));
    }

    void seedBandsAlignByStep() {
        // Three seeds; the third stopped after step 2.
        const std::vector<Curve> curves{
            {{1, 2, 3}, {1.0, 0.5, 0.2}}, {{1, 2, 3}, {3.0, 1.5, 0.4}}, {{1, 2}, {2.0, 1.0}}};
        const std::vector<BandPoint> bands = seedBands(curves, 1, {0.95, 2000, 5});
        QCOMPARE(bands.size(), std::size_t(3));
        QCOMPARE(bands[0].step, 1L);
        QCOMPARE(bands[0].seeds, 3);
        QVERIFY(near(bands[0].median, 2.0));
        QVERIFY(near(bands[0].lowerQuartile, 1.5) && near(bands[0].upperQuartile, 2.5));
        QVERIFY(near(bands[0].mean.estimate, 2.0));
        QCOMPARE(bands[2].seeds, 2);
        QVERIFY(near(bands[2].median, 0.3));
        // Requiring all three seeds drops step 3.
        QCOMPARE(seedBands(curves, 3).size(), std::size_t(2));
    }

    void timeToTargetCountsFailuresAsInfinite() {
        const std::vector<long> steps{10, 20, 30, 40};
        const std::vector<double> loss{5, NAN, 2, 1}, wall{1.5, 3, 4.5, 6};
        const TimeToTarget reached = timeToTarget(steps, loss, wall, 2.5);
        QCOMPARE(reached.steps, 30.0);
        QCOMPARE(reached.wallMs, 4.5);
        QVERIFY(reached.reached());
        QCOMPARE(timeToTarget(steps, loss, wall, 2.0).steps, 30.0);  // "at or below"
        const TimeToTarget never = timeToTarget(steps, loss, wall, 0.5);
        QVERIFY(!never.reached());
        QVERIFY(std::isinf(never.steps) && std::isinf(never.wallMs));
    }

    void performanceProfile() {
        // Costs [task][solver]: A = {1, 2, inf}, B = {2, 2, 3}. Best per task 1, 2, 3.
        // Ratios A = {1, 1, inf}, B = {2, 1, 1}.
        const PerformanceProfile profile({{1, 2}, {2, 2}, {kInf, 3}});
        QCOMPARE(profile.taskCount(), 3);
        QVERIFY(near(profile.ratio(0, 1), 2.0));
        QVERIFY(near(profile.fractionWithin(0, 1.0), 2.0 / 3));
        QVERIFY(near(profile.fractionWithin(0, 100.0), 2.0 / 3));  // A never solves task 3
        QVERIFY(near(profile.fractionWithin(1, 1.0), 2.0 / 3));
        QVERIFY(near(profile.fractionWithin(1, 1.99), 2.0 / 3));
        QVERIFY(near(profile.fractionWithin(1, 2.0), 1.0));
        // Area over [1, 4]: A = 3 * 2/3 = 2; B = 1 * 2/3 + 2 * 1 = 8/3.
        QVERIFY(near(profile.area(0), 2.0));
        QVERIFY(near(profile.area(1), 8.0 / 3));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, PerformanceProfile({{1, 2}, {1}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, PerformanceProfile({{0, 2}}));
    }

    void haltonCoordinates() {
        QVERIFY(near(radicalInverse(1, 2), 0.5));
        QVERIFY(near(radicalInverse(2, 2), 0.25));
        QVERIFY(near(radicalInverse(3, 2), 0.75));
        QVERIFY(near(radicalInverse(1, 3), 1.0 / 3));
        QVERIFY(near(radicalInverse(5, 3), 7.0 / 9));  // 5 = 12 in base 3 -> 0.21 in base 3
    }

    void gridTrialsAreTheWholeGrid() {
        using K = SearchDimension::Kind;
        const std::vector<SearchDimension> space{{"lr", K::Grid, {0.1, 0.01}}, {"momentum", K::Grid, {0.9, 0.99}}};
        const std::vector<TrialPoint> trials = planTrials(space, 4, 0);
        const std::vector<TrialPoint> expected{{0.1, 0.9}, {0.1, 0.99}, {0.01, 0.9}, {0.01, 0.99}};
        QVERIFY(trials == expected);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, planTrials(space, 3, 0));  // never subsampled silently
    }

    void rangeTrialsAreQuasiRandom() {
        using K = SearchDimension::Kind;
        // lr log-uniform on [1e-4, 1] (base 2: u = 1/2, 1/4, 3/4 -> 1e-2, 1e-3, 1e-1);
        // momentum uniform on [0.5, 1] (base 3: u = 1/3, 2/3, 1/9).
        std::vector<SearchDimension> space{{"lr", K::LogUniform, {}, 1e-4, 1.0},
                                           {"momentum", K::Uniform, {}, 0.5, 1.0}};
        const std::vector<TrialPoint> trials = planTrials(space, 3, 0);
        QCOMPARE(trials.size(), std::size_t(3));
        QVERIFY(near(trials[0][0], 1e-2, 1e-15) && near(trials[1][0], 1e-3, 1e-15) && near(trials[2][0], 1e-1, 1e-15));
        QVERIFY(near(trials[0][1], 0.5 + 0.5 / 3) && near(trials[1][1], 0.5 + 1.0 / 3) &&
                near(trials[2][1], 0.5 + 0.5 / 9));
        // The seed moves along the sequence: seed 1 starts at the second point.
        QVERIFY(planTrials(space, 2, 1)[0] == trials[1]);
        space[0].low = 0.0;
        try {
            planTrials(space, 3, 0);
            QFAIL("a log-uniform range from 0 was accepted");
        } catch (const std::invalid_argument& e) {
            QVERIFY(QString(e.what()).startsWith("lr: "));
        }
    }

    void expectedBestOfKTrials() {
        // {1, 2, 3}, lower is better. k = 1: the mean, 2.
        // k = 2: 1 * (1 - 4/9) + 2 * (4/9 - 1/9) + 3 * (1/9) = 14/9.
        const std::vector<double> trials{3, 1, 2};
        QVERIFY(near(expectedBestOf(trials, 1), 2.0));
        QVERIFY(near(expectedBestOf(trials, 2), 14.0 / 9));
        const std::vector<double> curve = expectedBestCurve(trials, 50);
        QCOMPARE(curve.size(), std::size_t(50));
        for (std::size_t k = 1; k < curve.size(); ++k) QVERIFY(curve[k] <= curve[k - 1]);
        QVERIFY(near(curve.back(), 1.0, 1e-8));  // many draws find the best trial
        // With replacement, k draws can all hit a failed trial (infinity): the expectation is infinite.
        QVERIFY(std::isinf(expectedBestOf(std::vector<double>{1, kInf, 2}, 5)));
    }
};

QTEST_GUILESS_MAIN(TestStats)
#include "test_stats.moc"
