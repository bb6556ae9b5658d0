// Diagnostics and curvature (core/diagnostics): the neuron quantities on crafted first moments, the
// Hessian probe on a quadratic loss and against the exact spectrum, observers that leave the
// trajectory alone, and the CLI flags with their files and errors.
#include "AllocationCounter.h"
#include "TestSupport.h"
#include "cli/CommandTable.h"
#include "cli/Cli.h"
#include "data/DataRegistry.h"
#include "data/DenseDataset.h"
#include "diagnostics/CurvatureWriter.h"
#include "diagnostics/DiagnosticsRecords.h"
#include "diagnostics/DiagnosticsRowWriter.h"
#include "diagnostics/DiagnosticsWriter.h"
#include "diagnostics/HessianProbe.h"
#include "diagnostics/StepDiagnostics.h"
#include "io/FileError.h"
#include "optim/OptimizerCatalog.h"
#include "experiment/ExperimentJson.h"
#include "train/LockstepTrainer.h"
#include "experiment/Presets.h"
#include "runfolder/RunFolderWriter.h"

#include <Eigen/Eigenvalues>

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <iostream>
#include <sstream>

using namespace ml;

namespace {

NetworkSpec spec(const std::string& layers, Activation activation, LossKind loss) {
    NetworkSpec s;
    s.setLayers(layers);
    s.activation = activation;
    s.loss = loss;
    return s;
}

// Uniform random features and regression targets.
DenseDataset randomRegression(Eigen::Index samples, Eigen::Index inputs, Eigen::Index outputs, std::uint64_t seed) {
    Random random(seed);
    DenseDataset::RowMatrix x(samples, inputs), y(samples, outputs);
    for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = random.uniform(-1.0f, 1.0f);
    for (Eigen::Index i = 0; i < y.size(); ++i) y.data()[i] = random.uniform(-1.0f, 1.0f);
    return DenseDataset::regression(std::move(x), std::move(y));
}

// The eigenvalues of the mse Hessian of a linear layer, from the data alone: L = mean over the
// B x k outputs of (W x + b - t)^2 gives H = I_k (x) (2 / (B k)) X~^T X~ with X~ = [X 1].
Eigen::VectorXd linearMseEigenvalues(const DenseDataset& data, Eigen::Index outputs) {
    const Eigen::Index b = static_cast<Eigen::Index>(data.size());
    Eigen::MatrixXd augmented(b, data.inputDim() + 1);
    augmented.leftCols(data.inputDim()) = data.features().cast<double>();
    augmented.col(data.inputDim()).setOnes();
    const Eigen::MatrixXd gram = (2.0 / static_cast<double>(b * outputs)) * augmented.transpose() * augmented;
    return Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(gram, Eigen::EigenvaluesOnly).eigenvalues();
}

RunSpec run(const std::string& optimizer, double lr) {
    RunSpec s{optimizer, optimizer, optimizerInfo(optimizer).defaults};
    s.hp.lr = lr;
    return s;
}

Experiment smallExperiment() {
    Experiment e;
    e.network = spec("2-6-2", Activation::Tanh, LossKind::CrossEntropy);
    e.data = "toy:xor";
    e.batchSize = 50;
    e.steps = 30;
    e.runs = {run("momentum", 0.1), run("neuron-mean", 0.1)};
    return e;
}

int cli(QStringList arguments, QString* err = nullptr) {
    arguments.prepend("momentum-lab-cli");
    std::ostringstream captured;
    std::streambuf* previous = std::cerr.rdbuf(captured.rdbuf());
    const int status = coreCommands().run(arguments);
    std::cerr.rdbuf(previous);
    if (err) *err = QString::fromStdString(captured.str());
    return status;
}

QList<QByteArray> lines(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    QList<QByteArray> all = file.readAll().split('\n');
    if (!all.isEmpty() && all.back().isEmpty()) all.pop_back();
    return all;
}

}  // namespace

class TestDiagnostics : public QObject {
    Q_OBJECT
private slots:
    void meanShareOfEqualAndCancellingMoments() {
        Eigen::RowVectorXf equal = Eigen::RowVectorXf::Constant(5, 0.3f);
        Eigen::RowVectorXf cancelling(4);
        cancelling << 1.0f, -1.0f, 2.5f, -2.5f;
        Eigen::RowVectorXf mixed(2);
        mixed << 1.0f, 3.0f;  // (4)^2 / (2 * 10) = 0.8
        QVERIFY(std::abs(meanShare(equal) - 1.0) < 1e-7);
        QVERIFY(std::abs(meanShare(cancelling)) < 1e-12);
        QVERIFY(std::abs(meanShare(mixed) - 0.8) < 1e-7);
        QVERIFY(std::isnan(meanShare(Eigen::RowVectorXf::Zero(3))));
        QVERIFY(std::abs(coefficientOfVariation(equal)) < 1e-6);
        QVERIFY(std::abs(coefficientOfVariation(mixed) - 0.5) < 1e-7);  // std 1, mean 2
        QVERIFY(std::isinf(coefficientOfVariation(cancelling)));
    }

