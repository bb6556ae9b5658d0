// Convolutional networks: the --network tokens and their shape checks, ConvLayer's
// parameter layout, finite-difference gradient checks for conv (stride, padding), max and average
// pooling and the flatten, golden values of one conv step (from torch), the per-input-channel
// fan-out groups of MomentumAggregation, and no allocation per training step.
#include "AllocationCounter.h"
#include "Random.h"
#include "TestSupport.h"
#include "nn/ConvLayer.h"
#include "nn/Network.h"
#include "nn/PoolLayer.h"
#include "optim/MomentumAggregation.h"
#include "data/DataRegistry.h"
#include "optim/OptimizerCatalog.h"
#include "train/LockstepTrainer.h"
#include "train/RunControl.h"

#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace ml;
using ml::test::inputErrorOf;

Q_DECLARE_METATYPE(ml::LossKind)
Q_DECLARE_METATYPE(ml::BiasMode)

namespace {

NetworkSpec specOf(const std::string& layers, Activation activation = Activation::Tanh, LossKind loss = LossKind::Mse) {
    NetworkSpec spec;
    spec.setLayers(layers);
    spec.activation = activation;
    spec.loss = loss;
    return spec;
}

Batch randomBatch(const NetworkSpec& spec, Eigen::Index size, std::uint64_t seed) {
    Random random(seed);
    Batch batch;
    batch.inputs.resize(size, spec.inputs());
    for (Eigen::Index i = 0; i < batch.inputs.size(); ++i) batch.inputs.data()[i] = random.uniform(-1.0f, 1.0f);
    if (spec.loss == LossKind::CrossEntropy) {
        batch.labels.resize(size);
        for (Eigen::Index i = 0; i < size; ++i) batch.labels(i) = static_cast<int>(random.below(spec.outputs()));
    } else {
        batch.targets.resize(size, spec.outputs());
        for (Eigen::Index i = 0; i < batch.targets.size(); ++i) batch.targets.data()[i] = random.uniform(-1.0f, 1.0f);
    }
    return batch;
}

}  // namespace

