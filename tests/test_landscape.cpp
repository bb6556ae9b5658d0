// The shared loss landscape (core/landscape): the principal plane of trajectories that lie in a
// known plane, projections, the grid against the analytic loss of a quadratic problem, Li et al.'s
// filter normalisation, cancelling, and the CLI command with its files and refusals.
#include "AllocationCounter.h"
#include "TestSupport.h"
#include "cli/Cli.h"
#include "data/DenseDataset.h"
#include "landscape/LandscapePlane.h"
#include "landscape/LossGrid.h"
#include "landscape/LossSlice.h"
#include "nn/FlatParameters.h"
#include "Random.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
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

Eigen::VectorXd randomVector(Eigen::Index size, Random& random) {
    Eigen::VectorXd v(size);
    for (Eigen::Index i = 0; i < size; ++i) v[i] = random.normal();
    return v;
}

DenseDataset randomRegression(Eigen::Index samples, Eigen::Index inputs, Eigen::Index outputs, std::uint64_t seed) {
    Random random(seed);
    DenseDataset::RowMatrix x(samples, inputs), y(samples, outputs);
    for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = random.uniform(-1.0f, 1.0f);
    for (Eigen::Index i = 0; i < y.size(); ++i) y.data()[i] = random.uniform(-1.0f, 1.0f);
    return DenseDataset::regression(std::move(x), std::move(y));
}

// Trajectories whose every point is origin + a u + b v (u, v orthonormal), a and b random.
std::vector<Trajectory> trajectoriesInPlane(const Eigen::VectorXd& origin, const Eigen::VectorXd& u,
                                            const Eigen::VectorXd& v, int runs, int points, Random& random) {
    std::vector<Trajectory> trajectories(runs);
    for (int r = 0; r < runs; ++r) {
        trajectories[r].label = "run" + std::to_string(r);
        for (int k = 0; k < points; ++k) {
            trajectories[r].steps.push_back(k);
            trajectories[r].points.push_back(
                (origin + random.uniform(-2, 2) * u + random.uniform(-1, 1) * v).cast<float>());
        }
    }
    return trajectories;
}

struct CliResult {
    int status;
    QString out, err;
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

QList<QByteArray> lines(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    QList<QByteArray> all = file.readAll().split('\n');
    if (!all.isEmpty() && all.back().isEmpty()) all.pop_back();
    return all;
}

const QStringList kSineTraining = {
    "train",    "--network", "1-2-2-1", "--activation", "tanh", "--loss",  "mse",         "--data",
    "toy:sine", "--batch",   "16",      "--steps",      "20",   "--quiet", "--optimizer", "momentum,neuron-mean",
    "--lr",     "0.05"};

}  // namespace

class TestLandscape : public QObject {
    Q_OBJECT
private slots:
    // Both ways to the principal directions: the points' Gram matrix (fewer points than weights)
    // and the weights' covariance (more points than weights).
    void principalPlaneRecoversAKnownPlane_data() {
        QTest::addColumn<int>("weights");
        QTest::addColumn<int>("pointsPerRun");
        QTest::newRow("gram of the points") << 40 << 6;
        QTest::newRow("covariance of the weights") << 5 << 30;
    }
    void principalPlaneRecoversAKnownPlane() {
        QFETCH(int, weights);
        QFETCH(int, pointsPerRun);
        Random random(3);
        const Eigen::VectorXd origin = randomVector(weights, random);
        const Eigen::VectorXd u = randomVector(weights, random).normalized();
        Eigen::VectorXd v = randomVector(weights, random);
        v = (v - u.dot(v) * u).normalized();
        const std::vector<Trajectory> trajectories = trajectoriesInPlane(origin, u, v, 2, pointsPerRun, random);
        const LandscapePlane plane = LandscapePlane::principal(trajectories, meanOfFinalWeights(trajectories));

        QVERIFY(std::abs(plane.first().norm() - 1) < 1e-9);
        QVERIFY(std::abs(plane.second().norm() - 1) < 1e-9);
        QVERIFY(std::abs(plane.first().dot(plane.second())) < 1e-9);
        // The plane's directions span u and v: each keeps its whole length in the plane.
        for (const Eigen::VectorXd& known : {u, v}) {
            const double inPlane = std::hypot(plane.first().dot(known), plane.second().dot(known));
            QVERIFY2(std::abs(inPlane - 1) < 1e-6, qPrintable(QString::number(inPlane, 'g', 12)));
        }
        // Every recorded point is the plane's point at its projection.
        Eigen::VectorXf rebuilt;
        for (const Trajectory& trajectory : trajectories)
            for (const Eigen::VectorXf& point : trajectory.points) {
                const Eigen::Vector2d xy = plane.project(point);
                plane.pointAt(xy.x(), xy.y(), rebuilt);
                QVERIFY2((rebuilt - point).cwiseAbs().maxCoeff() <= 1e-5,
                         qPrintable(QString::number((rebuilt - point).cwiseAbs().maxCoeff())));
            }
    }