    // Through the optimizer: momentum's first buffer after one step is the gradient itself, so a
    // crafted gradient gives the neurons known first moments.
    void stepDiagnosticsOfCraftedMoments() {
        Parameters w = {Matrix::Constant(2, 4, 0.5f)};  // 2 neurons, 3 inputs + bias
        const Parameters initial = w;
        Parameters g = {Matrix(2, 4)};
        g[0] << 0.2f, 0.2f, 0.2f, 7.0f,  // equal incoming momenta (the bias does not count)
            1.0f, -3.0f, 2.0f, 0.0f;     // incoming momenta summing to zero
        auto optimizer = createOptimizer("momentum", optimizerInfo("momentum").defaults);
        QVERIFY(optimizer->step(w, g));
        StepDiagnostics d(w);
        d.compute(w, g, *optimizer, initial);
        const std::vector<UnitDiagnostics>& units = d.layer(0);
        QCOMPARE(units.size(), std::size_t{3});
        QVERIFY(std::abs(units[1].meanShare - 1.0f) < 1e-6f);
        QVERIFY(std::abs(units[2].meanShare) < 1e-6f);
        QVERIFY(std::abs(units[1].momentCv) < 1e-6f);
        // Layer: the energy-weighted share, (0.6^2/3) / (0.12 + 14) kept of the weights' energy.
        QVERIFY(std::abs(units[0].meanShare - static_cast<float>((0.36 / 3) / (0.12 + 14.0))) < 1e-6f);
        QVERIFY(std::abs(units[0].cosMomentGradient - 1.0f) < 1e-6f);
        QVERIFY(std::abs(units[0].gradientNorm - g[0].norm()) < 1e-5f);
        const float lr = static_cast<float>(optimizer->hyperParameters().lr);
        QVERIFY(std::abs(units[0].updateNorm - lr * g[0].norm()) < 1e-5f);
        QVERIFY(std::abs(units[0].distanceFromInitial - lr * g[0].norm()) < 1e-5f);
        QVERIFY(std::abs(units[2].gradientNorm - std::sqrt(14.0f)) < 1e-5f);
    }

    // Gradient SNR against brute force: every sample's own gradient g_s (a batch of one), their
    // mean gbar and SNR = ||gbar||^2 / ((1/B) sum_s ||g_s - gbar||^2), over a neuron's incoming
    // weights (a convolution: an output channel's kernel) and over a layer's whole matrix. Both
    // losses, batches up to 256, dense and convolutional.
    void gradientSnrMatchesPerSampleGradients_data() {
        QTest::addColumn<QString>("layers");
        QTest::addColumn<LossKind>("loss");
        QTest::addColumn<int>("batch");
        QTest::newRow("3-5-4-2 tanh mse b7") << "3-5-4-2" << LossKind::Mse << 7;
        QTest::newRow("6-8-3 cross-entropy b256") << "6-8-3" << LossKind::CrossEntropy << 256;
        QTest::newRow("2x6x6-conv3k3-pool2-conv4k2p1-5 mse b9")
            << "2x6x6-conv3k3-pool2-conv4k2p1-5" << LossKind::Mse << 9;
        QTest::newRow("1x5x5-conv2k3s2-3 cross-entropy b64") << "1x5x5-conv2k3s2-3" << LossKind::CrossEntropy << 64;
    }
    void gradientSnrMatchesPerSampleGradients() {
        QFETCH(QString, layers);
        QFETCH(LossKind, loss);
        QFETCH(int, batch);
        Network net(spec(layers.toStdString(), Activation::Tanh, loss));
        net.initializeGlorotUniform(3);
        Random random(9);
        Batch b;
        b.inputs.resize(batch, net.spec().inputs());
        for (Eigen::Index i = 0; i < b.inputs.size(); ++i) b.inputs.data()[i] = random.uniform(-1.0f, 1.0f);
        if (loss == LossKind::Mse) {
            b.targets.resize(batch, net.spec().outputs());
            for (Eigen::Index i = 0; i < b.targets.size(); ++i) b.targets.data()[i] = random.uniform(-1.0f, 1.0f);
        } else {
            b.labels.resize(batch);
            for (Eigen::Index i = 0; i < batch; ++i) b.labels(i) = static_cast<int>(random.below(net.spec().outputs()));
        }
        // Brute force first (it reuses the network's buffers), in double: every per-sample gradient.
        std::vector<std::vector<Eigen::MatrixXd>> perSample(net.parameters().size());
        Parameters one = zerosLike(net.parameters());
        for (int sample = 0; sample < batch; ++sample) {
            Batch single;
            single.inputs = b.inputs.row(sample);
            if (loss == LossKind::Mse) single.targets = b.targets.row(sample);
            else single.labels = b.labels.segment(sample, 1);
            net.computeGradients(single, one);
            for (std::size_t l = 0; l < one.size(); ++l) perSample[l].push_back(one[l].cast<double>());
        }
        Parameters gradients = zerosLike(net.parameters());
        net.computeGradients(b, gradients);
        Parameters w = net.parameters();
        const Parameters initial = w;
        auto optimizer = createOptimizer("sgd", optimizerInfo("sgd").defaults);
        QVERIFY(optimizer->step(w, gradients));
        StepDiagnostics d(w);
        d.compute(w, gradients, *optimizer, initial, &net);
        const auto close = [](double actual, double expected) {
            return std::abs(actual - expected) <= 2e-3 * std::abs(expected) + 1e-6;
        };
        for (std::size_t l = 0; l < perSample.size(); ++l) {
            Eigen::MatrixXd mean = Eigen::MatrixXd::Zero(w[l].rows(), w[l].cols());
            for (const Eigen::MatrixXd& g : perSample[l]) mean += g / batch;
            QVERIFY((mean.cast<float>() - gradients[l]).norm() < 1e-5f * (1.0f + gradients[l].norm()));
            // Per row, the mean squared deviation of the samples' gradients from their mean.
            Eigen::ArrayXXd deviation2 = Eigen::ArrayXXd::Zero(w[l].rows(), w[l].cols());
            for (const Eigen::MatrixXd& g : perSample[l]) deviation2 += (g - mean).array().square() / batch;
            const Eigen::Index in = w[l].cols() - 1;
            const double layerSnr = mean.squaredNorm() / deviation2.sum();
            const std::vector<UnitDiagnostics>& units = d.layer(l);
            QVERIFY2(close(units[0].gradientSnr, layerSnr),
                     qPrintable(QString("layer %1: %2 vs %3").arg(l).arg(units[0].gradientSnr).arg(layerSnr)));
            for (Eigen::Index i = 0; i < w[l].rows(); ++i) {
                const double neuron = mean.row(i).head(in).squaredNorm() / deviation2.row(i).head(in).sum();
                QVERIFY2(close(units[1 + i].gradientSnr, neuron), qPrintable(QString("layer %1 neuron %2: %3 vs %4")
                                                                                 .arg(l)
                                                                                 .arg(i)
                                                                                 .arg(units[1 + i].gradientSnr)
                                                                                 .arg(neuron)));
            }
        }
        // Without the network (or from a single sample) there is no SNR.
        d.compute(w, gradients, *optimizer, initial);
        QVERIFY(std::isnan(d.layer(0)[0].gradientSnr));
    }

