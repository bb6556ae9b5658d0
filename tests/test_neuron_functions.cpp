// Neuron functions (core/nn/NeuronFunctions.h) against a forward pass written out here by hand,
// the input grid's order and range, and the networks that have no such functions.
#include "TestSupport.h"
#include "InputError.h"
#include "data/DenseDataset.h"
#include "data/ToyData.h"
#include "nn/NeuronFunctions.h"

#include <QTest>

#include <cmath>

using ml::Activation;
using ml::AxisRange;
using ml::BatchMatrix;
using ml::InputGrid;
using ml::LossKind;
using ml::Matrix;
using ml::NetworkSpec;
using ml::NeuronFunctions;
using ml::Parameters;

Q_DECLARE_METATYPE(ml::Activation)

namespace {

// Known weights for a dense network of `sizes`: [out x (in + 1)], bias last.
Parameters knownParameters(const std::vector<int>& sizes) {
    Parameters parameters;
    for (std::size_t l = 0; l + 1 < sizes.size(); ++l) {
        Matrix m(sizes[l + 1], sizes[l] + 1);
        for (Eigen::Index j = 0; j < m.rows(); ++j)
            for (Eigen::Index i = 0; i < m.cols(); ++i)
                m(j, i) = 0.9f * std::cos(1.7f * float(l) + 0.9f * float(j) - 1.3f * float(i) + 0.4f);
        parameters.push_back(m);
    }
    return parameters;
}

double activate(Activation activation, double z) {
    switch (activation) {
    case Activation::Tanh: return std::tanh(z);
    case Activation::Relu: return z > 0.0 ? z : 0.0;
    case Activation::Sigmoid: return 1.0 / (1.0 + std::exp(-z));
    case Activation::Identity: return z;
    }
    return z;
}

// Every neuron's value at input x, one layer after another, in double precision: a sum per
// neuron over its incoming connections, no matrices.
std::vector<std::vector<double>> handForward(const Parameters& parameters, Activation activation,
                                             std::vector<double> x) {
    std::vector<std::vector<double>> layers;
    for (std::size_t l = 0; l < parameters.size(); ++l) {
        const Matrix& w = parameters[l];
        std::vector<double> next;
        for (Eigen::Index j = 0; j < w.rows(); ++j) {
            double z = w(j, w.cols() - 1);
            for (Eigen::Index i = 0; i + 1 < w.cols(); ++i) z += double(w(j, i)) * x[std::size_t(i)];
            next.push_back(l + 1 < parameters.size() ? activate(activation, z) : z);  // the last layer is linear
        }
        layers.push_back(next);
        x = next;
    }
    return layers;
}

}  // namespace

