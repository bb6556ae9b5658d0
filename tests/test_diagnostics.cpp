// Diagnostics and curvature (core/diagnostics): the neuron quantities on crafted first moments, the
// Hessian probe on a quadratic loss and against the exact spectrum, observers that leave the
// trajectory alone, and the CLI flags with their files and errors.
#include "TestSupport.h"
#include "cli/CommandTable.h"
#include "cli/Cli.h"
#include "data/DataRegistry.h"
#include "data/DenseDataset.h"
#include "diagnostics/CurvatureWriter.h"
#include "diagnostics/DiagnosticsWriter.h"
#include "diagnostics/HessianProbe.h"
#include "diagnostics/StepDiagnostics.h"
#include "optim/OptimizerCatalog.h"
#include "train/LockstepTrainer.h"
#include "train/RunFolderWriter.h"

#include <Eigen/Eigenvalues>

#include <QFile>
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
                 qPrintable(QString("power iteration %1, known %2").arg(top.eigenvalue, 0, 'g', 10).arg(largest, 0, 'g', 10)));
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
                                .arg(top.eigenvalue).arg(top.iterations).arg(largest)));
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
        QCOMPARE(rows[1].split(',').size(), 10);
        const QList<QByteArray> curves = lines(writer.layout().curvatureFile(0));
        QCOMPARE(curves.size(), 1 + 3);
        const QList<QByteArray> cells = curves[1].split(',');
        QCOMPARE(cells[0], QByteArray("10"));
        QVERIFY(std::isfinite(cells[1].toDouble()));
        QCOMPARE(cells[4].toDouble(), 2.0 / 0.1);
        QVERIFY(std::abs(cells[5].toDouble() - (2.0 + 2.0 * 0.9) / 0.1) < 1e-4);
    }

    void cliWritesTheFilesAsked() {
        QTemporaryDir tmp;
        const QString out = tmp.filePath("run");
        QString err;
        const int status = cli({"train", "--network", "1-3-1", "--activation", "tanh", "--loss", "mse", "--data",
                                "toy:sine", "--batch", "16", "--steps", "20", "--optimizer", "momentum", "--quiet",
                                "--diagnostics-every", "5", "--curvature-every", "10", "--curvature-batch", "32",
                                "--hessian-spectrum", "--out", out},
                               &err);
        QVERIFY2(status == 0, qPrintable(err));
        QCOMPARE(lines(out + "/diagnostics.csv").size(), 1 + 4 * (1 + 3 + 1 + 1));
        QCOMPARE(lines(out + "/curvature.csv").size(), 1 + 2);
        const QList<QByteArray> spectrum = lines(out + "/hessian_spectrum.csv");
        QCOMPARE(spectrum.size(), 1 + 10);  // 3 x (1 + 1) + 1 x (3 + 1) parameters
        QVERIFY(spectrum[1].split(',')[1].toDouble() <= spectrum[10].split(',')[1].toDouble());
    }

    void cliRefusesBadFlags() {
        QTemporaryDir tmp;
        const QStringList base = {"train", "--data", "toy:xor", "--network", "2-4-2", "--steps", "3", "--quiet",
                                  "--optimizer", "momentum",
                                  "--out", tmp.filePath("x")};
        QString err;
        QCOMPARE(cli(base + QStringList{"--diagnostics-every", "0"}, &err), 2);
        QVERIFY2(err.contains("--diagnostics-every") && err.contains(">= 1"), qPrintable(err));
        QCOMPARE(cli(base + QStringList{"--curvature-every", "x"}, &err), 2);
        QVERIFY2(err.contains("--curvature-every"), qPrintable(err));
        QCOMPARE(cli({"train", "--data", "toy:xor", "--network", "2-64-64-2", "--steps", "3", "--quiet", "--optimizer", "momentum",
                      "--hessian-spectrum", "--out", tmp.filePath("y")},
                     &err),
                 2);
        QVERIFY2(err.contains("--hessian-spectrum") && err.contains("4482 parameters"), qPrintable(err));
        QVERIFY(!QFile::exists(tmp.filePath("y")));  // refused before anything is written
    }
};

QTEST_GUILESS_MAIN(TestDiagnostics)
#include "test_diagnostics.moc"