    // Diagnostics with the SNR allocate nothing once their buffers have their sizes.
    void gradientSnrDoesNotAllocate() {
        if (!allocationCountingAvailable()) QSKIP("sanitizer build: its runtime owns malloc, nothing is counted");
        Network net(spec("784-128-10", Activation::Relu, LossKind::CrossEntropy));
        net.initializeGlorotUniform(1);
        Random random(2);
        Batch b;
        b.inputs.resize(64, 784);
        for (Eigen::Index i = 0; i < b.inputs.size(); ++i) b.inputs.data()[i] = random.uniform(0.0f, 1.0f);
        b.labels.resize(64);
        for (Eigen::Index i = 0; i < 64; ++i) b.labels(i) = static_cast<int>(random.below(10));
        Parameters gradients = zerosLike(net.parameters());
        net.computeGradients(b, gradients);
        const Parameters initial = net.parameters();
        auto optimizer = createOptimizer("momentum", optimizerInfo("momentum").defaults);
        QVERIFY(optimizer->step(net.parameters(), gradients));
        StepDiagnostics d(net.parameters());
        d.compute(net.parameters(), gradients, *optimizer, initial, &net);  // warm-up: the scratch sizes
        const std::size_t before = heapAllocationCount();
        d.compute(net.parameters(), gradients, *optimizer, initial, &net);
        QCOMPARE(heapAllocationCount() - before, std::size_t{0});
        QVERIFY(std::isfinite(d.layer(0)[0].gradientSnr) && d.layer(0)[0].gradientSnr > 0.0f);
    }

