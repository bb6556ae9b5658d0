// Network tests: finite-difference gradient check for every activation x loss, the losses against
// hand-computed numbers, NetworkSpec::parseSizes, Glorot initialisation, Network::evaluate, and
// a training step that does not touch the heap.
#include "TestSupport.h"
#include "AllocationCounter.h"
#include "InputError.h"
#include "Random.h"
#include "data/DenseDataset.h"
#include "nn/DenseLayer.h"
#include "nn/Network.h"

#include <QScopeGuard>
#include <QTest>

#include <cmath>
#include <limits>

using ml::Activation;
using ml::Batch;
using ml::LossKind;
using ml::Matrix;
using ml::Network;
using ml::NetworkSpec;
using ml::Parameters;

Q_DECLARE_METATYPE(ml::Activation)
Q_DECLARE_METATYPE(ml::LossKind)

namespace {

using ml::test::inputErrorOf;

using RowMatrix = ml::DenseDataset::RowMatrix;

// The gradient-check network 3-4-3-3 with fixed parameters and a 4-sample batch, chosen so that every
// hidden pre-activation is at least 0.18 away from 0 (relu's kink; checked in the test) and relu
// leaves 9 of 16 and 6 of 12 hidden units active.
const std::vector<int> kSizes{3, 4, 3, 3};

Parameters fixedParameters() {
    Parameters p;
    for (std::size_t l = 0; l + 1 < kSizes.size(); ++l) {
        Matrix m(kSizes[l + 1], kSizes[l] + 1);
        for (Eigen::Index j = 0; j < m.rows(); ++j)
            for (Eigen::Index i = 0; i < m.cols(); ++i)
                m(j, i) = 0.8f * std::sin(2.3f * static_cast<float>(l) + 1.3f * static_cast<float>(j) +
                                          1.9f * static_cast<float>(i) + 0.8f);
        p.push_back(m);
    }
    return p;
}

Batch fixedBatch(LossKind loss, bool labels) {
    Batch b;
    b.inputs.resize(4, 3);
    for (Eigen::Index s = 0; s < 4; ++s)
        for (Eigen::Index k = 0; k < 3; ++k)
            b.inputs(s, k) = 1.2f * std::sin(1.1f * static_cast<float>(s) + 2.1f * static_cast<float>(k) + 0.3f);
    if (loss == LossKind::CrossEntropy || labels) {
        b.labels.resize(4);
        b.labels << 0, 2, 1, 2;
    } else {
        b.targets.resize(4, 3);
        b.targets << 0.5f, -0.2f, 1.0f, -0.7f, 0.3f, 0.0f, 0.2f, 0.9f, -0.4f, 1.1f, -1.0f, 0.6f;
    }
    return b;
}

double activate(Activation a, double z) {
    switch (a) {
    case Activation::Identity: return z;
    case Activation::Sigmoid: return 1.0 / (1.0 + std::exp(-z));
    case Activation::Tanh: return std::tanh(z);
    case Activation::Relu: return z > 0 ? z : 0.0;
    }
    return z;
}

// An independent double-precision forward pass and loss (the definitions of Loss.h), also
// reporting the smallest |pre-activation| of the hidden layers (relu's distance to its kink).
double referenceLoss(const Parameters& p, Activation act, LossKind loss, const Batch& batch,
                     double* minHiddenZ = nullptr) {
    Eigen::MatrixXd a = batch.inputs.cast<double>();
    double minZ = std::numeric_limits<double>::infinity();
    for (std::size_t l = 0; l < p.size(); ++l) {
        const Eigen::MatrixXd w = p[l].cast<double>();
        Eigen::MatrixXd z(a.rows(), w.rows());
        for (Eigen::Index s = 0; s < a.rows(); ++s)
            for (Eigen::Index j = 0; j < w.rows(); ++j) {
                double sum = w(j, w.cols() - 1);
                for (Eigen::Index i = 0; i + 1 < w.cols(); ++i) sum += w(j, i) * a(s, i);
                z(s, j) = sum;
            }
        if (l + 1 == p.size()) {
            a = z;
            break;
        }
        for (Eigen::Index s = 0; s < z.rows(); ++s)
            for (Eigen::Index j = 0; j < z.cols(); ++j) {
                minZ = std::min(minZ, std::abs(z(s, j)));
                z(s, j) = activate(act, z(s, j));
            }
        a = z;
    }
    if (minHiddenZ) *minHiddenZ = minZ;
    double total = 0.0;
    if (loss == LossKind::Mse) {
        for (Eigen::Index s = 0; s < a.rows(); ++s)
            for (Eigen::Index k = 0; k < a.cols(); ++k) {
                const double y = batch.labels.size() ? (batch.labels(s) == k ? 1.0 : 0.0) : batch.targets(s, k);
                total += (a(s, k) - y) * (a(s, k) - y);
            }
        return total / static_cast<double>(a.rows() * a.cols());
    }
    for (Eigen::Index s = 0; s < a.rows(); ++s) {
        double sum = 0.0;
        for (Eigen::Index k = 0; k < a.cols(); ++k) sum += std::exp(a(s, k));
        total += std::log(sum) - a(s, batch.labels(s));
    }
    return total / static_cast<double>(a.rows());
}

NetworkSpec specOf(const std::string& layers, Activation activation, LossKind loss) {
    NetworkSpec s;
    s.setLayers(layers);
    s.activation = activation;
    s.loss = loss;
    return s;
}

NetworkSpec spec(const std::vector<int>& sizes, Activation activation, LossKind loss) {
    NetworkSpec s;
    s.setSizes(sizes);
    s.activation = activation;
    s.loss = loss;
    return s;
}

// A batch of uniform random inputs with class labels (cross-entropy) or regression targets (mse).
Batch randomBatch(const NetworkSpec& s, Eigen::Index size) {
    ml::Random random(5);
    Batch b;
    b.inputs.resize(size, s.inputs());
    for (Eigen::Index i = 0; i < b.inputs.size(); ++i) b.inputs.data()[i] = random.uniform(-1.0f, 1.0f);
    if (s.loss == LossKind::CrossEntropy) {
        b.labels.resize(size);
        for (Eigen::Index i = 0; i < size; ++i) b.labels(i) = static_cast<int>(random.below(s.outputs()));
    } else {
        b.targets.resize(size, s.outputs());
        for (Eigen::Index i = 0; i < b.targets.size(); ++i) b.targets.data()[i] = random.uniform(-1.0f, 1.0f);
    }
    return b;
}

}  // namespace

