// After its first step (which allocates the state), Optimizer::step must not touch the heap, for
// every optimizer of the catalog and every setting that changes its code path (amsgrad, centered,
// momentum, weight decay, nesterov, each momentum-mean scope with each bias mode, the blend, the
// shared statistic, gradient centralization, each second-moment-mean scope).
// Eigen allocates with malloc, not operator new: the count comes from app/AllocationCounter, which
// wraps glibc's malloc family for this executable (as for the benchmark).
#include "AllocationCounter.h"
#include "InputError.h"
#include "optim/OptimizerCatalog.h"

#include <QTest>

#include <algorithm>
#include <cmath>

namespace {

// Heap allocations made by f().
template <typename F>
long allocationsOf(F&& f) {
    const std::size_t before = ml::heapAllocationCount();
    f();
    return static_cast<long>(ml::heapAllocationCount() - before);
}

}  // namespace

using ml::HyperParameters;
using ml::Matrix;
using ml::Parameters;
Q_DECLARE_METATYPE(ml::HyperParameters)

namespace {

// Two layers of different shapes; the gradient changes every step.
Parameters gradientAt(int t) {
    Parameters g{Matrix(8, 5), Matrix(3, 9)};
    for (Matrix& m : g)
        for (Eigen::Index r = 0; r < m.rows(); ++r)
            for (Eigen::Index c = 0; c < m.cols(); ++c)
                m(r, c) = 0.5f * std::sin(1.3f * static_cast<float>(t) + 0.7f * static_cast<float>(r) +
                                          2.1f * static_cast<float>(c));
    return g;
}

// The catalog's defaults, then each field the optimizer reads set away from its default one at a
// time (flags flipped, every choice, weight decay, momentum, beta1 and blend off their defaults), then all
// of that at once: with the default choices, with every choice at its second value (fan-in, join,
// signed-abs-mean) and at its last.
void addCases(const ml::OptimizerInfo& info) {
    const QString name = QString::fromStdString(info.name);
    auto add = [&](const QString& label, const HyperParameters& hp) {
        try {
            ml::validateHyperParameters(info.name, hp, info.name);
        } catch (const ml::InputError&) {
            return;  // not a valid setting of this optimizer (e.g. neuron-mean with another scope)
        }
        QTest::newRow(qPrintable(name + " " + label)) << name << hp;
    };
    add("defaults", info.defaults);
    HyperParameters everything = info.defaults;
    for (const std::string& key : info.parameters) {
        const ml::ParameterField& field = *ml::findParameterField(key);
        std::vector<std::string> values;
        if (field.kind == ml::ParameterField::Kind::Flag) values = {"true"};
        else if (field.kind == ml::ParameterField::Kind::Choice) values = field.choices;
        else if (key == "weight-decay" || key == "momentum" || key == "momentum-mean-blend" || key == "beta1")
            values = {"0.5"};
        for (const std::string& value : values) {
            HyperParameters hp = info.defaults;
            field.set(hp, value, key);
            add(QString::fromStdString(key + "=" + value), hp);
            if (field.kind != ml::ParameterField::Kind::Choice) field.set(everything, value, key);
        }
    }
    add("all settings on", everything);
    for (const std::size_t choice : {std::size_t{1}, std::size_t{99}}) {
        HyperParameters withChoices = everything;
        for (const std::string& key : info.parameters) {
            const ml::ParameterField& field = *ml::findParameterField(key);
            if (field.kind == ml::ParameterField::Kind::Choice)
                field.set(withChoices, field.choices.at(std::min(choice, field.choices.size() - 1)), key);
        }
        add(choice == 1 ? "all settings on, second choices" : "all settings on, last choices", withChoices);
    }
}

}  // namespace

class TestOptimAllocations : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        if (!ml::allocationCountingAvailable()) QSKIP("sanitizer build: its runtime owns malloc, nothing is counted");
    }
    // The counter sees Eigen's allocations (else a zero below would prove nothing).
    void counterSeesEigenAllocations() {
        const long counted = allocationsOf([] {
            Matrix m = Matrix::Constant(16, 16, 1.0f);
            QVERIFY(m.sum() > 0.0f);
        });
        QVERIFY2(counted >= 1, "the malloc hook counted nothing");
    }

    void laterStepsDoNotAllocate_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<HyperParameters>("hp");
        for (const ml::OptimizerInfo& info : ml::optimizerCatalog()) addCases(info);
    }
    void laterStepsDoNotAllocate() {
        QFETCH(QString, name);
        QFETCH(HyperParameters, hp);
        auto optimizer = ml::createOptimizer(name.toStdString(), hp);
        Parameters w{Matrix::Constant(8, 5, 0.1f), Matrix::Constant(3, 9, -0.2f)};
        std::vector<Parameters> gradients;
        for (int t = 1; t <= 5; ++t) gradients.push_back(gradientAt(t));
        QVERIFY(optimizer->step(w, gradients[0]));  // allocates the state
        for (std::size_t t = 1; t < gradients.size(); ++t) {
            bool stepped = false;
            const long counted = allocationsOf([&] { stepped = optimizer->step(w, gradients[t]); });
            QVERIFY(stepped);
            QVERIFY2(counted == 0, qPrintable(QString("step %1: %2 heap allocations").arg(t + 1).arg(counted)));
        }
    }
};

QTEST_GUILESS_MAIN(TestOptimAllocations)
#include "test_optim_allocations.moc"