    // Every quantity of every neuron and layer against a direct computation in double, on layers
    // whose rows span several of StepDiagnostics' column blocks (and one shorter than a block).
    // Momenta with a large common offset and a small spread make the CV sensitive to cancellation.
    void stepDiagnosticsMatchBruteForce_data() {
        QTest::addColumn<int>("inputs");
        QTest::newRow("5 inputs") << 5;
        QTest::newRow("100 inputs") << 100;
        QTest::newRow("785 inputs") << 785;
    }
    void stepDiagnosticsMatchBruteForce() {
        QFETCH(int, inputs);
        const Eigen::Index rows = 7, cols = inputs + 1;
        Random random(11);
        const auto randomMatrix = [&](float offset, float spread) {
            Matrix m(rows, cols);
            for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = offset + spread * random.uniform(-1.0f, 1.0f);
            return m;
        };
        Parameters w = {randomMatrix(0.0f, 0.5f)};
        const Parameters initial = w;
        auto optimizer = createOptimizer("momentum", optimizerInfo("momentum").defaults);
        for (int step = 0; step < 3; ++step) {  // m differs from g after the first step
            Parameters g = {randomMatrix(3.0f, 0.01f)};
            g[0].row(1) = randomMatrix(0.0f, 1.0f).row(1);  // a neuron with a mean near zero
            // The last step collects the sums in the optimizer's own pass (as the trainer asks it to).
            if (step == 2) optimizer->collectStepSums(initial);
            QVERIFY(optimizer->step(w, g));
            if (step < 2) continue;
            QVERIFY(optimizer->stepSums(w, g, initial) != nullptr);
            // Both ways to the sums: the optimizer's (collected), and StepDiagnostics' own pass
            // (for another initial-weights object the collected sums do not apply).
            const Parameters initialCopy = initial;
            QVERIFY(optimizer->stepSums(w, g, initialCopy) == nullptr);
            StepDiagnostics collected(w), own(w);
            collected.compute(w, g, *optimizer, initial);
            own.compute(w, g, *optimizer, initialCopy);
            for (const StepDiagnostics* diagnostics : {&collected, &own}) {
                const StepDiagnostics& d = *diagnostics;
                const Eigen::MatrixXd gd = g[0].cast<double>(), ud = optimizer->layerState(0).update.cast<double>(),
                                      wd = w[0].cast<double>(), w0 = initial[0].cast<double>(),
                                      md = optimizer->layerState(0).firstMoment.cast<double>();
                const auto near = [](double actual, double expected, double relative = 2e-5) {
                    return std::abs(actual - expected) <= relative * std::abs(expected) + 1e-7;
                };
                const auto check = [&](const UnitDiagnostics& unit, const auto& gs, const auto& us, const auto& ws,
                                       const auto& w0s, const auto& ms, const char* what) {
                    QVERIFY2(near(unit.gradientNorm, gs.norm()), what);
                    QVERIFY2(near(unit.updateNorm, us.norm()), what);
                    QVERIFY2(near(unit.updateToWeight, us.norm() / ws.norm()), what);
                    QVERIFY2(near(unit.distanceFromInitial, (ws - w0s).norm()), what);
                    QVERIFY2(near(unit.cosMomentGradient, ms.cwiseProduct(gs).sum() / (ms.norm() * gs.norm())), what);
                };
                for (Eigen::Index i = 0; i < rows; ++i) {
                    const UnitDiagnostics& unit = d.layer(0)[1 + static_cast<std::size_t>(i)];
                    const auto in = [&](const Eigen::MatrixXd& m) { return m.row(i).head(inputs); };
                    check(unit, in(gd), in(ud), in(wd), in(w0), in(md), "neuron");
                    const Eigen::RowVectorXf m = optimizer->layerState(0).firstMoment.row(i).head(inputs);
                    QVERIFY(near(unit.meanShare, meanShare(m)));
                    QVERIFY2(near(unit.momentCv, coefficientOfVariation(m), 1e-4),
                             qPrintable(QStringLiteral("neuron %1: cv %2 vs %3")
                                            .arg(i)
                                            .arg(unit.momentCv)
                                            .arg(coefficientOfVariation(m))));
                }
                const UnitDiagnostics& layer = d.layer(0)[0];
                check(layer, gd, ud, wd, w0, md, "layer");
                const Eigen::MatrixXd weights = md.leftCols(inputs);
                const double kept = weights.rowwise().sum().squaredNorm() / inputs;
                QVERIFY(near(layer.meanShare, kept / weights.squaredNorm()));
                QVERIFY(std::isnan(layer.momentCv));
            }
        }
    }

    // Collecting the sums changes nothing in the step: the same weights bit for bit, and an update
    // that would overflow a weight is still refused with the weights left as they were.
    void collectingSumsLeavesTheStepAlone() {
        Random random(3);
        Matrix start(5, 9), gradient(5, 9);
        for (Eigen::Index i = 0; i < start.size(); ++i) start.data()[i] = random.uniform(-1.0f, 1.0f);
        for (Eigen::Index i = 0; i < gradient.size(); ++i) gradient.data()[i] = random.uniform(-1.0f, 1.0f);
        Parameters plain = {start}, watched = {start};
        const Parameters initial = {start}, g = {gradient};
        auto a = createOptimizer("adam", optimizerInfo("adam").defaults);
        auto b = createOptimizer("adam", optimizerInfo("adam").defaults);
        for (int step = 0; step < 4; ++step) {
            QVERIFY(a->step(plain, g));
            b->collectStepSums(initial);
            QVERIFY(b->step(watched, g));
            QVERIFY(plain[0] == watched[0]);
        }
        QVERIFY(b->stepSums(watched, g, initial) != nullptr);
        QVERIFY(b->step(watched, g));
        QVERIFY(b->stepSums(watched, g, initial) == nullptr);  // asked for one step only
        Parameters huge = {Matrix::Constant(5, 9, 3e38f)};
        const Parameters before = huge;
        HyperParameters hp = optimizerInfo("sgd").defaults;
        hp.lr = 1.0;  // w + u = 3e38 + 1e38: beyond the largest float
        auto sgd = createOptimizer("sgd", hp);
        sgd->collectStepSums(initial);
        QVERIFY(!sgd->step(huge, {Matrix::Constant(5, 9, -1e38f)}));
        QVERIFY(huge[0] == before[0]);
        QVERIFY(sgd->stepSums(huge, g, initial) == nullptr);
    }