    void centreProjectsToTheOrigin() {
        Random random(5);
        const Eigen::VectorXd origin = randomVector(9, random), u = randomVector(9, random).normalized();
        const Eigen::VectorXd v = randomVector(9, random).normalized();
        const std::vector<Trajectory> trajectories = trajectoriesInPlane(origin, u, v, 3, 4, random);
        Network network(spec("2-2-1", Activation::Tanh, LossKind::Mse));
        for (const PlaneDirections kind : {PlaneDirections::Principal, PlaneDirections::Random}) {
            const LandscapePlane plane = LandscapePlane::forTrajectories(trajectories, network.parameters(), kind, 1);
            QVERIFY(plane.centre().isApprox(meanOfFinalWeights(trajectories), 1e-6));  // random: via float layers
            const Eigen::Vector2d xy = plane.project(plane.centre().cast<float>());
            QVERIFY2(xy.norm() < 1e-6, qPrintable(QString("%1 %2").arg(xy.x()).arg(xy.y())));
            // And a point put on the plane comes back at its coordinates (random directions are not orthogonal).
            Eigen::VectorXf point;
            plane.pointAt(0.3, -0.7, point);
            QVERIFY((plane.project(point) - Eigen::Vector2d(0.3, -0.7)).norm() < 1e-5);
        }
    }

    // A linear layer under mse: the loss at W is mean((X~ W^T - T)^2), a quadratic in the plane's
    // coordinates, computed here from the data alone.
    void gridEqualsTheAnalyticLossOfAQuadraticProblem() {
        const DenseDataset data = randomRegression(40, 3, 2, 11);
        const NetworkSpec s = spec("3-2", Activation::Tanh, LossKind::Mse);
        Network network(s);
        network.initializeGlorotUniform(4);
        network.parameters()[0].col(3).setConstant(0.25f);  // biases too
        const LandscapePlane plane = LandscapePlane::filterNormalisedRandom(network.parameters(), 2);
        LossProbe probe(s, data);
        const LossGrid grid = LossGrid::compute(probe, plane, {-1.5, 1.0, -0.5, 2.0}, 7);
        QVERIFY(grid.complete);
        QCOMPARE(grid.loss.rows(), Eigen::Index{7});
        QCOMPARE(grid.x(0), -1.5);
        QCOMPARE(grid.y(6), 2.0);

        Eigen::MatrixXd augmented(40, 4);
        augmented.leftCols(3) = data.features().cast<double>();
        augmented.col(3).setOnes();
        const Eigen::MatrixXd targets = data.targets().cast<double>();
        Parameters layers = network.parameters();
        Eigen::VectorXf weights;
        for (int j = 0; j < 7; ++j)
            for (int i = 0; i < 7; ++i) {
                plane.pointAt(grid.x(i), grid.y(j), weights);
                unflattenInto(weights, layers);
                const Eigen::MatrixXd residual = augmented * layers[0].cast<double>().transpose() - targets;
                const double analytic = residual.squaredNorm() / double(residual.size());
                QVERIFY2(
                    std::abs(grid.loss(j, i) - analytic) <= 1e-5 * std::max(1.0, analytic),
                    qPrintable(
                        QString("(%1, %2): grid %3, analytic %4").arg(i).arg(j).arg(grid.loss(j, i)).arg(analytic)));
            }
        // The slice's ends are the losses at its two weight vectors.
        Eigen::VectorXf a, b;
        plane.pointAt(0, 0, a);
        plane.pointAt(1, 1, b);
        const LossSlice slice = LossSlice::compute(probe, a, b, 7);  // t = -0.25, 0, 0.25, ..., 1.25
        QVERIFY(slice.complete);
        QCOMPARE(slice.t.front(), -0.25);
        QCOMPARE(slice.t.back(), 1.25);
        QCOMPARE(slice.loss[1], probe.lossAt(a));
        QVERIFY(std::abs(slice.loss[5] - probe.lossAt(b)) <= 1e-6f * probe.lossAt(b));
    }