class TestNeuronFunctions : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void matchesAHandWrittenForwardPass_data() {
        QTest::addColumn<Activation>("activation");
        QTest::addColumn<int>("inputs");
        QTest::newRow("tanh, 2 inputs") << Activation::Tanh << 2;
        QTest::newRow("relu, 2 inputs") << Activation::Relu << 2;
        QTest::newRow("tanh, 1 input") << Activation::Tanh << 1;
        QTest::newRow("relu, 1 input") << Activation::Relu << 1;
    }
    void matchesAHandWrittenForwardPass() {
        QFETCH(Activation, activation);
        QFETCH(int, inputs);
        const std::vector<int> sizes{inputs, 5, 4, 2};
        const NetworkSpec spec(sizes, activation, LossKind::CrossEntropy);
        const std::vector<AxisRange> axes(std::size_t(inputs), AxisRange{-1.5f, 2.0f});
        const int n = 9;
        NeuronFunctions functions(spec, InputGrid(axes, n));
        const Parameters parameters = knownParameters(sizes);
        const std::vector<BatchMatrix> values = functions.compute(parameters, "known weights");
        QCOMPARE(values.size(), std::size_t(3));
        const Eigen::Index points = inputs == 2 ? n * n : n;
        double largest = 0.0;
        for (Eigen::Index p = 0; p < points; ++p) {
            // The grid's documented order: column along input 0, rows from input 1's top down.
            const double step = 3.5 / (n - 1);
            std::vector<double> x{-1.5 + step * double(inputs == 2 ? p % n : p)};
            if (inputs == 2) x.push_back(2.0 - step * double(p / n));
            const auto expected = handForward(parameters, activation, x);
            for (std::size_t l = 0; l < expected.size(); ++l) {
                QCOMPARE(values[l].rows(), points);
                QCOMPARE(values[l].cols(), Eigen::Index(sizes[l + 1]));
                for (std::size_t j = 0; j < expected[l].size(); ++j) {
                    const double got = values[l](p, Eigen::Index(j));
                    largest = std::max(largest, std::abs(expected[l][j]));
                    if (std::abs(got - expected[l][j]) > 1e-5 * (1.0 + std::abs(expected[l][j])))
                        QFAIL(qPrintable(QStringLiteral("layer %1 neuron %2 at point %3: %4, by hand %5")
                                             .arg(l)
                                             .arg(j)
                                             .arg(p)
                                             .arg(got)
                                             .arg(expected[l][j])));
                }
            }
        }
        QVERIFY(largest > 0.1);  // the weights reach beyond the flat middle of every activation
    }

    void gridCoversTheTrainingInputsWithAMargin() {
        const ml::DataSplit xor_ = ml::makeToyData("xor", 7);
        const InputGrid grid = InputGrid::around(*xor_.train, 64, 0.1f);
        QCOMPARE(grid.inputs(), 2);
        QCOMPARE(grid.pointCount(), Eigen::Index(64 * 64));
        for (int a = 0; a < 2; ++a) {
            // toy:xor draws from [-1, 1]^2: the range reaches a little beyond it.
            QVERIFY(grid.axis(a).lower < -1.0f && grid.axis(a).lower > -1.3f);
            QVERIFY(grid.axis(a).upper > 1.0f && grid.axis(a).upper < 1.3f);
        }
        // Top-left corner first, then along input 0; the last row is input 1's lower end.
        QCOMPARE(grid.points()(0, 0), grid.axis(0).lower);
        QCOMPARE(grid.points()(0, 1), grid.axis(1).upper);
        QCOMPARE(grid.points()(63, 0), grid.axis(0).upper);
        QCOMPARE(grid.points()(64 * 64 - 1, 1), grid.axis(1).lower);
        const ml::DataSplit sine = ml::makeToyData("sine", 7);
        const InputGrid line = InputGrid::around(*sine.train, 50, 0.0f);
        QCOMPARE(line.inputs(), 1);
        QVERIFY(line.axis(0).lower >= -3.1416f && line.axis(0).lower < -3.0f);
        QVERIFY(line.axis(0).upper <= 3.1416f && line.axis(0).upper > 3.0f);
    }

    void refusesNetworksWithoutNeuronFunctions() {
        NetworkSpec wide({4, 8, 3}, Activation::Tanh, LossKind::CrossEntropy);
        QVERIFY(QString::fromStdString(ml::neuronFunctionsUnsupported(wide)).contains("4 inputs"));
        NetworkSpec conv;
        conv.setLayers("1x6x6-conv2k3-2");
        QVERIFY(QString::fromStdString(ml::neuronFunctionsUnsupported(conv)).contains("convolution"));
        QVERIFY(ml::neuronFunctionsUnsupported(NetworkSpec({2, 8, 8, 2}, Activation::Relu, LossKind::CrossEntropy))
                    .empty());
        const QString message = ml::test::inputErrorOf([&] {
            NeuronFunctions(wide, InputGrid({{-1.0f, 1.0f}, {-1.0f, 1.0f}}, 4));
        });
        QVERIFY2(message.contains("4 inputs"), qPrintable(message));
        const QString mismatch = ml::test::inputErrorOf([&] {
            NeuronFunctions(NetworkSpec({2, 3, 1}, Activation::Tanh, LossKind::Mse), InputGrid({{-1.0f, 1.0f}}, 4));
        });
        QVERIFY2(mismatch.contains("the grid 1"), qPrintable(mismatch));
        QVERIFY(!ml::test::inputErrorOf([] { InputGrid({{1.0f, 1.0f}}, 4); }).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestNeuronFunctions)
#include "test_neuron_functions.moc"