    void noFirstMomentGivesNaN() {
        Parameters w = {Matrix::Constant(2, 3, 0.5f)};
        const Parameters g = {Matrix::Constant(2, 3, 0.1f)};
        HyperParameters hp = optimizerInfo("sgd").defaults;
        auto optimizer = createOptimizer("sgd", hp);
        const Parameters initial = w;
        QVERIFY(optimizer->step(w, g));
        StepDiagnostics d(w);
        d.compute(w, g, *optimizer, initial);
        QCOMPARE(optimizer->layerState(0).firstMoment.size(), Eigen::Index{0});  // plain SGD keeps none
        QVERIFY(std::isnan(d.layer(0)[0].cosMomentGradient));
        QVERIFY(std::isnan(d.layer(0)[1].meanShare));
        QVERIFY(std::isfinite(d.layer(0)[0].updateToWeight));
    }

    // Quadratic loss: a linear layer under mse. The power iteration and the spectrum must give the
    // eigenvalues computed from the data alone.
    void quadraticLossEigenvalue() {
        const DenseDataset data = randomRegression(40, 3, 2, 11);
        const Eigen::VectorXd known = linearMseEigenvalues(data, 2);
        HessianProbe probe(spec("3-2", Activation::Tanh, LossKind::Mse), fixedBatch(data, 1000));
        Network network(spec("3-2", Activation::Tanh, LossKind::Mse));
        network.initializeGlorotUniform(5);
        probe.setPoint(network.parameters());
        const PowerIterationResult top = probe.largestEigenvalue(1000, 1e-12);
        const double largest = known.maxCoeff();
        QVERIFY2(std::abs(top.eigenvalue - largest) <= 1e-4 * largest,
                 qPrintable(
                     QString("power iteration %1, known %2").arg(top.eigenvalue, 0, 'g', 10).arg(largest, 0, 'g', 10)));
        const Eigen::VectorXd spectrum = probe.spectrum();
        QCOMPARE(spectrum.size(), Eigen::Index{8});
        for (Eigen::Index i = 0; i < known.size(); ++i)  // each eigenvalue twice (one per output)
            for (const Eigen::Index j : {2 * i, 2 * i + 1})
                QVERIFY2(std::abs(spectrum(j) - known(i)) <= 1e-4 * largest,
                         qPrintable(QString("eigenvalue %1: %2, known %3").arg(j).arg(spectrum(j)).arg(known(i))));
    }

    void powerIterationAgreesWithSpectrum() {
        const DenseDataset data = randomRegression(32, 2, 1, 3);
        const NetworkSpec s = spec("2-4-1", Activation::Tanh, LossKind::Mse);
        Network network(s);
        network.initializeGlorotUniform(9);
        HessianProbe probe(s, fixedBatch(data, 32));
        probe.setPoint(network.parameters());
        const Eigen::VectorXd spectrum = probe.spectrum();
        const PowerIterationResult top = probe.largestEigenvalue(2000, 1e-10);
        const double largest = spectrum.maxCoeff();
        QVERIFY2(std::abs(top.eigenvalue - largest) <= 1e-3 * std::abs(largest),
                 qPrintable(QString("power iteration %1 (%2 products), spectrum %3")
                                .arg(top.eigenvalue)
                                .arg(top.iterations)
                                .arg(largest)));
    }