class TestNn : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // ------------------------------------------------------------ gradient check
    void gradientMatchesFiniteDifferences_data() {
        QTest::addColumn<Activation>("activation");
        QTest::addColumn<LossKind>("loss");
        QTest::addColumn<bool>("labels");  // mse only: class labels as one-hot targets
        const std::pair<Activation, const char*> activations[] = {{Activation::Identity, "identity"},
                                                                  {Activation::Sigmoid, "sigmoid"},
                                                                  {Activation::Tanh, "tanh"},
                                                                  {Activation::Relu, "relu"}};
        for (const auto& [activation, name] : activations) {
            QTest::addRow("%s mse", name) << activation << LossKind::Mse << false;
            QTest::addRow("%s mse labels", name) << activation << LossKind::Mse << true;
            QTest::addRow("%s cross-entropy", name) << activation << LossKind::CrossEntropy << true;
        }
    }
    void gradientMatchesFiniteDifferences() {
        QFETCH(Activation, activation);
        QFETCH(LossKind, loss);
        QFETCH(bool, labels);
        Network net(spec(kSizes, activation, loss));
        net.setParameters(fixedParameters(), "test");
        const Batch batch = fixedBatch(loss, labels);

        double minHiddenZ = 0.0;
        const double reference = referenceLoss(net.parameters(), activation, loss, batch, &minHiddenZ);
        // Precondition for relu: perturbing one parameter by eps moves a hidden pre-activation
        // by at most ~eps * 1.2 (and further layers by a small multiple); stay clear of the kink.
        const float eps = 5e-3f;
        QVERIFY2(minHiddenZ > 0.1, qPrintable(QString("a hidden pre-activation is %1 from 0").arg(minHiddenZ)));

        Parameters gradients = ml::zerosLike(net.parameters());
        const float value = net.computeGradients(batch, gradients);
        // The loss itself agrees with an independent double-precision forward pass.
        QVERIFY2(std::abs(value - reference) <= 1e-5 * std::max(1.0, std::abs(reference)),
                 qPrintable(QString("loss %1, reference %2").arg(value, 0, 'g', 9).arg(reference, 0, 'g', 9)));

        double diffSq = 0.0, refSq = 0.0;
        Parameters scratch = ml::zerosLike(net.parameters());
        int nonZero = 0;
        for (std::size_t l = 0; l < gradients.size(); ++l) {
            for (Eigen::Index r = 0; r < gradients[l].rows(); ++r)
                for (Eigen::Index c = 0; c < gradients[l].cols(); ++c) {
                    float& w = net.parameters()[l](r, c);
                    const float original = w;
                    w = original + eps;
                    const float up = w;
                    const float lossUp = net.computeGradients(batch, scratch);
                    w = original - eps;
                    const float down = w;
                    const float lossDown = net.computeGradients(batch, scratch);
                    w = original;
                    const double fd = (static_cast<double>(lossUp) - lossDown) / (static_cast<double>(up) - down);
                    const double g = gradients[l](r, c);
                    diffSq += (g - fd) * (g - fd);
                    refSq += fd * fd;
                    nonZero += std::abs(fd) > 1e-3;
                    QVERIFY2(std::abs(g - fd) <= 2e-2 * std::abs(fd) + 3e-4,
                             qPrintable(QString("layer %1 (%2,%3): backprop %4, finite difference %5")
                                            .arg(l)
                                            .arg(r)
                                            .arg(c)
                                            .arg(g, 0, 'g', 7)
                                            .arg(fd, 0, 'g', 7)));
                }
        }
        QVERIFY2(std::sqrt(diffSq / refSq) < 1e-2,
                 qPrintable(QString("relative error %1").arg(std::sqrt(diffSq / refSq))));
        // Not a vacuous check: most entries have a visible gradient.
        QVERIFY2(nonZero >= 20, qPrintable(QString("only %1 non-negligible gradient entries").arg(nonZero)));
        // The parameters were restored and computeGradients is repeatable.
        Parameters again = ml::zerosLike(net.parameters());
        QCOMPARE(net.computeGradients(batch, again), value);
        for (std::size_t l = 0; l < again.size(); ++l) QCOMPARE(again[l], gradients[l]);
    }

    // ------------------------------------------------------------ a dense layer by hand
    // W = [[1, -1], [0.5, 2]], b = (0.5, -1), X = [[1, 2], [3, -1]], relu:
    //   Z = X W^T + b = [[-0.5, 3.5], [4.5, -1.5]], A = [[0, 3.5], [4.5, 0]]
    // dA = [[2, 1], [-1, 3]] -> dZ = dA .* (Z > 0) = [[0, 1], [-1, 0]]
    //   dW = dZ^T X = [[-3, 1], [1, 2]], db = (-1, 1), dX = dZ W = [[0.5, 2], [-1, 1]]
    void denseLayerForwardBackward() {
        const ml::DenseLayer layer(2, 2, Activation::Relu);
        QCOMPARE(layer.parameterShape().rows, Eigen::Index(2));
        QCOMPARE(layer.parameterShape().cols, Eigen::Index(3));
        Matrix parameters(2, 3);
        parameters << 1, -1, 0.5f, 0.5f, 2, -1;
        ml::BatchMatrix x(2, 2);
        x << 1, 2, 3, -1;
        const auto work = layer.createWorkspace();
        ml::BatchMatrix expectedA(2, 2);
        expectedA << 0, 3.5f, 4.5f, 0;
        QCOMPARE(ml::BatchMatrix(layer.forward(parameters, x, *work)), expectedA);

        ml::BatchMatrix outputGradient(2, 2), inputGradient;
        outputGradient << 2, 1, -1, 3;
        Matrix parameterGradient = Matrix::Zero(2, 3);
        layer.backward(parameters, x, outputGradient, *work, parameterGradient, &inputGradient);
        Matrix expectedGradient(2, 3);
        expectedGradient << -3, 1, -1, 1, 2, 1;
        QCOMPARE(parameterGradient, expectedGradient);
        ml::BatchMatrix expectedInputGradient(2, 2);
        expectedInputGradient << 0.5f, 2, -1, 1;
        QCOMPARE(inputGradient, expectedInputGradient);
    }

    // ------------------------------------------------------------ losses by hand
    // z = [[1, 2, 3], [0, -1, 0.5]], y = [[0, 2, 1], [1, 1, 1]]: z - y = [[1, 0, 2], [-1, -2, -0.5]]
    // MSE (mean over all 6 elements) = (1 + 0 + 4 + 1 + 4 + 0.25) / 6 = 1.70833333; dL/dz = 2(z - y)/6.
    void mseIsMeanOverAllElements() {
        ml::BatchMatrix z(2, 3), gradient;
        ml::LossWorkspace scratch;
        z << 1, 2, 3, 0, -1, 0.5f;
        Batch batch;
        batch.inputs = Matrix::Zero(2, 1);
        batch.targets.resize(2, 3);
        batch.targets << 0, 2, 1, 1, 1, 1;
        const float value = ml::lossAndGradient(LossKind::Mse, z, batch, gradient, scratch);
        QVERIFY(std::abs(value - 1.70833333f) < 1e-6f);
        Matrix expected(2, 3);
        expected << 1.0f / 3, 0, 2.0f / 3, -1.0f / 3, -2.0f / 3, -1.0f / 6;
        QVERIFY((gradient - expected).cwiseAbs().maxCoeff() < 1e-6f);
        Eigen::Index correct = -1;
        QVERIFY(std::abs(ml::lossOnly(LossKind::Mse, z, batch, scratch, correct) - 1.70833333f) < 1e-6f);
        QCOMPARE(correct, Eigen::Index(0));  // regression: no labels
        // Labels become one-hot targets: labels (2, 0) -> y = [[0,0,1],[1,0,0]]:
        // (1 + 4 + 4 + 1 + 1 + 0.25) / 6 = 1.875
        batch.targets.resize(0, 0);
        batch.labels.resize(2);
        batch.labels << 2, 0;
        QVERIFY(std::abs(ml::lossAndGradient(LossKind::Mse, z, batch, gradient, scratch) - 1.875f) < 1e-6f);
        QVERIFY(std::abs(ml::lossOnly(LossKind::Mse, z, batch, scratch, correct) - 1.875f) < 1e-6f);
        QCOMPARE(correct, Eigen::Index(1));  // row 0: arg-max 2 == label 2; row 1: arg-max 2 != label 0
    }
    // Cross-entropy = mean NLL of softmax. Row 0: z = [1, 2, 3], label 0:
    //   log(e^1 + e^2 + e^3) - 1 = 3.40760596 - 1 = 2.40760596
    // Row 1: z = [1000.5, 999.5, 1001.5] (needs the max shift), label 2: 1001.90760596 - 1001.5 = 0.407605964
    // mean = 1.40760596; dL/dz = (softmax - onehot) / 2:
    //   [[-0.454984713, 0.122364236, 0.332620478], [0.122364236, 0.0450152866, -0.167379522]]
    void crossEntropyIsMeanNllOfSoftmax() {
        ml::BatchMatrix z(2, 3), gradient;
        ml::LossWorkspace scratch;
        z << 1, 2, 3, 1000.5f, 999.5f, 1001.5f;
        Batch batch;
        batch.inputs = Matrix::Zero(2, 1);
        batch.labels.resize(2);
        batch.labels << 0, 2;
        const float value = ml::lossAndGradient(LossKind::CrossEntropy, z, batch, gradient, scratch);
        QVERIFY2(std::abs(value - 1.40760596f) < 1e-5f, qPrintable(QString::number(value, 'g', 9)));
        Matrix expected(2, 3);
        expected << -0.454984713f, 0.122364236f, 0.332620478f, 0.122364236f, 0.0450152866f, -0.167379522f;
        QVERIFY((gradient - expected).cwiseAbs().maxCoeff() < 1e-6f);
        Eigen::Index correct = -1;
        const float only = ml::lossOnly(LossKind::CrossEntropy, z, batch, scratch, correct);
        QVERIFY(std::abs(only - 1.40760596f) < 1e-5f);
        QCOMPARE(correct, Eigen::Index(1));  // row 0 predicts 2 (label 0), row 1 predicts 2 (label 2)
    }

    // ------------------------------------------------------------ NetworkSpec::setLayers
    void parseSizesAccepts_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QList<int>>("sizes");
        QTest::newRow("1-2-2-1") << "1-2-2-1" << QList<int>{1, 2, 2, 1};
        QTest::newRow("784-128-10") << "784-128-10" << QList<int>{784, 128, 10};
        QTest::newRow("4-3") << "4-3" << QList<int>{4, 3};
    }
    void parseSizesAccepts() {
        QFETCH(QString, text);
        QFETCH(QList<int>, sizes);
        NetworkSpec s;
        s.setLayers(text.toStdString());
        QList<int> got{s.inputs()};
        for (const ml::LayerToken& layer : s.layers) {
            QCOMPARE(layer.kind, ml::LayerToken::Kind::Dense);
            got.append(layer.size);
        }
        QCOMPARE(got, sizes);
        QVERIFY(!s.imageInput && s.isDense());
        QCOMPARE(QString::fromStdString(s.text()), text);
        QCOMPARE(s.layerCount(), static_cast<int>(sizes.size()) - 1);
    }
    void parseSizesRejects_data() {
        QTest::addColumn<QString>("text");
        QTest::newRow("empty") << "";
        QTest::newRow("one size") << "4";
        QTest::newRow("double dash") << "4--3";
        QTest::newRow("letter") << "a-3";
        QTest::newRow("zero") << "0-3";
        QTest::newRow("negative") << "-4-3";
        QTest::newRow("trailing junk") << "4-3x";
        QTest::newRow("trailing dash") << "4-3-";
        QTest::newRow("leading space") << " 4-3";
        QTest::newRow("plus sign") << "+4-3";
    }
    void parseSizesRejects() {
        QFETCH(QString, text);
        const QString message = inputErrorOf([&] { NetworkSpec().setLayers(text.toStdString()); });
        QVERIFY2(message.contains("--network"), qPrintable("message: '" + message + "'"));
        const QString custom = inputErrorOf([&] { NetworkSpec().setLayers(text.toStdString(), "config.network"); });
        QVERIFY2(custom.contains("config.network"), qPrintable("message: '" + custom + "'"));
    }

    // ------------------------------------------------------------ Glorot
    void glorotUniform() {
        const std::vector<int> sizes{20, 30, 10};
        Network a(spec(sizes, Activation::Tanh, LossKind::Mse));
        Network b(spec(sizes, Activation::Tanh, LossKind::Mse));
        Network c(spec(sizes, Activation::Tanh, LossKind::Mse));
        // Non-zero biases beforehand: initialisation must reset them.
        Parameters dirty = a.parameters();
        for (Matrix& m : dirty) m.setConstant(3.0f);
        a.setParameters(dirty, "test");
        a.initializeGlorotUniform(42);
        b.initializeGlorotUniform(42);
        c.initializeGlorotUniform(43);
        for (std::size_t l = 0; l < sizes.size() - 1; ++l) {
            const Matrix& p = a.parameters()[l];
            QCOMPARE(p.rows(), Eigen::Index(sizes[l + 1]));
            QCOMPARE(p.cols(), Eigen::Index(sizes[l] + 1));
            const double limit = std::sqrt(6.0 / (sizes[l] + sizes[l + 1]));  // 20-30: 0.3464; 30-10: 0.3873
            const Matrix w = ml::weightsOf(p);
            QVERIFY(w.cwiseAbs().maxCoeff() <= limit);
            QVERIFY(w.cwiseAbs().maxCoeff() > 0.9 * limit);       // uses the whole range ...
            QVERIFY(w.minCoeff() < 0.0f && w.maxCoeff() > 0.0f);  // ... on both sides
            QVERIFY(std::abs(w.mean()) < 0.1 * limit);
            QVERIFY(ml::biasOf(p).isZero(0.0f));
            QCOMPARE(a.parameters()[l], b.parameters()[l]);  // same seed: bit-identical
            QVERIFY(a.parameters()[l] != c.parameters()[l]);
        }
    }

    // ------------------------------------------------------------ evaluate
    // 2-2 network, W = identity, b = 0, so z = x; cross-entropy over 5 samples:
    //   (1,0) l0 ok, (0,1) l1 ok, (2,1) l1 wrong, (0.5,3) l0 wrong, (3,-1) l0 ok -> accuracy 3/5
    //   loss = mean of log(e^x0 + e^x1) - x_label = 0.907364945
    void evaluateClassification() {
        Network net(spec({2, 2}, Activation::Relu, LossKind::CrossEntropy));
        Matrix w(2, 3);
        w << 1, 0, 0, 0, 1, 0;
        net.setParameters({w}, "test");
        RowMatrix x(5, 2);
        x << 1, 0, 0, 1, 2, 1, 0.5f, 3, 3, -1;
        Eigen::VectorXi labels(5);
        labels << 0, 1, 1, 0, 0;
        const auto data = ml::DenseDataset::classification(x, labels, 2);
        const ml::Evaluation e = net.evaluate(data);
        QCOMPARE(e.accuracy, 0.6f);
        QVERIFY2(std::abs(e.loss - 0.907364945f) < 1e-6f, qPrintable(QString::number(e.loss, 'g', 9)));
    }
    // More than one evaluation chunk (1024): 2500 samples, x = (1,0) when i % 3 == 0 else (0,1),
    // all labelled 0: 834 correct; loss = (834 log(1+e^-1) + 1666 log(1+e)) / 2500 = 0.979661688.
    void evaluateAcrossChunks() {
        Network net(spec({2, 2}, Activation::Tanh, LossKind::CrossEntropy));
        Matrix w(2, 3);
        w << 1, 0, 0, 0, 1, 0;
        net.setParameters({w}, "test");
        RowMatrix x(2500, 2);
        for (int i = 0; i < 2500; ++i) {
            x(i, 0) = i % 3 == 0 ? 1.0f : 0.0f;
            x(i, 1) = i % 3 == 0 ? 0.0f : 1.0f;
        }
        const auto data = ml::DenseDataset::classification(x, Eigen::VectorXi::Zero(2500), 2);
        const ml::Evaluation e = net.evaluate(data);
        QCOMPARE(e.accuracy, 834.0f / 2500.0f);
        QVERIFY2(std::abs(e.loss - 0.979661688f) < 1e-5f, qPrintable(QString::number(e.loss, 'g', 9)));
    }
    // Regression: accuracy is NaN; 2-1 network z = x0 - x1 + 0.5:
    //   (1,2) -> -0.5 vs 0 : 0.25;  (0,0) -> 0.5 vs 1 : 0.25;  (3,1) -> 2.5 vs 2.5 : 0  => mse 1/6
    void evaluateRegression() {
        Network net(spec({2, 1}, Activation::Tanh, LossKind::Mse));
        Matrix w(1, 3);
        w << 1, -1, 0.5f;
        net.setParameters({w}, "test");
        RowMatrix x(3, 2), y(3, 1);
        x << 1, 2, 0, 0, 3, 1;
        y << 0, 1, 2.5f;
        const ml::Evaluation e = net.evaluate(ml::DenseDataset::regression(x, y));
        QVERIFY(std::isnan(e.accuracy));
        QVERIFY(std::abs(e.loss - 1.0f / 6.0f) < 1e-6f);
    }
    // ------------------------------------------------------------ allocation-free training step
    // The counter itself: an Eigen matrix is a malloc (so a zero below means something).
    void allocationCounterSeesEigen() {
        if (!ml::allocationCountingAvailable()) QSKIP("sanitizer build: its runtime owns malloc, nothing is counted");
        const std::size_t before = ml::heapAllocationCount();
        const Matrix m = Matrix::Constant(40, 40, 2.0f);
        QVERIFY(ml::heapAllocationCount() > before);
        QCOMPARE(m.sum(), 3200.0f);
    }
    // After one warm-up step (buffers reach their sizes), computeGradients calls no malloc: no
    // Eigen temporaries, no resized buffers, no GEMM scratch on the heap. The benchmark's cases plus
    // every activation and both losses.
    void computeGradientsDoesNotAllocate_data() {
        QTest::addColumn<QString>("sizes");
        QTest::addColumn<Activation>("activation");
        QTest::addColumn<LossKind>("loss");
        QTest::addColumn<int>("batch");
        // Eigen sizes its GEMM packing buffers from the L1 cache size; 0 keeps this machine's. With
        // a 48 KiB L1 (recent Intel cores) the 784-128-10 forward product packs ~150 + ~400 KB.
        QTest::addColumn<int>("l1CacheBytes");
        const QString large = "784-128-10";
        for (const int l1 : {0, 32 * 1024, 48 * 1024, 64 * 1024})
            QTest::addRow("784-128-10 relu cross-entropy b64, L1 %d", l1)
                << large << Activation::Relu << LossKind::CrossEntropy << 64 << l1;
        QTest::newRow("1-2-2-1 tanh mse b1") << "1-2-2-1" << Activation::Tanh << LossKind::Mse << 1 << 0;
        QTest::newRow("3-4-3-3 sigmoid cross-entropy b4")
            << "3-4-3-3" << Activation::Sigmoid << LossKind::CrossEntropy << 4 << 0;
        QTest::newRow("5-8-2 identity mse b16") << "5-8-2" << Activation::Identity << LossKind::Mse << 16 << 0;
        QTest::newRow("64-32-32-10 relu mse b32") << "64-32-32-10" << Activation::Relu << LossKind::Mse << 32 << 0;
    }
    void computeGradientsDoesNotAllocate() {
        if (!ml::allocationCountingAvailable()) QSKIP("sanitizer build: its runtime owns malloc, nothing is counted");
        QFETCH(QString, sizes);
        QFETCH(Activation, activation);
        QFETCH(LossKind, loss);
        QFETCH(int, batch);
        QFETCH(int, l1CacheBytes);
        const std::ptrdiff_t l1 = Eigen::l1CacheSize(), l2 = Eigen::l2CacheSize(), l3 = Eigen::l3CacheSize();
        const auto restoreCaches = qScopeGuard([&] { Eigen::setCpuCacheSizes(l1, l2, l3); });
        if (l1CacheBytes > 0) Eigen::setCpuCacheSizes(l1CacheBytes, 2 << 20, 32 << 20);

        Network net(specOf(sizes.toStdString(), activation, loss));
        net.initializeGlorotUniform(11);
        const Batch b = randomBatch(net.spec(), batch);
        Parameters gradients = ml::zerosLike(net.parameters());
        net.computeGradients(b, gradients);  // warm-up: the buffers reach their sizes
        const std::size_t before = ml::heapAllocationCount();
        float value = 0.0f;
        for (int step = 0; step < 3; ++step) value = net.computeGradients(b, gradients);
        const std::size_t allocations = ml::heapAllocationCount() - before;
        QCOMPARE(allocations, std::size_t{0});
        QVERIFY(std::isfinite(value) && value > 0.0f);
    }

    void setParametersChecksShapes() {
        Network net(spec({3, 4, 2}, Activation::Tanh, LossKind::Mse));
        QVERIFY(inputErrorOf([&] { net.setParameters({Matrix::Zero(4, 4)}, "snap.bin"); }).contains("snap.bin"));
        QVERIFY(inputErrorOf([&] {
                    net.setParameters({Matrix::Zero(4, 3), Matrix::Zero(2, 5)}, "snap.bin");
                }).contains("snap.bin"));
        QCOMPARE(inputErrorOf([&] {
                     net.setParameters({Matrix::Zero(4, 4), Matrix::Zero(2, 5)}, "snap.bin");
                 }),
                 QString());
    }
};

QTEST_GUILESS_MAIN(TestNn)
#include "test_nn.moc"