    void filterNormalisationGivesEachRowTheWeightsRowNorm() {
        Network network(spec("4-3-2", Activation::Tanh, LossKind::Mse));
        network.initializeGlorotUniform(8);
        Parameters& weights = network.parameters();
        weights[1].col(3).setConstant(-0.5f);
        const LandscapePlane plane = LandscapePlane::filterNormalisedRandom(weights, 6);
        for (const Eigen::VectorXd* flat : {&plane.first(), &plane.second()}) {
            Parameters direction = zerosLike(weights);
            unflattenInto(*flat, direction);
            for (std::size_t l = 0; l < weights.size(); ++l)
                for (Eigen::Index row = 0; row < weights[l].rows(); ++row)
                    QVERIFY2(std::abs(direction[l].row(row).norm() - weights[l].row(row).norm()) <=
                                 1e-5f * weights[l].row(row).norm(),
                             qPrintable(QString("layer %1 row %2").arg(l).arg(row)));
        }
        QVERIFY(plane.first() != LandscapePlane::filterNormalisedRandom(weights, 7).first());  // the seed matters
    }

    void cancelStopsEarly() {
        const DenseDataset data = randomRegression(20, 2, 1, 1);
        const NetworkSpec s = spec("2-3-1", Activation::Tanh, LossKind::Mse);
        Network network(s);
        network.initializeGlorotUniform(1);
        const LandscapePlane plane = LandscapePlane::filterNormalisedRandom(network.parameters(), 1);
        LossProbe probe(s, data);
        std::atomic<bool> cancel{false};
        long reported = 0;
        LandscapeControl control{&cancel, [&](long done, long total) {
                                     reported = done;
                                     QCOMPARE(total, 400L);
                                     if (done == 5) cancel = true;
                                 }};
        const LossGrid grid = LossGrid::compute(probe, plane, {}, 20, control);
        QVERIFY(!grid.complete);
        QCOMPARE(reported, 5L);
        QCOMPARE(long(grid.loss.unaryExpr([](float v) { return std::isnan(v) ? 0.0f : 1.0f; }).sum()), 5L);

        cancel = false;
        LandscapeControl sliceControl{&cancel, [&](long done, long) {
                                          if (done == 3) cancel = true;
                                      }};
        const LossSlice slice =
            LossSlice::compute(probe, plane.first().cast<float>(), plane.second().cast<float>(), 30, sliceControl);
        QVERIFY(!slice.complete);
        QCOMPARE(slice.loss.size(), std::size_t(3));
    }