    // The observers only read: the same experiment with and without them ends on the same weights,
    // bit for bit, and the files have the documented shape.
    void observersLeaveTheTrajectoryAlone() {
        const Experiment e = smallExperiment();
        LockstepTrainer plain(e, loadDataSplit(e.data, e.seed));
        RunControl control;
        plain.run(control);

        QTemporaryDir tmp;
        LockstepTrainer watched(e, loadDataSplit(e.data, e.seed));
        RunFolderWriter writer(tmp.path(), watched);
        watched.addObserver(&writer);
        DiagnosticsWriter diagnostics(writer.layout(), watched, 3);
        CurvatureWriter curvature(writer.layout(), watched, 10, 64);
        watched.addObserver(&diagnostics);
        watched.addObserver(&curvature);
        RunControl control2;
        watched.run(control2);
        writer.finish();
        for (int r = 0; r < plain.runCount(); ++r) {
            QCOMPARE(plain.parameters(r).size(), watched.parameters(r).size());
            for (std::size_t l = 0; l < plain.parameters(r).size(); ++l)
                QVERIFY(plain.parameters(r)[l] == watched.parameters(r)[l]);
        }
        // 2-6-2: two layers of 6 and 2 neurons -> 1 + 6 + 1 + 2 rows per recorded step, 10 steps.
        const QList<QByteArray> rows = lines(writer.layout().diagnosticsFile(1));
        QCOMPARE(rows.front(), diagnosticsHeader().trimmed());
        QCOMPARE(rows.size(), 1 + 10 * 10);
        QVERIFY(rows[1].startsWith("3,0,,"));
        QVERIFY(rows[2].startsWith("3,0,0,"));
        QCOMPARE(rows[1].split(',').size(), 11);
        // Read back (as the desktop app does): 10 records of a 6- and a 2-neuron layer, with the SNR.
        const std::vector<DiagnosticsRecord> records = readDiagnosticsFile(writer.layout().diagnosticsFile(1));
        QCOMPARE(records.size(), std::size_t{10});
        QCOMPARE(records[1].step, 6L);
        QCOMPARE(records[0].layers.size(), std::size_t{2});
        QCOMPARE(records[0].layers[0].size(), std::size_t{7});
        QCOMPARE(records[0].layers[1].size(), std::size_t{3});
        QVERIFY(std::isfinite(records[9].layers[1][0].gradientSnr) && records[9].layers[1][0].gradientSnr > 0.0f);
        QCOMPARE(records[0].layers[0][2].meanShare, rows[3].split(',')[8].toFloat());  // shortest round-trip text
        const std::vector<CurvaturePoint> points = readCurvatureFile(writer.layout().curvatureFile(0));
        QCOMPARE(points.size(), std::size_t{3});
        QCOMPARE(points[0].step, 10L);
        QCOMPARE(points[0].sgdThreshold, 2.0 / 0.1);
        const QList<QByteArray> curves = lines(writer.layout().curvatureFile(0));
        QCOMPARE(curves.size(), 1 + 3);
        const QList<QByteArray> cells = curves[1].split(',');
        QCOMPARE(cells[0], QByteArray("10"));
        QVERIFY(std::isfinite(cells[1].toDouble()));
        QCOMPARE(cells[4].toDouble(), 2.0 / 0.1);
        QVERIFY(std::abs(cells[5].toDouble() - (2.0 + 2.0 * 0.9) / 0.1) < 1e-4);
    }

    // The row writer formats on its own thread: with 2 slots and 300 steps (about 190 KB, so several
    // 64 KiB hand-overs to the file), the file holds exactly the rows formatted on the spot, in order.
    void rowWriterWritesEveryStepInOrder() {
        const Eigen::Index rows = 7, cols = 5;
        Random random(3);
        const auto randomMatrix = [&](Eigen::Index r, Eigen::Index c) {
            Matrix m(r, c);
            for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = random.uniform(-1.0f, 1.0f);
            return m;
        };
        Parameters w = {randomMatrix(rows, cols), randomMatrix(2, rows + 1)};
        const Parameters initial = w;
        auto optimizer = createOptimizer("momentum", optimizerInfo("momentum").defaults);
        StepDiagnostics diagnostics(w);
        QTemporaryDir tmp;
        const QString path = tmp.filePath("diagnostics.csv");
        QByteArray expected = diagnosticsHeader();
        {
            DiagnosticsRowWriter writer(path, w, 2);
            for (long step = 1; step <= 300; ++step) {
                const Parameters g = {randomMatrix(rows, cols), randomMatrix(2, rows + 1)};
                QVERIFY(optimizer->step(w, g));
                diagnostics.compute(w, g, *optimizer, initial);
                writer.push(step, diagnostics);
                appendDiagnosticsRows(expected, step, diagnostics);
            }
            writer.close();
            writer.close();  // does nothing more
        }
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray written = file.readAll();
        QVERIFY(written.size() > 3 * (1 << 16));
        QCOMPARE(written, expected);
        QCOMPARE(readDiagnosticsFile(path).size(), std::size_t{300});
        // A file that cannot be created is refused with its path, on the caller's thread.
        const QString bad = tmp.filePath("missing/diagnostics.csv");
        bool refused = false;
        try {
            DiagnosticsRowWriter writer(bad, w);
        } catch (const FileError& error) {
            refused = QString::fromUtf8(error.what()).contains("missing/diagnostics.csv");
        }
        QVERIFY(refused);
    }

    // Stopped mid-run, every step recorded so far is in the file (the writer thread drained).
    void stoppedRunKeepsItsDiagnostics() {
        const Experiment e = smallExperiment();
        QTemporaryDir tmp;
        LockstepTrainer trainer(e, loadDataSplit(e.data, e.seed));
        RunFolderWriter writer(tmp.path(), trainer);
        trainer.addObserver(&writer);
        DiagnosticsWriter diagnostics(writer.layout(), trainer, 1);
        trainer.addObserver(&diagnostics);
        struct StopAfter : TrainingObserver {
            RunControl* control = nullptr;
            void stepFinished(const StepMetrics& metrics) override {
                if (metrics.step == 17) control->requestStop();
            }
        } stopAfter;
        RunControl control;
        stopAfter.control = &control;
        trainer.addObserver(&stopAfter);
        trainer.run(control);
        writer.finish();
        const std::vector<DiagnosticsRecord> records = readDiagnosticsFile(writer.layout().diagnosticsFile(0));
        QCOMPARE(records.size(), std::size_t{17});
        QCOMPARE(records.back().step, 17L);
    }