class TestConv : public QObject {
    Q_OBJECT
private slots:
    // ------------------------------------------------------------ the --network tokens
    void tokensParseAndPrintBack_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("shapes");  // after each layer
        QTest::newRow("mnist cnn") << "1x28x28-conv8k5-pool2-conv16k5-pool2-64-10"
                                   << "8x24x24 8x12x12 16x8x8 16x4x4 64x1x1 10x1x1";
        QTest::newRow("stride padding avgpool") << "3x9x7-conv4k3s2p1-avgpool2-5"
                                                << "4x5x4 4x2x2 5x1x1";
        QTest::newRow("pool leaves a row out") << "1x5x5-pool2-3"
                                               << "1x2x2 3x1x1";
        QTest::newRow("dense") << "4-3-2"
                               << "3x1x1 2x1x1";
    }
    void tokensParseAndPrintBack() {
        QFETCH(QString, text);
        QFETCH(QString, shapes);
        NetworkSpec spec;
        spec.setLayers(text.toStdString());
        QCOMPARE(QString::fromStdString(spec.text()), text);
        QStringList got;
        for (const SampleShape& shape : spec.shapes()) got << QString::fromStdString(shape.text());
        QCOMPARE(got.join(' '), shapes);
        const Network network(spec);  // builds: every layer's sizes chain
        QCOMPARE(static_cast<int>(network.parameters().size()),
                 static_cast<int>(std::count_if(spec.layers.begin(), spec.layers.end(),
                                                [](const LayerToken& l) { return l.hasParameters(); })));
    }
    void badNetworksNameTheToken_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("named");
        QTest::newRow("kernel larger than input") << "1x4x4-conv2k5-10"
                                                  << "conv2k5";
        QTest::newRow("second conv too large") << "1x28x28-conv8k5-pool2-conv16k5-pool2-conv4k5-10"
                                               << "conv4k5";
        QTest::newRow("pool larger than input") << "1x8x8-conv2k5-pool5-3"
                                                << "pool5";
        QTest::newRow("conv without image") << "784-conv8k5-10"
                                            << "conv8k5";
        QTest::newRow("conv after dense") << "1x8x8-16-conv2k3-10"
                                          << "conv2k3";
        QTest::newRow("pooled output") << "1x8x8-conv2k3-pool2"
                                       << "pool2";
        QTest::newRow("unknown token") << "1x8x8-conv2x3-10"
                                       << "conv2x3";
        QTest::newRow("zero stride") << "1x8x8-conv2k3s0-10"
                                     << "conv2k3s0";
        QTest::newRow("bad image") << "1x8-conv2k3-10"
                                   << "1x8";
    }
    void badNetworksNameTheToken() {
        QFETCH(QString, text);
        QFETCH(QString, named);
        NetworkSpec spec;
        const QString message = inputErrorOf([&] { spec.setLayers(text.toStdString(), "--network"); });
        QVERIFY2(message.startsWith("--network") && message.contains(named), qPrintable(message));
        QCOMPARE(QString::fromStdString(spec.text()), QString("1-2-2-1"));  // left unchanged
    }

    // ------------------------------------------------------------ parameter layout
    // Column (c*k + i)*k + j of output channel o is PyTorch's weight[o][c][i][j]: a one-hot input at
    // (c, y, x) and a one-hot weight there give 1 at output (o, y - i, x - j) and 0 elsewhere.
    void convColumnsAreChannelMajorKernels() {
        const NetworkSpec spec = specOf("2x5x5-conv3k3-1", Activation::Identity);
        Network network(spec);
        QCOMPARE(network.columnsPerInput(), (std::vector<Eigen::Index>{9, 1}));
        QCOMPARE(network.parameters()[0].rows(), Eigen::Index(3));
        QCOMPARE(network.parameters()[0].cols(), Eigen::Index(2 * 9 + 1));
        const int o = 2, c = 1, i = 2, j = 1, y = 3, x = 2;
        network.parameters()[0].setZero();
        network.parameters()[0](o, (c * 3 + i) * 3 + j) = 1.0f;
        // Read the conv output through the dense layer: its weights pick one output value each.
        BatchMatrix input = BatchMatrix::Zero(1, spec.inputs());
        input(0, (c * 5 + y) * 5 + x) = 1.0f;
        for (int out = 0; out < 3 * 3 * 3; ++out) {
            network.parameters()[1].setZero();
            network.parameters()[1](0, out) = 1.0f;
            const float value = network.forward(input)(0, 0);
            const bool hit = out == (o * 3 + (y - i)) * 3 + (x - j);
            QCOMPARE(value, hit ? 1.0f : 0.0f);
        }
    }

    // layerOutputs: a 3x3 identity kernel (centre 1, padding 1) reproduces the input after the
    // activation (relu), the max pooling after it takes each 2x2 window's largest value, and the
    // last entry is forward()'s output.
    void layerOutputsAreEachLayersActivations() {
        const NetworkSpec spec = specOf("1x4x4-conv2k3p1-pool2-3", Activation::Relu);
        Network network(spec);
        network.initializeGlorotUniform(3);
        Matrix& kernels = network.parameters()[0];
        kernels.setZero();
        kernels(0, 4) = 1.0f;   // channel 0: the identity (centre of the 3x3 kernel)
        kernels(1, 4) = -1.0f;  // channel 1: the negated input, plus a bias of 0.5
        kernels(1, 9) = 0.5f;
        BatchMatrix input(1, 16);
        for (int i = 0; i < 16; ++i) input(0, i) = float(i % 5) - 2.0f;  // negative and positive pixels
        const std::vector<BatchMatrix> outputs = network.layerOutputs(input);
        QCOMPARE(int(outputs.size()), 3);
        QCOMPARE(outputs[0].cols(), Eigen::Index(2 * 16));
        QCOMPARE(outputs[1].cols(), Eigen::Index(2 * 4));
        for (int i = 0; i < 16; ++i) {
            QCOMPARE(outputs[0](0, i), std::max(input(0, i), 0.0f));
            QCOMPARE(outputs[0](0, 16 + i), std::max(0.5f - input(0, i), 0.0f));
        }
        for (int y = 0; y < 2; ++y)
            for (int x = 0; x < 2; ++x) {
                float largest = 0.0f;
                for (int i = 0; i < 2; ++i)
                    for (int j = 0; j < 2; ++j) largest = std::max(largest, outputs[0](0, (2 * y + i) * 4 + 2 * x + j));
                QCOMPARE(outputs[1](0, y * 2 + x), largest);
            }
        const BatchMatrix last = outputs[2];
        QVERIFY(network.forward(input) == last);
    }

    // ------------------------------------------------------------ gradient checks
    // Central differences of the batch loss against computeGradients for every parameter of every
    // layer: conv with stride and padding (first and later layers, so its input gradient counts),
    // max and average pooling (also with a left-out row), and the flatten into a dense layer.
    void gradientsMatchFiniteDifferences_data() {
        QTest::addColumn<QString>("layers");
        QTest::addColumn<LossKind>("loss");
        QTest::newRow("conv stride padding, flatten") << "2x6x6-conv3k3s2p1-4" << LossKind::Mse;
        QTest::newRow("conv after conv with stride padding") << "1x7x7-conv2k3-conv3k3s2p1-5" << LossKind::Mse;
        QTest::newRow("max pool") << "2x8x8-conv3k3-pool2-3" << LossKind::CrossEntropy;
        QTest::newRow("average pool") << "2x8x8-conv3k3-avgpool2-3" << LossKind::Mse;
        QTest::newRow("pool leaves a row out, 1x1 conv") << "1x6x8-conv2k2-pool2-conv2k1-3" << LossKind::Mse;
        QTest::newRow("stride skips inputs") << "1x9x9-conv2k2s3-avgpool3-conv2k1p1-2" << LossKind::CrossEntropy;
        QTest::newRow("conv dense dense") << "1x5x5-conv2k3-4-3" << LossKind::Mse;
        // The direct paths of stride-1 convolutions (ConvLayer::directForward, directWeightGradient):
        // padding, a block of 8 channels and one more, rows of 10 (one 8-vector and 2 left over), an
        // input gradient; then the forward one over several input channels (its dW by im2col).
        QTest::newRow("one-channel direct path") << "1x6x11-conv1k2-conv9k3p1-3" << LossKind::Mse;
        QTest::newRow("multi-channel direct forward") << "3x6x11-conv9k3p1-conv2k2-3" << LossKind::CrossEntropy;
        // Rows of 8 outputs and no padding: both direct paths read the image in place (paddedImage).
        QTest::newRow("direct paths in place") << "1x6x12-conv2k5-conv9k1-3" << LossKind::Mse;
    }
    void gradientsMatchFiniteDifferences() {
        QFETCH(QString, layers);
        QFETCH(LossKind, loss);
        Network network(specOf(layers.toStdString(), Activation::Tanh, loss));
        network.initializeGlorotUniform(3);
        Random random(8);
        for (Matrix& layer : network.parameters())  // non-zero biases: their gradients count too
            for (Eigen::Index j = 0; j < layer.rows(); ++j) biasOf(layer)(j) = random.uniform(-0.3f, 0.3f);
        const Batch batch = randomBatch(network.spec(), 3, 5);
        Parameters gradients = zerosLike(network.parameters());
        network.computeGradients(batch, gradients);
        Parameters scratch = zerosLike(network.parameters());
        const auto lossAt = [&] { return static_cast<double>(network.computeGradients(batch, scratch)); };
        constexpr float eps = 3e-3f;
        const double centre = lossAt();
        double worst = 0.0;
        int kinks = 0, checked = 0;
        for (std::size_t l = 0; l < network.parameters().size(); ++l) {
            Matrix& p = network.parameters()[l];
            for (Eigen::Index k = 0; k < p.size(); ++k) {
                const float saved = p.data()[k];
                p.data()[k] = saved + eps;
                const double up = lossAt();
                p.data()[k] = saved - eps;
                const double down = lossAt();
                p.data()[k] = saved;
                const double numeric = (up - down) / (2.0 * eps);
                const double analytic = gradients[l].data()[k];
                // Max pooling is not differentiable where a window's maximum changes hands: there the
                // one-sided slopes differ and the central difference means nothing. Such entries are
                // skipped (and counted: they must stay rare; the max-pool case has about 7 %).
                const double right = (up - centre) / eps, left = (centre - down) / eps;
                if (std::abs(right - left) > 0.1 * std::abs(numeric) + 5e-3) {
                    ++kinks;
                    continue;
                }
                ++checked;
                const double error = std::abs(numeric - analytic) / (1e-2 + std::abs(numeric));
                worst = std::max(worst, error);
                QVERIFY2(error < 2e-2, qPrintable(QString("layer %1 entry %2: analytic %3, numeric %4")
                                                      .arg(l)
                                                      .arg(k)
                                                      .arg(analytic)
                                                      .arg(numeric)));
            }
        }
        qInfo("%s: worst relative error %.2e over %d entries (%d at a kink skipped)", qPrintable(layers), worst,
              checked, kinks);
        QVERIFY2(kinks * 10 <= checked, "more than 10 % of the entries sit at a kink");
    }

    // ------------------------------------------------------------ golden values
    // One momentum step (lr 0.1; the first step is w - lr*g) on 1x4x4-conv2k3s2p1-1, tanh, mse.
    // Expected values from torch (float64; torch.nn.functional.conv2d with stride 2, padding 1):
    // printed by tests/conv_golden_reference.py (no code under test involved).
    void oneConvStepMatchesTorch() {
        Network network(specOf("1x4x4-conv2k3s2p1-1"));
        Matrix& conv = network.parameters()[0];
        for (Eigen::Index k = 0; k < 18; ++k) conv(k / 9, k % 9) = 0.1f * static_cast<float>(k) - 0.8f;
        biasOf(conv) << 0.1f, -0.1f;
        Matrix& dense = network.parameters()[1];
        for (Eigen::Index k = 0; k < 8; ++k) dense(0, k) = 0.1f * static_cast<float>(k) - 0.3f;
        dense(0, 8) = 0.05f;
        Batch batch;
        batch.inputs.resize(1, 16);
        for (int i = 0; i < 16; ++i) batch.inputs(0, i) = (static_cast<float>(i) - 7.5f) / 8.0f;
        batch.targets.resize(1, 1);
        batch.targets(0, 0) = 0.5f;
        HyperParameters hp = optimizerInfo("momentum").defaults;
        hp.lr = 0.1;
        hp.momentum = 0.9;
        auto optimizer = createOptimizer("momentum", hp);
        Parameters gradients = zerosLike(network.parameters());
        const float loss = network.computeGradients(batch, gradients);
        QVERIFY(optimizer->step(network.parameters(), gradients));
        QVERIFY(std::abs(loss - 0.25479114632487604f) < 1e-6f);
        const float expectedWeights[18] = {-0.8f,         -0.69638866f,  -0.597420471f,  -0.493433247f,   -0.378288819f,
                                           -0.282553648f, -0.197474326f, -0.0953481326f, 0.000387039145f, 0.0994840519f,
                                           0.193524048f,  0.295492251f,  0.397508617f,   0.497815709f,    0.60037631f,
                                           0.700057797f,  0.808058112f,  0.910618713f};
        for (Eigen::Index k = 0; k < 18; ++k)
            QVERIFY2(std::abs(conv(k / 9, k % 9) - expectedWeights[k]) < 2e-6f, qPrintable(QString::number(k)));
        QVERIFY(std::abs(biasOf(conv)(0) - 0.0658813737f) < 2e-6f);
        QVERIFY(std::abs(biasOf(conv)(1) - -0.0795151946f) < 2e-6f);
    }

    // ------------------------------------------------------------ fan-out groups
    // On a conv matrix [C_out x (C_in*k*k + 1)] fan-out averages each input channel's C_out*k*k
    // weights (k*k consecutive columns), not each kernel position; with join the bias vector too.
    // Max pooling 2x2 takes the first maximum in row order, ties included (its vectorised row loop
    // compares pairs, not one value after the other): every pattern of 4 values out of {0,1,2,3},
    // 16 windows a row so that the vector code runs, against a plain first-maximum search.
    void maxPoolTakesTheFirstMaximum() {
        const int windows = 16, samples = 256 / windows;
        PoolLayer pool(SampleShape{1, 2, 2 * windows}, 2, PoolLayer::Kind::Max);
        BatchMatrix input(samples, 4 * windows), gradient = BatchMatrix::Ones(samples, windows), inputGradient;
        for (int s = 0; s < samples; ++s)
            for (int w = 0; w < windows; ++w) {
                const int pattern = s * windows + w;
                for (int i = 0; i < 4; ++i)  // a b / c d: a, b in the top row, c, d below
                    input(s, (i / 2) * 2 * windows + 2 * w + i % 2) = static_cast<float>(pattern >> (2 * i) & 3);
            }
        const auto work = pool.createWorkspace();
        Matrix none;
        const BatchMatrix output = pool.forward(none, input, *work);
        pool.backward(none, input, gradient, *work, none, &inputGradient);
        for (int s = 0; s < samples; ++s)
            for (int w = 0; w < windows; ++w) {
                int first = 0;
                float best = -1.0f;
                for (int i = 0; i < 4; ++i) {
                    const float value = input(s, (i / 2) * 2 * windows + 2 * w + i % 2);
                    if (value > best) best = value, first = i;
                }
                QCOMPARE(output(s, w), best);
                for (int i = 0; i < 4; ++i)
                    QCOMPARE(inputGradient(s, (i / 2) * 2 * windows + 2 * w + i % 2), i == first ? 1.0f : 0.0f);
            }
    }

    // A ReLU conv layer followed by max pooling leaves the ReLU's derivative to the pool (Network
    // builds them so: reluDerivativeByMaxPool, reluInput): the same parameter gradient, bit for bit,
    // as the separate derivative, with dead windows (maximum 0) among them. Stride 1 and 2 (the
    // direct and the im2col weight gradient), 1 and 3 input channels.
    void reluDerivativeInMaxPoolIsTheSame_data() {
        QTest::addColumn<int>("channels");
        QTest::addColumn<int>("stride");
        QTest::newRow("one channel, direct") << 1 << 1;
        QTest::newRow("three channels, im2col") << 3 << 2;
    }
    void reluDerivativeInMaxPoolIsTheSame() {
        QFETCH(int, channels);
        QFETCH(int, stride);
        const SampleShape in{channels, 13, 13};
        LayerToken token;
        token.kind = LayerToken::Kind::Conv;
        token.size = 9;
        token.kernel = 3;
        token.stride = stride;
        token.padding = 1;
        const ConvLayer separate(in, token, Activation::Relu), fused(in, token, Activation::Relu, true);
        const SampleShape convOut = token.outputShape(in, true, "conv");
        const PoolLayer plainPool(convOut, 2, PoolLayer::Kind::Max), reluPool(convOut, 2, PoolLayer::Kind::Max, true);
        Random random(11);
        Matrix parameters(9, channels * 9 + 1);
        for (Eigen::Index k = 0; k < parameters.size(); ++k) parameters.data()[k] = random.uniform(-0.5f, 0.3f);
        BatchMatrix input(4, in.size());
        for (Eigen::Index k = 0; k < input.size(); ++k) input.data()[k] = random.uniform(-1.0f, 1.0f);
        BatchMatrix poolGradient(4, plainPool.outputSize());
        for (Eigen::Index k = 0; k < poolGradient.size(); ++k) poolGradient.data()[k] = random.uniform(-1.0f, 1.0f);
        const auto gradientOf = [&](const ConvLayer& conv, const PoolLayer& pool, int& deadWindows) {
            const auto convWork = conv.createWorkspace(), poolWork = pool.createWorkspace();
            const BatchMatrix& activation = conv.forward(parameters, input, *convWork);
            const BatchMatrix& pooled = pool.forward(Matrix{}, activation, *poolWork);
            deadWindows = static_cast<int>((pooled.array() == 0.0f).count());
            BatchMatrix outputGradient = poolGradient, convGradient;
            Matrix none, parameterGradient = Matrix::Zero(parameters.rows(), parameters.cols());
            pool.backward(none, activation, outputGradient, *poolWork, none, &convGradient);
            conv.backward(parameters, input, convGradient, *convWork, parameterGradient, nullptr);
            return parameterGradient;
        };
        int dead = 0, deadFused = 0;
        const Matrix expected = gradientOf(separate, plainPool, dead);
        const Matrix actual = gradientOf(fused, reluPool, deadFused);
        QVERIFY2(dead > 10 && dead < plainPool.outputSize() * 4 / 2, qPrintable(QString::number(dead)));
        QVERIFY(expected.cwiseAbs().maxCoeff() > 0.1f);
        QVERIFY(actual == expected);
    }

    void fanOutGroupsInputChannels_data() {
        QTest::addColumn<BiasMode>("bias");
        QTest::newRow("own") << BiasMode::Own;
        QTest::newRow("join") << BiasMode::Join;
    }
    void fanOutGroupsInputChannels() {
        QFETCH(BiasMode, bias);
        constexpr Eigen::Index outputs = 3, channels = 2, kk = 4;
        Random random(6);
        Matrix original(outputs, channels * kk + 1);
        for (Eigen::Index k = 0; k < original.size(); ++k) original.data()[k] = random.uniform(-1.0f, 1.0f);
        const MomentumAggregation aggregation(MeanScope::FanOut, bias);
        Matrix buffer = original;
        aggregation.aggregate(buffer, kk);
        Eigen::VectorXf means;
        aggregation.neuronMeans(original, means, kk);
        QCOMPARE(means.size(), channels + (bias == BiasMode::Join ? 1 : 0));
        for (Eigen::Index c = 0; c < channels; ++c) {
            const float mean = original.middleCols(c * kk, kk).mean();
            QVERIFY(std::abs(means(c) - mean) < 1e-6f);
            QVERIFY((buffer.middleCols(c * kk, kk).array() - mean).abs().maxCoeff() < 1e-6f);
        }
        const float biasMean = original.col(channels * kk).mean();
        const Eigen::VectorXf expectedBias = bias == BiasMode::Join ? Eigen::VectorXf::Constant(outputs, biasMean)
                                                                    : Eigen::VectorXf(original.col(channels * kk));
        QVERIFY((buffer.col(channels * kk) - expectedBias).cwiseAbs().maxCoeff() < 1e-6f);
        if (bias == BiasMode::Join) QVERIFY(std::abs(means(channels) - biasMean) < 1e-6f);

        // An optimizer told the layer's columns per input uses these groups: b2 = mu*M(g1) + g2.
        HyperParameters hp = optimizerInfo("momentum").defaults;
        hp.momentumMean = MeanScope::FanOut;
        hp.bias = bias;
        auto optimizer = createOptimizer("momentum", hp);
        optimizer->setColumnsPerInput({kk});
        Parameters weights{Matrix::Zero(outputs, channels * kk + 1)};
        const Parameters g1{original}, g2{Matrix::Constant(outputs, channels * kk + 1, 0.5f)};
        optimizer->step(weights, g1);
        optimizer->step(weights, g2);
        const Matrix expected = static_cast<float>(hp.momentum) * buffer + g2[0];
        QVERIFY((optimizer->layerState(0).firstMoment - expected).cwiseAbs().maxCoeff() < 1e-6f);
    }

    // ------------------------------------------------------------ image data
    // The bundled digits feed a conv network as 1x8x8 (and a fan-out run gets the conv layer's
    // groups through the trainer); an image network of another shape is refused naming both.
    void imageDataFeedsConvNetworks() {
        Experiment e;
        e.network = specOf("1x8x8-conv4k3-pool2-10", Activation::Relu, LossKind::CrossEntropy);
        e.data = "digits";
        e.batchSize = 32;
        e.steps = 150;
        HyperParameters hp = optimizerInfo("momentum").defaults;
        hp.lr = 0.05;
        hp.momentumMean = MeanScope::FanOut;
        e.runs = {{"fan-out", "momentum", hp}};
        LockstepTrainer trainer(e, loadDataSplit(e.data, e.seed));
        RunControl control;
        trainer.run(control);
        QCOMPARE(trainer.result(0).status, RunStatus::Done);
        QVERIFY2(trainer.result(0).finalTestAccuracy > 0.3f, "10 classes: chance is 0.1");
        QCOMPARE(trainer.optimizer(0).layerState(0).columnsPerInput, Eigen::Index(9));
        QCOMPARE(trainer.optimizer(0).layerState(1).columnsPerInput, Eigen::Index(1));

        e.network = specOf("1x28x28-conv4k3-10", Activation::Relu, LossKind::CrossEntropy);
        const QString message = inputErrorOf([&] { LockstepTrainer(e, loadDataSplit(e.data, e.seed)); });
        QVERIFY2(message.contains("1x8x8") && message.contains("1x28x28"), qPrintable(message));
    }

    // ------------------------------------------------------------ allocations
    // After one warm-up step, a training step (forward, backward, optimizer) allocates nothing,
    // the fan-out groups included, at the benchmark's size and at a larger batch.
    void trainingStepDoesNotAllocate_data() {
        QTest::addColumn<QString>("layers");
        QTest::addColumn<int>("batch");
        QTest::newRow("mnist cnn b64") << "1x28x28-conv8k5-pool2-conv16k5-pool2-10" << 64;
        QTest::newRow("mnist cnn b512") << "1x28x28-conv8k5-pool2-conv16k5-pool2-10" << 512;
        QTest::newRow("cifar-sized b8") << "3x32x32-conv32k3p1-pool2-conv64k3p1-pool2-10" << 8;
        QTest::newRow("stride padding avgpool b7") << "2x9x9-conv4k3s2p1-avgpool2-16-3" << 7;
    }
    void trainingStepDoesNotAllocate() {
        QFETCH(QString, layers);
        QFETCH(int, batch);
        Network network(specOf(layers.toStdString(), Activation::Relu, LossKind::CrossEntropy));
        network.initializeGlorotUniform(11);
        const Batch b = randomBatch(network.spec(), batch, 2);
        HyperParameters hp = optimizerInfo("momentum").defaults;
        hp.momentumMean = MeanScope::FanOut;
        hp.lr = 0.01;
        auto optimizer = createOptimizer("momentum", hp);
        optimizer->setColumnsPerInput(network.columnsPerInput());
        Parameters gradients = zerosLike(network.parameters());
        for (int warmUp = 0; warmUp < 2; ++warmUp) {
            network.computeGradients(b, gradients);
            optimizer->step(network.parameters(), gradients);
        }
        const std::size_t before = heapAllocationCount();
        float loss = 0.0f;
        for (int step = 0; step < 3; ++step) {
            loss = network.computeGradients(b, gradients);
            optimizer->step(network.parameters(), gradients);
        }
        QCOMPARE(heapAllocationCount() - before, std::size_t{0});
        QVERIFY(std::isfinite(loss));
    }
};

QTEST_GUILESS_MAIN(TestConv)
#include "test_conv.moc"
