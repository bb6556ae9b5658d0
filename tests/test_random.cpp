#include "Random.h"

#include <QTest>

#include <numeric>
#include <vector>

class TestRandom : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sameSeedSameNumbers() {
        ml::Random a(7), b(7), c(8);
        bool allSame = true, anyDifferent = false;
        for (int i = 0; i < 100; ++i) {
            const float x = a.uniform(), y = b.uniform(), z = c.uniform();
            allSame = allSame && x == y;
            anyDifferent = anyDifferent || x != z;
            QVERIFY(x >= 0.0f && x < 1.0f);
        }
        QVERIFY(allSame);
        QVERIFY(anyDifferent);
    }
    void shuffleIsAPermutation() {
        std::vector<int> v(50);
        std::iota(v.begin(), v.end(), 0);
        ml::Random r(1);
        r.shuffle(std::span<int>(v));
        std::vector<int> sorted = v;
        std::sort(sorted.begin(), sorted.end());
        for (int i = 0; i < 50; ++i) QCOMPARE(sorted[i], i);
        QVERIFY(!std::is_sorted(v.begin(), v.end()));
    }
    void normalHasUnitVariance() {
        ml::Random r(3);
        double sum = 0, sq = 0;
        const int n = 20000;
        for (int i = 0; i < n; ++i) {
            const double x = r.normal();
            sum += x;
            sq += x * x;
        }
        QVERIFY(std::abs(sum / n) < 0.05);
        QVERIFY(std::abs(sq / n - 1.0) < 0.05);
    }
};

QTEST_GUILESS_MAIN(TestRandom)
#include "test_random.moc"