    void cliWritesTheFilesAsked() {
        QTemporaryDir tmp;
        const QString out = tmp.filePath("run");
        QString err;
        const int status = cli({"train",
                                "--network",
                                "1-3-1",
                                "--activation",
                                "tanh",
                                "--loss",
                                "mse",
                                "--data",
                                "toy:sine",
                                "--batch",
                                "16",
                                "--steps",
                                "20",
                                "--optimizer",
                                "momentum",
                                "--quiet",
                                "--diagnostics-every",
                                "5",
                                "--curvature-every",
                                "10",
                                "--curvature-batch",
                                "32",
                                "--hessian-spectrum",
                                "--out",
                                out},
                               &err);
        QVERIFY2(status == 0, qPrintable(err));
        QCOMPARE(lines(out + "/diagnostics.csv").size(), 1 + 4 * (1 + 3 + 1 + 1));
        QCOMPARE(lines(out + "/curvature.csv").size(), 1 + 2);
        const QList<QByteArray> spectrum = lines(out + "/hessian_spectrum.csv");
        QCOMPARE(spectrum.size(), 1 + 10);  // 3 x (1 + 1) + 1 x (3 + 1) parameters
        QVERIFY(spectrum[1].split(',')[1].toDouble() <= spectrum[10].split(',')[1].toDouble());
    }

    // A damaged file is refused with its name, line and what was expected.
    void readersNameTheBadLine() {
        QTemporaryDir tmp;
        const auto write = [&tmp](const QString& name, const QByteArray& text) {
            QFile file(tmp.filePath(name));
            file.open(QIODevice::WriteOnly);
            file.write(text);
            return tmp.filePath(name);
        };
        const QByteArray header = diagnosticsHeader();
        const QString badNumber = write("a.csv", header + "1,0,,1,2,3,4,5,6,nan,7\n1,0,0,1,x,3,4,5,6,7,8\n");
        QString message = test::inputErrorOf([&] { readDiagnosticsFile(badNumber); });
        QVERIFY2(message.contains("a.csv") && message.contains("line 3") && message.contains("update_norm"),
                 qPrintable(message));
        const QString outOfOrder = write("b.csv", header + "1,0,3,1,2,3,4,5,6,7,8\n");
        message = test::inputErrorOf([&] { readDiagnosticsFile(outOfOrder); });
        QVERIFY2(message.contains("b.csv") && message.contains("line 2") && message.contains("neuron"),
                 qPrintable(message));
        const QString wrongHeader = write("c.csv", "step,lambda\n");
        message = test::inputErrorOf([&] { readCurvatureFile(wrongHeader); });
        QVERIFY2(message.contains("c.csv") && message.contains("step,lambda_max"), qPrintable(message));
        // The layout before the gradient_snr column still reads, without it.
        const QString old = write("d.csv", header.left(header.lastIndexOf(',')) + "\n1,0,,1,2,3,4,5,6,nan\n");
        const std::vector<DiagnosticsRecord> records = readDiagnosticsFile(old);
        QCOMPARE(records.size(), std::size_t{1});
        QVERIFY(std::isnan(records[0].layers[0][0].gradientSnr));
        QCOMPARE(records[0].layers[0][0].meanShare, 6.0f);
    }

    // The instrument presets ask for diagnostics and curvature; the CLI writes both without flags,
    // and the keys survive config.json.
    void instrumentPresetsAskForTheInstruments() {
        for (const char* id : {"instruments-sine", "instruments-iris", "instruments-digits"}) {
            const Experiment& e = findPreset(id).experiment;
            QVERIFY2(e.diagnosticsEvery > 0 && e.curvatureEvery > 0, id);
            QCOMPARE(e.runs.size(), std::size_t{2});
            QCOMPARE(e.runs[1].optimizer, std::string("neuron-mean"));
            const Experiment back = experimentFromJson(toJson(e), "round trip");
            QCOMPARE(back.diagnosticsEvery, e.diagnosticsEvery);
            QCOMPARE(back.curvatureEvery, e.curvatureEvery);
        }
        QVERIFY(!toJson(findPreset("seed-diagram").experiment).contains("diagnostics-every"));
        QTemporaryDir tmp;
        const QString out = tmp.filePath("run");
        QString err;
        QVERIFY2(cli({"train", "--preset", "instruments-sine", "--steps", "100", "--quiet", "--out", out}, &err) == 0,
                 qPrintable(err));
        // Every 10 steps: 10 records of 1 + 2 + 1 + 2 + 1 + 1 rows; curvature every 50: 2 rows.
        QCOMPARE(lines(out + "/momentum/diagnostics.csv").size(), 1 + 10 * 8);
        QCOMPARE(lines(out + "/neuron-mean/curvature.csv").size(), 1 + 2);
        // A flag overrides the preset.
        QVERIFY2(cli({"train", "--preset", "instruments-sine", "--steps", "100", "--quiet", "--diagnostics-every", "50",
                      "--out", tmp.filePath("run2")},
                     &err) == 0,
                 qPrintable(err));
        QCOMPARE(lines(tmp.filePath("run2") + "/momentum/diagnostics.csv").size(), 1 + 2 * 8);
        QCOMPARE(test::inputErrorOf([] {
                     QJsonObject json = toJson(findPreset("instruments-sine").experiment);
                     json["curvature-every"] = -3;
                     experimentFromJson(json, "EXP.json");
                 }).contains("EXP.json: curvature-every"),
                 true);
    }