    // One Network copy and one weight buffer serve every point: a grid of 64 points allocates as
    // much as one of 4 (the result matrix), whatever the number of evaluation chunks.
    void gridPointsDoNotAllocate_data() {
        QTest::addColumn<int>("examples");
        QTest::newRow("one chunk") << 300;
        QTest::newRow("two chunk sizes") << 1500;
    }
    void gridPointsDoNotAllocate() {
        if (!ml::allocationCountingAvailable()) QSKIP("sanitizer build: its runtime owns malloc, nothing is counted");
        QFETCH(int, examples);
        const DenseDataset data = randomRegression(examples, 3, 2, 4);
        const NetworkSpec s = spec("3-5-2", Activation::Tanh, LossKind::Mse);
        Network network(s);
        network.initializeGlorotUniform(2);
        const LandscapePlane plane = LandscapePlane::filterNormalisedRandom(network.parameters(), 3);
        LossProbe probe(s, data);
        LossGrid::compute(probe, plane, {}, 2);  // warm-up: the evaluation buffers reach their sizes
        auto allocationsOf = [&](int size) {
            const std::size_t before = ml::heapAllocationCount();
            const LossGrid grid = LossGrid::compute(probe, plane, {}, size);
            return ml::heapAllocationCount() - before;
        };
        QCOMPARE(allocationsOf(8), allocationsOf(2));
        // Split over two networks or not, the loss is the mean over every example.
        Eigen::VectorXf weights;
        plane.pointAt(0.3, -0.2, weights);
        unflattenInto(weights, network.parameters());
        const float whole = network.evaluate(data).loss;
        QVERIFY2(std::abs(probe.lossAt(weights) - whole) <= 1e-6f * whole,
                 qPrintable(QString("%1 vs %2").arg(probe.lossAt(weights)).arg(whole)));
    }

    void cliWritesTheThreeFiles() {
        QTemporaryDir tmp;
        const QString run = tmp.filePath("run"), out = tmp.filePath("landscape");
        const CliResult trained = cli(kSineTraining + QStringList{"--snapshots-every", "5", "--out", run});
        QVERIFY2(trained.status == 0, qPrintable(trained.err));
        const CliResult r = cli({"landscape", run, "--out", out, "--grid", "6", "--examples", "50"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QCOMPARE(lines(out + "/landscape.csv").size(), 1 + 36);
        QCOMPARE(lines(out + "/landscape.csv").front(), QByteArray("x,y,loss"));
        QCOMPARE(lines(out + "/slice.csv").size(), 1 + LossSlice::kDefaultPoints);
        const QList<QByteArray> points = lines(out + "/trajectories.csv");
        QCOMPARE(points.size(), 1 + 2 * 5);  // steps 0 (initial weights), 5, 10, 15, 20 of each run
        QCOMPARE(points[0], QByteArray("run,step,x,y"));
        QVERIFY(points[1].startsWith("momentum,0,"));
        // Both runs start from the same weights: the same point on the plane.
        QCOMPARE(points[1].split(',').mid(2), points[6].split(',').mid(2));
        QVERIFY(points[6].startsWith("neuron-mean,0,"));
        for (const QByteArray& row : lines(out + "/landscape.csv").mid(1))
            QVERIFY(std::isfinite(row.split(',')[2].toDouble()));
    }

    void cliRefusesBadInput() {
        QTemporaryDir tmp;
        const QString plain = tmp.filePath("plain"), withSnapshots = tmp.filePath("snap"), out = tmp.filePath("out");
        QCOMPARE(cli(kSineTraining + QStringList{"--out", plain}).status, 0);
        QCOMPARE(cli(kSineTraining + QStringList{"--snapshots-every", "10", "--out", withSnapshots}).status, 0);
        const struct {
            QStringList arguments;
            QString message;
        } cases[] = {
            {{"landscape", plain, "--out", out}, "run train with --snapshots-every N"},
            {{"landscape", tmp.filePath("missing"), "--out", out}, "missing"},
            {{"landscape", withSnapshots}, "--out: missing"},
            {{"landscape", withSnapshots, "--out", out, "--directions", "sideways"},
             "--directions sideways: expected pca or random"},
            {{"landscape", withSnapshots, "--out", out, "--grid", "1"}, "--grid"},
            {{"landscape", withSnapshots, "--out", out, "--grid", "5000"}, "--grid 5000: expected at most 1000"},
            {{"landscape", withSnapshots, "--out", out, "--examples", "0"}, "--examples"},
        };
        for (const auto& c : cases) {
            const CliResult r = cli(c.arguments);
            QVERIFY2(r.status == kExitBadInput, qPrintable(c.arguments.join(' ') + ": " + QString::number(r.status)));
            QVERIFY2(r.err.contains(c.message), qPrintable(r.err));
        }
        QVERIFY(!QFile::exists(out + "/landscape.csv"));
    }
};

QTEST_MAIN(TestLandscape)
#include "test_landscape.moc"