    // The SNR switch: --no-gradient-snr (or the experiment's "gradient-snr": false) leaves the
    // column nan and the rest as it was; "hessian-spectrum": true acts as --hessian-spectrum.
    void gradientSnrSwitchesOff() {
        QTemporaryDir tmp;
        const QStringList base = {"train",
                                  "--network",
                                  "1-3-1",
                                  "--activation",
                                  "tanh",
                                  "--loss",
                                  "mse",
                                  "--data",
                                  "toy:sine",
                                  "--batch",
                                  "16",
                                  "--steps",
                                  "10",
                                  "--optimizer",
                                  "momentum",
                                  "--quiet",
                                  "--diagnostics-every",
                                  "5"};
        QString err;
        QVERIFY2(cli(base + QStringList{"--out", tmp.filePath("on")}, &err) == 0, qPrintable(err));
        QVERIFY2(cli(base + QStringList{"--no-gradient-snr", "--out", tmp.filePath("off")}, &err) == 0,
                 qPrintable(err));
        const auto on = readDiagnosticsFile(tmp.filePath("on/diagnostics.csv"));
        const auto off = readDiagnosticsFile(tmp.filePath("off/diagnostics.csv"));
        QCOMPARE(off.size(), on.size());
        QVERIFY(std::isfinite(on[1].layers[0][0].gradientSnr));
        for (const DiagnosticsRecord& record : off)
            for (const auto& layer : record.layers)
                for (const UnitDiagnostics& unit : layer) QVERIFY(std::isnan(unit.gradientSnr));
        QCOMPARE(off[1].layers[0][0].gradientNorm, on[1].layers[0][0].gradientNorm);

        Experiment e = findPreset("instruments-sine").experiment;
        QVERIFY(e.gradientSnr && !e.hessianSpectrum);
        QVERIFY(!toJson(e).contains("gradient-snr") && !toJson(e).contains("hessian-spectrum"));
        e.gradientSnr = false;
        e.hessianSpectrum = true;
        e.steps = 20;
        const Experiment back = experimentFromJson(toJson(e), "round trip");
        QVERIFY(!back.gradientSnr && back.hessianSpectrum);
        QCOMPARE(test::inputErrorOf([&] {
                     QJsonObject json = toJson(e);
                     json["gradient-snr"] = "no";
                     experimentFromJson(json, "EXP.json");
                 }).contains("EXP.json: gradient-snr: expected true or false"),
                 true);
        const QString file = tmp.filePath("experiment.json");
        QFile out(file);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QJsonDocument(toJson(e)).toJson());
        out.close();
        QVERIFY2(cli({"train", "--config", file, "--quiet", "--out", tmp.filePath("json")}, &err) == 0,
                 qPrintable(err));
        for (const QString run : {"momentum", "neuron-mean"}) {
            QVERIFY(std::isnan(
                readDiagnosticsFile(tmp.filePath("json/" + run + "/diagnostics.csv"))[0].layers[0][0].gradientSnr));
            QCOMPARE(readSpectrumFile(tmp.filePath("json/" + run + "/hessian_spectrum.csv")).size(), std::size_t{13});
        }
    }

    void cliRefusesBadFlags() {
        QTemporaryDir tmp;
        const QStringList base = {"train", "--data",  "toy:xor",     "--network", "2-4-2", "--steps",
                                  "3",     "--quiet", "--optimizer", "momentum",  "--out", tmp.filePath("x")};
        QString err;
        QCOMPARE(cli(base + QStringList{"--diagnostics-every", "0"}, &err), 2);
        QVERIFY2(err.contains("--diagnostics-every") && err.contains(">= 1"), qPrintable(err));
        QCOMPARE(cli(base + QStringList{"--curvature-every", "x"}, &err), 2);
        QVERIFY2(err.contains("--curvature-every"), qPrintable(err));
        QCOMPARE(cli({"train", "--data", "toy:xor", "--network", "2-64-64-2", "--steps", "3", "--quiet", "--optimizer",
                      "momentum", "--hessian-spectrum", "--out", tmp.filePath("y")},
                     &err),
                 2);
        QVERIFY2(err.contains("--hessian-spectrum") && err.contains("4482 parameters"), qPrintable(err));
        QVERIFY(!QFile::exists(tmp.filePath("y")));  // refused before anything is written
    }
};

QTEST_GUILESS_MAIN(TestDiagnostics)
#include "test_diagnostics.moc"
