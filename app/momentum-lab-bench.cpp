// momentum-lab-bench: training throughput of the core, single thread.
// Prints steps/s and samples/s of the hot loop (gather batch, forward+backward, optimizer step)
// for 784-128-10 relu cross-entropy at batch 64 and 1-2-2-1 tanh mse at batch 1, each with every
// optimizer of the catalog, plus heap allocations per step (malloc and friends, which is what
// Eigen and operator new use; the hot loop must not allocate). Then the throughput of gathering a
// batch alone, for dense (float) and image (uint8) data, in the batch layout this build uses.
// The machine's single-core SGEMM peak (a large Eigen float product) and 784-128-10's matrix-product
// rate (fastest rule) as a fraction of it, both measured in alternating short rounds (median and
// spread printed) so that the ratio does not compare two different minutes; the load throughput of
// a plain IDX file. Writing: metrics.csv rows
// per second and a weights file of 100,000 values. The study runner's trials per second.
// Convolutions: 1x28x28-conv8k5-pool2-conv16k5-pool2-10 relu cross-entropy b64 with
// momentum against PyTorch on one thread (scripts/bench-torch-conv.py; skipped without torch).
// The whole CLI process against the whole PyTorch process on the same work, wall time, alternating
// pairs (scripts/torch-bench.py; PyTorch skipped without torch, the MNIST half without MNIST).
// Diagnostics (--part diagnostics): 784-128-10 b64 with diagnostics.csv every step / every 10 steps
// against without, and the time of one curvature probe.
//   momentum-lab-bench [--seconds S] [--part P] [--network N] [--optimizer O]   (default 2 s per case)
// Every figure that has a target is printed with PASS/FAIL, and all of them again at the end.
#include "AllocationCounter.h"
#include "CpuClock.h"
#include "MachineCounters.h"
#include "InputError.h"
#include "Random.h"
#include "data/DataRegistry.h"
#include "data/DenseDataset.h"
#include "data/Idx.h"
#include "data/ImageDataset.h"
#include "data/MnistImport.h"
#include "diagnostics/CurvatureWriter.h"
#include "diagnostics/DiagnosticsRowWriter.h"
#include "diagnostics/HessianProbe.h"
#include "diagnostics/StepDiagnostics.h"
#include "nn/Network.h"
#include "io/Files.h"
#include "io/JsonFile.h"
#include "optim/OptimizerCatalog.h"
#include "study/StudyRunner.h"
#include "study/TrialOutcome.h"
#include "runfolder/MetricsLog.h"
#include "runfolder/WeightsFile.h"

#include <Eigen/Core>

#include <QDir>
#include <QFileInfo>
#include <QJsonObject>
#include <QProcessEnvironment>
#include <QProcess>
#include <QTemporaryDir>

#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

// Throughputs are CPU time of this process (the machine may be shared); the atomic write's fsync
// waits for the disk, so it alone is timed on the wall clock.
using Clock = ml::CpuClock;
using WallClock = std::chrono::steady_clock;

// The targets: each figure that has one is printed with it and PASS/FAIL where it is
// measured, and again in one table at the end of the run.
struct Target {
    std::string figure;
    double value;
    bool atLeast;  // the target is a minimum (else a maximum)
    double limit;
    std::string unit;
    bool met() const { return atLeast ? value >= limit : value <= limit; }
    std::string verdict() const {
        char text[160];
        std::snprintf(text, sizeof text, "target %s %g %s: %s", atLeast ? ">=" : "<=", limit, unit.c_str(),
                      met() ? "PASS" : "FAIL");
        return text;
    }
};
std::vector<Target> targets;

// Records a figure against its target and prints the verdict on a line of its own.
void checkTarget(std::string figure, double value, bool atLeast, double limit, std::string unit) {
    targets.push_back({std::move(figure), value, atLeast, limit, std::move(unit)});
    std::printf("  -> %s\n", targets.back().verdict().c_str());
}

void printTargetTable() {
    if (targets.empty()) return;
    std::printf("\nTargets measured by this run:\n");
    int met = 0;
    for (const Target& t : targets) {
        std::printf("  %-72s %12.4g %-10s %s\n", t.figure.c_str(), t.value, t.unit.c_str(), t.verdict().c_str());
        met += t.met();
    }
    std::printf("  %d of %zu met\n", met, targets.size());
}

struct Case {
    const char* title;
    const char* network;  // --network text
    ml::Activation activation;
    ml::LossKind loss;
    long batch;
    ml::NetworkSpec spec() const {
        ml::NetworkSpec spec;
        spec.setLayers(network);
        spec.activation = activation;
        spec.loss = loss;
        return spec;
    }
};

// Random inputs; classification labels or regression targets to match the loss.
ml::DenseDataset syntheticData(const Case& c, Eigen::Index samples) {
    ml::Random random(1);
    const ml::NetworkSpec spec = c.spec();
    ml::DenseDataset::RowMatrix x(samples, spec.inputs());
    for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = random.uniform();
    if (c.loss == ml::LossKind::CrossEntropy) {
        Eigen::VectorXi labels(samples);
        for (Eigen::Index i = 0; i < samples; ++i) labels(i) = static_cast<int>(random.below(spec.outputs()));
        return ml::DenseDataset::classification(std::move(x), std::move(labels), spec.outputs());
    }
    ml::DenseDataset::RowMatrix y(samples, spec.outputs());
    for (Eigen::Index i = 0; i < y.size(); ++i) y.data()[i] = random.uniform(-1.0f, 1.0f);
    return ml::DenseDataset::regression(std::move(x), std::move(y));
}

// What runs after each measured step (diagnostics); none for the plain training loop.
using AfterStep = std::function<void(const ml::Network&, const ml::Parameters& gradients, const ml::Optimizer&)>;
// What runs before each step (arming the optimizer as the trainer does for a step an observer wants).
using BeforeStep = std::function<void(const ml::Network&, ml::Optimizer&)>;

// The median of some measurements (sorted in place).
double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n == 0 ? 0.0 : n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}
// The smallest and the largest of some (non-empty) measurements.
double lowest(const std::vector<double>& values) { return *std::min_element(values.begin(), values.end()); }
double highest(const std::vector<double>& values) { return *std::max_element(values.begin(), values.end()); }

struct Throughput {
    double stepsPerSecond = 0.0;        // per second of the process's CPU time (every thread)
    double wallStepsPerSecond = 0.0;    // per second of wall time
    double threadStepsPerSecond = 0.0;  // per second of the training thread's CPU time
    double allocationsPerStep = 0.0;
};

// CPU time of the calling thread, in seconds.
double threadCpuSeconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}
double mostAllocationsPerStep = 0.0;  // over every training case run

// One case with one optimizer (at its catalog defaults), `afterStep` after every step.
Throughput measureSteps(const Case& c, const ml::DenseDataset& data, const ml::OptimizerInfo& optimizerInfo,
                        double seconds, const AfterStep& afterStep = {}, const BeforeStep& beforeStep = {}) {
    ml::Network network(c.spec());
    network.initializeGlorotUniform(7);
    auto optimizer = ml::createOptimizer(optimizerInfo.name, optimizerInfo.defaults);
    optimizer->setColumnsPerInput(network.columnsPerInput());
    ml::Parameters gradients = ml::zerosLike(network.parameters());
    std::vector<Eigen::Index> order(data.size());
    std::iota(order.begin(), order.end(), Eigen::Index{0});
    ml::Batch batch;

    long step = 0;
    const long batchesPerEpoch = data.size() / c.batch;
    auto oneStep = [&] {
        const Eigen::Index begin = (step % batchesPerEpoch) * c.batch;
        data.gather(std::span<const Eigen::Index>(order.data() + begin, c.batch), batch);
        if (beforeStep) beforeStep(network, *optimizer);
        network.computeGradients(batch, gradients);
        optimizer->step(network.parameters(), gradients);
        if (afterStep) afterStep(network, gradients, *optimizer);
        ++step;
    };
    for (int i = 0; i < 20; ++i) oneStep();  // warm-up: buffers reach their final sizes

    const std::size_t allocationsBefore = ml::heapAllocationCount();
    const long stepsBefore = step;
    const auto wallStart = WallClock::now();
    const double threadStart = threadCpuSeconds();
    const auto start = Clock::now();
    const auto end = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    // The CPU clock is a system call (~0.3-1 us): read it about once a millisecond, not every few
    // steps, or it weighs on a step of a few hundred nanoseconds.
    long stepsPerCheck = 16;
    for (auto now = start; now < end;) {
        for (long i = 0; i < stepsPerCheck; ++i) oneStep();
        const auto previous = now;
        now = Clock::now();
        if (now - previous < std::chrono::milliseconds(1)) stepsPerCheck *= 2;
    }
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    const double threadElapsed = threadCpuSeconds() - threadStart;
    const double wallElapsed = std::chrono::duration<double>(WallClock::now() - wallStart).count();
    const long steps = step - stepsBefore;
    return {steps / elapsed, steps / wallElapsed, steps / threadElapsed,
            static_cast<double>(ml::heapAllocationCount() - allocationsBefore) / steps};
}

// One case with one optimizer: prints its row, returns its steps per second.
double runCase(const Case& c, const ml::DenseDataset& data, const ml::OptimizerInfo& optimizerInfo, double seconds) {
    const Throughput t = measureSteps(c, data, optimizerInfo, seconds);
    mostAllocationsPerStep = std::max(mostAllocationsPerStep, t.allocationsPerStep);
    std::printf("%-34s %-12s %12.0f %14.0f %10.2f\n", c.title, optimizerInfo.name.c_str(), t.stepsPerSecond,
                t.stepsPerSecond * c.batch, t.allocationsPerStep);
    return t.stepsPerSecond;
}

// Diagnostics (core/diagnostics) on 784-128-10 relu cross-entropy b64 with momentum: training alone
// against training with diagnostics.csv written every step and every 10 steps (the optimizer
// collecting the sums, the figures computed, then handed to a DiagnosticsRowWriter that formats
// and writes them on its own thread, as DiagnosticsWriter does; with and without the gradient SNR,
// whose per-sample gradient norms cost O(batch (in + out)) per dense layer), and with the
// observer's test alone (diagnostics off: every 10^9 steps, never due), then one curvature probe
// (largest Hessian eigenvalue by power iteration on a fixed batch of 256). A shared machine's load
// drifts between cases, so each case's share is the median over rounds of on/off pairs measured
// back to back. Shares are given three ways: wall steps/s (what a user with one run sees: the
// writer thread runs on the second core; the target is judged on it), the training thread's CPU
// (steps per second of its own CPU time: the same on an idle machine, steadier under load) and the
// process's CPU per step (every thread, the writer's formatting included: what the run costs).
void reportDiagnostics(double seconds) {
    const Case c{"784-128-10 relu cross-entropy b64", "784-128-10", ml::Activation::Relu, ml::LossKind::CrossEntropy,
                 64};
    const ml::DenseDataset data = syntheticData(c, 8192);
    const ml::OptimizerInfo& momentum = ml::optimizerInfo("momentum");
    QTemporaryDir dir;
    constexpr int kRounds = 5;
    std::printf(
        "\nDiagnostics, %s, momentum (%d alternating rounds of %.2f s of CPU per case, each 'on' run beside "
        "the 'off' run just before it; shares are medians over the rounds, min-max in brackets; wall: "
        "steps/s on the wall clock, thread: per CPU second of the training thread, CPU: the process's CPU "
        "per step, the writer thread included):\n",
        c.title, kRounds, seconds / kRounds);
    struct Config {
        long every;
        bool snr;
        std::string label;
        std::optional<ml::StepDiagnostics> diagnostics;
        std::optional<ml::Parameters> initial;
        std::unique_ptr<ml::DiagnosticsRowWriter> rows;
        std::vector<double> wallShares, threadShares, cpuShares, wallStepsPerSecond, cpuPerStep, allocationsPerStep;
    };
    std::vector<Config> configs;
    for (const auto& [every, snr, label] : {std::tuple{1L, false, "diagnostics every step, no SNR"},
                                            std::tuple{1L, true, "diagnostics every step, with SNR"},
                                            std::tuple{10L, true, "diagnostics every 10 steps, with SNR"},
                                            std::tuple{1000000000L, true, "observer present, never due (off)"}}) {
        Config& config = configs.emplace_back();
        config.every = every, config.snr = snr, config.label = label;
    }
    std::vector<double> offWallStepsPerSecond, offCpuPerStep, offAllocations;
    for (int round = 0; round < kRounds; ++round) {
        for (Config& config : configs) {
            const Throughput off = measureSteps(c, data, momentum, seconds / kRounds);
            offWallStepsPerSecond.push_back(off.wallStepsPerSecond);
            offCpuPerStep.push_back(1.0 / off.stepsPerSecond);
            offAllocations.push_back(off.allocationsPerStep);
            long step = 0;
            const Throughput on = measureSteps(
                c, data, momentum, seconds / kRounds,
                [&](const ml::Network& network, const ml::Parameters& gradients, const ml::Optimizer& optimizer) {
                    if (++step % config.every != 0) return;
                    config.diagnostics->compute(network.parameters(), gradients, optimizer, *config.initial,
                                                config.snr ? &network : nullptr);
                    config.rows->push(step, *config.diagnostics);
                },
                [&](const ml::Network& network, ml::Optimizer& optimizer) {
                    if (!config.initial) {
                        config.diagnostics.emplace(network.parameters()), config.initial = network.parameters();
                        config.rows = std::make_unique<ml::DiagnosticsRowWriter>(
                            dir.filePath(QStringLiteral("diagnostics-%1-%2.csv").arg(config.every).arg(config.snr)),
                            network.parameters());
                    }
                    if ((step + 1) % config.every == 0) optimizer.collectStepSums(*config.initial);
                });
            config.wallShares.push_back(on.wallStepsPerSecond / off.wallStepsPerSecond);
            config.threadShares.push_back(on.threadStepsPerSecond / off.threadStepsPerSecond);
            config.cpuShares.push_back(on.stepsPerSecond / off.stepsPerSecond);
            config.wallStepsPerSecond.push_back(on.wallStepsPerSecond);
            config.cpuPerStep.push_back(1.0 / on.stepsPerSecond);
            config.allocationsPerStep.push_back(on.allocationsPerStep);
        }
    }
    for (Config& config : configs) config.rows->close();  // every row written: the writer kept up
    std::printf("  %-38s %6.0f steps/s wall %6.1f us CPU/step %5.2f allocs/step (median of %zu runs)\n",
                "diagnostics off", median(offWallStepsPerSecond), 1e6 * median(offCpuPerStep), highest(offAllocations),
                offWallStepsPerSecond.size());
    for (const Config& config : configs) {
        std::printf(
            "  %-38s %6.0f steps/s wall %6.1f us CPU/step %5.2f allocs/step   wall %5.1f %% [%.1f-%.1f]  "
            "thread %5.1f %%  CPU %5.1f %%\n",
            config.label.c_str(), median(config.wallStepsPerSecond), 1e6 * median(config.cpuPerStep),
            highest(config.allocationsPerStep), 100.0 * median(config.wallShares), 100.0 * lowest(config.wallShares),
            100.0 * highest(config.wallShares), 100.0 * median(config.threadShares), 100.0 * median(config.cpuShares));
    }
    checkTarget("784-128-10 b64, all diagnostics every step, share of the wall speed without",
                100.0 * median(configs[1].wallShares), true, 80.0, "%");
    ml::Network network(c.spec());
    network.initializeGlorotUniform(7);
    ml::HessianProbe probe(c.spec(), ml::fixedBatch(data, 256));
    probe.setPoint(network.parameters());
    const auto start = Clock::now();
    const ml::PowerIterationResult top = probe.largestEigenvalue(ml::kCurvatureMaxIterations, ml::kCurvatureTolerance);
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    std::printf(
        "  curvature probe (batch 256, initial weights): lambda_max %.4g after %d products, %.0f ms "
        "(%.2f ms per product)\n",
        top.eigenvalue, top.iterations, 1e3 * elapsed, 1e3 * elapsed / top.iterations);
}

// Floating-point operations of one training step's matrix products: per dense layer the forward
// product and the weight gradient, plus the input gradient for every layer but the first (the
// data needs none). Element-wise work (activations, loss, optimizer) is not counted.
double productFlopsPerStep(const Case& c) {
    const ml::NetworkSpec spec = c.spec();  // dense cases only
    double flops = 0.0, in = spec.inputs();
    for (std::size_t l = 0; l < spec.layers.size(); ++l) {
        const double product = 2.0 * static_cast<double>(c.batch) * in * spec.layers[l].size;
        flops += (l == 0 ? 2.0 : 3.0) * product;
        in = spec.layers[l].size;
    }
    return flops;
}

// The conv network with momentum here and in PyTorch (one thread each): steps/s and the ratio.
void compareConvWithTorch(double seconds) {
    const Case conv{"cnn relu cross-entropy b64", "1x28x28-conv8k5-pool2-conv16k5-pool2-10", ml::Activation::Relu,
                    ml::LossKind::CrossEntropy, 64};
    std::printf("\ncnn = %s\n%-34s %-12s %12s %14s %10s\n", conv.network, "case", "optimizer", "steps/s", "samples/s",
                "allocs/step");
    const double ours = runCase(conv, syntheticData(conv, 8192), ml::optimizerInfo("momentum"), seconds);
    const QString script = QStringLiteral(MOMENTUM_LAB_SOURCE_DIR "/scripts/bench-torch-conv.py");
    QProcess torch;
    torch.start(QStringLiteral("/usr/bin/python3"), {script, QStringLiteral("--seconds"), QString::number(seconds)});
    const bool finished = torch.waitForFinished(static_cast<int>(seconds * 1000) + 120000);
    const QByteArray output = torch.readAllStandardOutput().trimmed();
    bool isNumber = false;
    const double theirs = output.toDouble(&isNumber);
    if (!finished || torch.exitCode() != 0 || !isNumber || theirs <= 0.0) {
        const QByteArray why = (output + ' ' + torch.readAllStandardError().trimmed()).trimmed();
        std::printf("PyTorch comparison skipped: %s\n", why.isEmpty() ? "python3 did not run" : why.constData());
        return;
    }
    std::printf("%-34s %-12s %12.0f %14.0f\n", "cnn in PyTorch, 1 thread", "SGD momentum", theirs, theirs * 64);
    std::printf("momentum-lab / PyTorch: %.2fx\n", ours / theirs);
}

// The single-core SGEMM peak in GFLOP/s: repeated 1024 x 1024 float products (large enough for
// Eigen's blocked kernel to run at its best), the best of several timed rounds.
double sgemmPeakGflops(double seconds) {
    constexpr Eigen::Index n = 1024;
    const ml::Matrix a = ml::Matrix::Random(n, n), b = ml::Matrix::Random(n, n);
    ml::Matrix c(n, n);
    c.noalias() = a * b;  // warm-up
    double best = 0.0;
    const auto end = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    do {
        const auto start = Clock::now();
        c.noalias() = a * b;
        const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
        best = std::max(best, 2.0 * n * n * n / elapsed / 1e9);
    } while (Clock::now() < end);
    if (!c.allFinite()) std::printf("(SGEMM result not finite)\n");  // keeps the product observable
    return best;
}

// The fastest rule's share of the SGEMM peak, measured so that the ratio can be trusted on a shared
// machine whose speed drifts from minute to minute: kRounds short rounds, each the peak and the
// training loop back to back (in alternating order), so that each round's share compares two figures
// taken within a fraction of a second. Prints each figure's median over the rounds with its min-max
// and the share of each round (median, min-max; and best steps/s over best peak for reference).
struct PeakShare {
    double peak;   // GFLOP/s, median over the rounds
    double share;  // %, median of the rounds' shares
};
PeakShare reportPeakShare(const Case& c, const ml::DenseDataset& data, const ml::OptimizerInfo& fastest,
                          double seconds) {
    constexpr int kRounds = 7;
    std::vector<double> peaks, stepsPerSecond, shares;
    for (int round = 0; round < kRounds; ++round) {
        const auto peak = [&] { peaks.push_back(sgemmPeakGflops(seconds / kRounds)); };
        const auto training = [&] {
            stepsPerSecond.push_back(measureSteps(c, data, fastest, seconds / kRounds).stepsPerSecond);
        };
        if (round % 2 == 0) peak(), training();
        else training(), peak();
        shares.push_back(100.0 * stepsPerSecond.back() * productFlopsPerStep(c) / 1e9 / peaks.back());
    }
    std::printf(
        "\nShare of the SGEMM peak: %d alternating rounds of %.2f s of CPU each for the peak (1024 x 1024 float "
        "product, one core, best product of the round) and for %s with %s (steps/s over the round); "
        "medians, min-max over the rounds in brackets:\n",
        kRounds, seconds / kRounds, c.title, fastest.name.c_str());
    std::printf("  SGEMM peak      %8.1f GFLOP/s [%.1f-%.1f]\n", median(peaks), lowest(peaks), highest(peaks));
    std::printf("  training loop   %8.0f steps/s [%.0f-%.0f] = %.2f GFLOP/s of matrix products\n",
                median(stepsPerSecond), lowest(stepsPerSecond), highest(stepsPerSecond),
                median(stepsPerSecond) * productFlopsPerStep(c) / 1e9);
    std::printf("  share per round %8.1f %% [%.1f-%.1f]   (best steps/s over best peak: %.1f %%)\n", median(shares),
                lowest(shares), highest(shares),
                100.0 * highest(stepsPerSecond) * productFlopsPerStep(c) / 1e9 / highest(peaks));
    return {median(peaks), median(shares)};
}

// Reads a plain (uncompressed) IDX file of 60,000 random 28 x 28 images, as MNIST's training set,
// the best of several rounds; returns MB/s (10^6 bytes) of the file.
double idxLoadMegabytesPerSecond(double seconds) {
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("images-idx3-ubyte")).toStdString();
    std::vector<std::uint8_t> pixels(60000u * 28 * 28);
    ml::Random random(4);
    for (std::uint8_t& pixel : pixels) pixel = static_cast<std::uint8_t>(random.below(256));
    ml::writeIdx(path, {60000, 28, 28}, pixels);
    const double bytes = static_cast<double>(pixels.size() + 16);
    double best = 0.0;
    const auto end = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    do {
        const auto start = Clock::now();
        const ml::IdxArray array = ml::readIdx(path);
        const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
        if (array.data.size() != pixels.size()) std::printf("(IDX read returned the wrong size)\n");
        best = std::max(best, bytes / elapsed / 1e6);
    } while (Clock::now() < end);
    return best;
}

// 8192 random 28x28 images in 10 classes, pixels scaled to [0, 1] when gathered.
ml::ImageDataset syntheticImages(Eigen::Index samples) {
    ml::Random random(2);
    std::vector<std::uint8_t> pixels(static_cast<std::size_t>(samples) * 28 * 28),
        labels(static_cast<std::size_t>(samples));
    for (std::uint8_t& pixel : pixels) pixel = static_cast<std::uint8_t>(random.below(256));
    for (std::uint8_t& label : labels) label = static_cast<std::uint8_t>(random.below(10));
    return ml::ImageDataset(std::move(pixels), std::move(labels), {28, 28}, 10, 1.0f / 255.0f);
}

// Gathering batches of `batch` shuffled samples, nothing else.
void runGather(const char* title, const ml::Dataset& data, long batch, double seconds) {
    std::vector<Eigen::Index> order(static_cast<std::size_t>(data.size()));
    std::iota(order.begin(), order.end(), Eigen::Index{0});
    ml::Random(3).shuffle(std::span<Eigen::Index>(order));
    ml::Batch buffer;
    long gathered = 0;
    const long batchesPerEpoch = data.size() / batch;
    auto oneBatch = [&] {
        const Eigen::Index begin = (gathered % batchesPerEpoch) * batch;
        data.gather(std::span<const Eigen::Index>(order.data() + begin, batch), buffer);
        ++gathered;
    };
    oneBatch();
    gathered = 0;
    const auto start = Clock::now();
    const auto end = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    while (Clock::now() < end)
        for (int i = 0; i < 64; ++i) oneBatch();
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    std::printf("%-34s %-12s %12.0f %14.0f\n", title, "gather only", gathered / elapsed, gathered * batch / elapsed);
}

// Full Fashion-MNIST (60,000 + 10,000 gzip-compressed images) from files to a data split ready to
// train, as the CLI loads it, `rounds` times: the median CPU and wall time (the files stay in the
// page cache after the first round, as they do for a user who trains more than once). A message
// instead where the Debian package is not installed.
void reportFashionMnistLoad(int rounds) {
    try {
        std::vector<double> cpu, wall;
        Eigen::Index trainSize = 0, testSize = 0;
        for (int round = 0; round < rounds; ++round) {
            const auto start = Clock::now();
            const auto wallStart = WallClock::now();
            const ml::DataSplit split = ml::loadDataSplit("fashion-mnist", 1);
            cpu.push_back(std::chrono::duration<double>(Clock::now() - start).count());
            wall.push_back(std::chrono::duration<double>(WallClock::now() - wallStart).count());
            trainSize = split.train->size();
            testSize = split.test->size();
        }
        std::printf(
            "fashion-mnist (%lld train + %lld test images) ready to train: median of %d: %.3f s CPU, %.3f s wall "
            "(CPU from %.3f to %.3f s)\n",
            static_cast<long long>(trainSize), static_cast<long long>(testSize), rounds, median(cpu), median(wall),
            lowest(cpu), highest(cpu));
        checkTarget("full Fashion-MNIST ready to train (CPU, median)", median(cpu), false, 0.2, "s");
    } catch (const ml::InputError& error) {
        std::printf("fashion-mnist load skipped: %s\n", error.what());
    }
}

// A small study (digits, 64-32-10, two optimizers, 32 trials of `steps` steps): short trials, where
// the fixed cost per trial shows.
ml::StudyPlan shortTrialsStudy(long steps) {
    const QByteArray json = R"({"name": "bench", "network": "64-32-10", "activation": "relu", "loss": "cross-entropy",
      "data": "digits", "seed": 1, "batch": 32, "steps": )" +
                            QByteArray::number(steps) + R"(,
      "runs": [{"optimizer": "momentum"}, {"optimizer": "adam"}],
      "study": {"budget": 8, "search": {"*": {"lr": {"log-uniform": [0.0001, 0.1]}}}, "seeds": 8}})";
    return ml::StudyPlan(ml::studyFromJson(ml::parseJsonObject(json, "bench study"), "bench study"));
}

// The shipped digits study (resources/studies/1-seed-question-digits.json: 30 epochs, about 1,100
// steps and 30 evaluations a trial, five optimizers) with its search as a plain grid (the grid and
// the defaults on one tuning seed: 100 trials) or refined as it ships: 2 refining rounds of 2
// candidates and 3 tuning seeds per candidate, (1 + 9 + 4) x 3 = 42 tuning trials per optimizer
// instead of 10, 260 trials (docs/guide/studies.md).
ml::StudyPlan digitsStudySearch(bool refined) {
    const QString file = QStringLiteral(":/studies/1-seed-question-digits.json");
    QJsonObject json = ml::readJsonObject(file);
    QJsonObject section = json["study"].toObject();
    for (const char* key : {"refine", "tuning-seeds", "tuning-statistic"}) section.remove(key);
    section["budget"] = 10;
    if (refined) {
        section["refine"] = QJsonObject{{"rounds", 2}, {"points", 2}};
        section["tuning-seeds"] = 3;
        section["budget"] = (1 + 9 + 2 * 2) * 3;
    }
    json["study"] = section;
    return ml::StudyPlan(ml::studyFromJson(json, file.toStdString()));
}

struct StudySpeed {
    double trialsPerSecond = 0.0;  // wall
    double cpuMsPerTrial = 0.0;    // this process's CPU time (every thread)
    double trainingMs = 0.0;       // per trial, as the trials' metrics record it
    double machineBusy = 0.0;      // fraction of every core's time, any process or kernel thread
    double diskWritesPerTrial = 0.0, diskFlushesPerTrial = 0.0;  // the temporary folder's disk
};

// The folders of the studies measured, removed only when the part has finished measuring: on ext4
// without a journal (as here), creating a file within 30 s of deleting others scans past each
// recently deleted inode (find_inode_bit -> recently_deleted); removing each study's 700 files
// before the next one made that scan 6.5 % of the next study's samples on both cores (perf record
// -a), a cost of the benchmark's own clean-up that a user's study in a new folder does not pay.
class StudyFolders {
public:
    QString next() { return root_.filePath(QStringLiteral("study-%1").arg(++count_)); }

private:
    QTemporaryDir root_;
    int count_ = 0;
};

// Runs `plan` as `momentum-lab-cli study` does (both phases, `jobs` worker threads) in a new folder.
StudySpeed studySpeed(const ml::StudyPlan& plan, int jobs, StudyFolders& folders) {
    const QString dir = folders.next();
    const ml::StudyLayout layout(dir, plan);
    const ml::PendingTrials pending = ml::pendingTrials(layout);
    ml::RunControl control;
    QDir().mkpath(dir);
    const ml::MachineCounters before = ml::MachineCounters::read(dir.toStdString());
    const auto start = std::chrono::steady_clock::now();
    const auto cpuStart = Clock::now();
    ml::runPendingTrials(layout, pending, jobs, control);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double cpuMs = std::chrono::duration<double, std::milli>(Clock::now() - cpuStart).count();
    const ml::MachineCounters after = ml::MachineCounters::read(dir.toStdString());
    double trainingMs = 0.0;
    for (int k = 0; k < plan.trialCount(); ++k) trainingMs += ml::readTrialOutcome(layout, k)->metrics.last()->wallMs;
    const double trials = plan.trialCount();
    return {trials / seconds,
            cpuMs / trials,
            trainingMs / trials,
            after.busySince(before),
            (after.diskWrites - before.diskWrites) / trials,
            (after.diskFlushes - before.diskFlushes) / trials};
}

// Trials/s with 1 and 2 workers, `pairs` alternating studies each; returns the ratio of the medians.
// Beside it, how busy the machine's cores were and the disk's writes and flushes per trial (medians):
// what the workers share.
double workerScaling(const ml::StudyPlan& plan, int pairs, const char* what, StudyFolders& folders) {
    std::vector<double> ones, twos, busyOne, busyTwo, writes, flushes;
    for (int pair = 0; pair < pairs; ++pair) {
        const StudySpeed one = studySpeed(plan, 1, folders), two = studySpeed(plan, 2, folders);
        ones.push_back(one.trialsPerSecond);
        twos.push_back(two.trialsPerSecond);
        busyOne.push_back(100.0 * one.machineBusy);
        busyTwo.push_back(100.0 * two.machineBusy);
        writes.push_back(one.diskWritesPerTrial);
        flushes.push_back(one.diskFlushesPerTrial);
    }
    const double one = median(ones), two = median(twos);
    std::printf(
        "  %s, median of %d studies each (alternating): %.1f trials/s with 1 worker (%.1f to %.1f), "
        "%.1f with 2 (%.1f to %.1f): %.2fx\n",
        what, pairs, one, lowest(ones), highest(ones), two, lowest(twos), highest(twos), two / one);
    std::printf(
        "    machine busy %.0f %% with 1 worker, %.0f %% with 2; disk per trial: %.1f writes, %.1f cache flushes\n",
        median(busyOne), median(busyTwo), median(writes), median(flushes));
    return two / one;
}

// Wall time of the refined, 3-tuning-seed digits study against the plain grid's on 2 workers:
// the cost of a search that brackets its optimum (a figure beside a target, not a test).
void reportRefinedStudyCost(int pairs, StudyFolders& folders) {
    const ml::StudyPlan plain = digitsStudySearch(false), refined = digitsStudySearch(true);
    std::vector<double> plainSeconds, refinedSeconds;
    for (int pair = 0; pair < pairs; ++pair) {  // alternating, so a busy spell of the machine hits both
        plainSeconds.push_back(plain.trialCount() / studySpeed(plain, 2, folders).trialsPerSecond);
        refinedSeconds.push_back(refined.trialCount() / studySpeed(refined, 2, folders).trialsPerSecond);
    }
    const double ratio = median(refinedSeconds) / median(plainSeconds);
    std::printf(
        "  digits study on 2 workers, median of %d each (alternating): plain grid %d trials %.1f s (%.1f to %.1f), "
        "refined (2 rounds of 2, 3 tuning seeds) %d trials %.1f s (%.1f to %.1f): %.2fx\n",
        pairs, plain.trialCount(), median(plainSeconds), lowest(plainSeconds), highest(plainSeconds),
        refined.trialCount(), median(refinedSeconds), lowest(refinedSeconds), highest(refinedSeconds), ratio);
    checkTarget("study: refined 3-tuning-seed digits study against the plain grid (2 workers, wall)", ratio, false, 3.0,
                "x");
}

void reportStudySpeed() {
    std::printf("\nstudy runner (files in %s):\n", qPrintable(QDir::tempPath()));
    // The target is judged on the study users run; the short trials show how far the fixed cost
    // (creating, syncing and renaming its files) holds two workers back when a trial is a few ms of work.
    StudyFolders folders;
    const double shipped =
        workerScaling(digitsStudySearch(false), 5, "digits study, grid (100 trials of 30 epochs)", folders);
    checkTarget("study: 2 workers against 1 (digits study, grid, wall, medians of 5)", shipped, true, 1.8, "x");
    workerScaling(shortTrialsStudy(300), 5, "short trials (32 digits trials of 300 steps)", folders);
    // The fixed cost waits for the disk (each trial's files synced before its marker), so it is
    // timed on the wall clock, the median of 3 studies, with the CPU time beside it.
    std::vector<double> wallMs, cpuMs;
    double trainingMs = 0.0;
    const ml::StudyPlan oneStep = shortTrialsStudy(1);
    for (int round = 0; round < 3; ++round) {
        const StudySpeed tiny = studySpeed(oneStep, 1, folders);
        wallMs.push_back(1000.0 / tiny.trialsPerSecond - tiny.trainingMs);
        cpuMs.push_back(tiny.cpuMsPerTrial - tiny.trainingMs);
        trainingMs = tiny.trainingMs;
    }
    std::printf(
        "  fixed cost per trial (1-step trials, 1 worker), median of 3 studies: %.1f ms wall (%.1f to %.1f), "
        "%.1f ms CPU, beyond %.2f ms of training\n",
        median(wallMs), lowest(wallMs), highest(wallMs), median(cpuMs), trainingMs);
    checkTarget("study: fixed cost per trial beyond its training (wall, median)", median(wallMs), false, 20.0, "ms");
    reportRefinedStudyCost(3, folders);
}

// metrics.csv rows through the run folder's log (formatting into its buffer and the hand-overs
// to the file), realistic values; prints rows/s and allocations per row.
void reportMetricsWriting(double seconds) {
    QTemporaryDir dir;
    ml::MetricsLog log(dir.filePath(QStringLiteral("metrics.csv")));
    ml::Random random(5);
    std::vector<float> losses(4096);
    for (float& loss : losses) loss = random.uniform(0.0f, 2.5f);
    ml::StepMetrics m;
    long rows = 0;
    auto oneRow = [&] {
        ++rows;
        m.step = rows;
        m.epoch = static_cast<int>(rows / 125 + 1);
        m.trainLoss = losses[static_cast<std::size_t>(rows) % losses.size()];
        m.wallMs = 0.0003 * static_cast<double>(rows);
        log.append(m);
    };
    for (int i = 0; i < 1000; ++i) oneRow();  // warm-up
    const std::size_t allocationsBefore = ml::heapAllocationCount();
    const long rowsBefore = rows;
    const auto start = Clock::now();
    const auto end = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    while (Clock::now() < end)
        for (int i = 0; i < 256; ++i) oneRow();
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    const double allocations = static_cast<double>(ml::heapAllocationCount() - allocationsBefore) / (rows - rowsBefore);
    log.close();
    std::printf(
        "metrics.csv rows (to_chars into one buffer, appended to the file): %.2f M rows/s, %.4f allocations/row\n",
        (rows - rowsBefore) / elapsed / 1e6, allocations);
    checkTarget("metrics.csv rows", (rows - rowsBefore) / elapsed / 1e6, true, 5.0, "M rows/s");
}

// A weights file of a 784-128-10 network (101,770 values): formatting alone, and the whole atomic
// write (temporary file, write, fsync, rename); the best of several rounds, in ms.
void reportWeightsWriting(double seconds) {
    const Case c{"784-128-10", "784-128-10", ml::Activation::Relu, ml::LossKind::CrossEntropy, 64};
    ml::Network network(c.spec());
    network.initializeGlorotUniform(9);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("weights.json"));
    double bestFormat = 1e9, bestWrite = 1e9;
    qsizetype bytes = 0;
    const auto end = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    do {
        const auto start = Clock::now();
        const auto wallStart = WallClock::now();
        const QByteArray json = ml::weightsToJson(network.parameters(), c.spec());
        const auto formatted = Clock::now();
        ml::writeFileAtomically(path, json);
        const auto written = WallClock::now();
        bytes = json.size();
        bestFormat = std::min(bestFormat, std::chrono::duration<double, std::milli>(formatted - start).count());
        bestWrite = std::min(bestWrite, std::chrono::duration<double, std::milli>(written - wallStart).count());
    } while (Clock::now() < end);
    std::printf(
        "weights file, 101,770 values (%.2f MB): formatted in %.2f ms (CPU), written atomically with fsync in %.2f ms (wall)\n",
        bytes / 1e6, bestFormat, bestWrite);
    checkTarget("weights file of 101,770 values, formatted + written with fsync (wall)", bestWrite, false, 20.0, "ms");
}

// A child process's wall time (spawn to exit) and CPU time (user + system, from wait4); its stdout.
struct ChildRun {
    int status = -1;  // exit status; -1: could not start or killed
    double cpuSeconds = 0.0;
    double wallSeconds = 0.0;
    std::string output;
};

// Runs `command` (argv[0] an absolute path) with exactly `environment` (NAME=VALUE entries).
ChildRun runChild(const std::vector<std::string>& command, const QStringList& environment) {
    ChildRun run;
    std::vector<std::string> environmentText;
    for (const QString& entry : environment) environmentText.push_back(entry.toStdString());
    std::vector<char*> envp;
    for (std::string& entry : environmentText) envp.push_back(entry.data());
    envp.push_back(nullptr);
    int pipeEnds[2];
    if (pipe(pipeEnds) != 0) return run;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, pipeEnds[0]);
    std::vector<char*> argv;
    for (const std::string& word : command) argv.push_back(const_cast<char*>(word.c_str()));
    argv.push_back(nullptr);
    const auto start = WallClock::now();
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    close(pipeEnds[1]);
    if (spawned == 0) {
        char buffer[4096];
        for (ssize_t n; (n = read(pipeEnds[0], buffer, sizeof buffer)) > 0;) run.output.append(buffer, std::size_t(n));
        int status = 0;
        rusage usage{};
        if (wait4(pid, &status, 0, &usage) == pid && WIFEXITED(status)) run.status = WEXITSTATUS(status);
        run.cpuSeconds = double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                         1e-6 * double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
    }
    close(pipeEnds[0]);
    run.wallSeconds = std::chrono::duration<double>(WallClock::now() - start).count();
    return run;
}

// A number that follows `key ` in a child's output; nullopt when absent.
std::optional<double> numberAfter(const std::string& output, const std::string& key) {
    const std::size_t at = output.find(key + ' ');
    if (at == std::string::npos) return std::nullopt;
    return std::atof(output.c_str() + at + key.size() + 1);
}

// The whole `momentum-lab-cli train` process (start-up, data loading, training with its
// evaluations, every file written) against the whole PyTorch process on the same work
// (scripts/torch-bench.py under /usr/bin/python3: interpreter start, `import torch`, data loading,
// training with its evaluations), both timed on the wall clock from spawn to exit, in `pairs`
// alternating pairs (the CLI first in even pairs, PyTorch first in odd ones). PyTorch runs on one
// thread (torch.set_num_threads(1), OMP_NUM_THREADS=1) with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE
// removed from its environment only; the CLI gets this process's environment. Printed: each side's
// median wall time (min-max), the median of the pairs' ratios (min-max), the CPU times beside, and
// PyTorch's training loop alone as the script reports it.
void reportWholeProcess(const std::filesystem::path& cli, int pairs) {
    struct Work {
        const char* title;
        const char* shortTitle;
        std::vector<std::string> cliArguments;
        std::vector<std::string> torchArguments;
        double target;
        bool needsMnist;
    };
    const QString mnistDirectory = ml::mnistDirectory();
    const Work works[] = {
        {"784-128-10 relu b64, 3 epochs of 8,000 MNIST images (3 evaluations on 8,000 + 2,000)",
         "784-128-10 b64, 3 MNIST epochs",
         {"--network", "784-128-10", "--activation", "relu", "--loss", "cross-entropy", "--data", "mnist",
          "--optimizer", "momentum", "--lr", "0.01", "--batch", "64", "--epochs", "3"},
         {"mnist", mnistDirectory.toStdString()},
         12.0,
         true},
        {"1-2-2-1 tanh b1, 200,000 steps of toy:sine (1,000 evaluations on 200 + 100)",
         "1-2-2-1 b1, 200,000 steps",
         {"--network", "1-2-2-1", "--activation", "tanh", "--loss", "mse", "--data", "toy:sine", "--optimizer",
          "momentum", "--lr", "0.01", "--batch", "1", "--steps", "200000"},
         {"sine"},
         300.0,
         false},
    };
    const QStringList cliEnvironment = QProcessEnvironment::systemEnvironment().toStringList();
    QProcessEnvironment torchEnvironment = QProcessEnvironment::systemEnvironment();
    torchEnvironment.remove(QStringLiteral("OPENBLAS_CORETYPE"));
    torchEnvironment.remove(QStringLiteral("OPENBLAS_L2_SIZE"));
    torchEnvironment.insert(QStringLiteral("OMP_NUM_THREADS"), QStringLiteral("1"));
    const QStringList torchEnvironmentList = torchEnvironment.toStringList();
    const char* const mnistStems[] = {"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                                      "t10k-labels-idx1-ubyte"};
    const bool haveMnist = std::all_of(std::begin(mnistStems), std::end(mnistStems), [&](const char* stem) {
        const QString path = QDir(mnistDirectory).filePath(QString::fromLatin1(stem));
        return QFileInfo::exists(path) || QFileInfo::exists(path + QStringLiteral(".gz"));
    });
    const bool haveTorchScript =
        std::filesystem::exists("/usr/bin/python3") && std::filesystem::exists(MOMENTUM_LAB_TORCH_BENCH);
    QTemporaryDir dir;
    // Untimed: brings both programs' files into the page cache, and says whether torch is there.
    const ChildRun importTorch =
        haveTorchScript ? runChild({"/usr/bin/python3", "-c", "import torch"}, torchEnvironmentList) : ChildRun{};
    if (importTorch.status != 0)
        std::printf("PyTorch: %s; the CLI's times alone\n",
                    haveTorchScript ? "torch is not importable by /usr/bin/python3"
                                    : "/usr/bin/python3 or " MOMENTUM_LAB_TORCH_BENCH " is missing");
    int runNumber = 0;
    for (const Work& work : works) {
        std::printf("\n%s\n", work.title);
        if (work.needsMnist && !haveMnist) {
            std::printf("  skipped: MNIST is not in %s (bash scripts/fetch-mnist.sh fetches it)\n",
                        qPrintable(mnistDirectory));
            continue;
        }
        const auto cliCommand = [&] {
            std::vector<std::string> command{cli.string(), "train"};
            command.insert(command.end(), work.cliArguments.begin(), work.cliArguments.end());
            command.insert(command.end(),
                           {"--out", dir.filePath(QStringLiteral("run-%1").arg(runNumber++)).toStdString()});
            return command;
        };
        std::vector<std::string> torchCommand{"/usr/bin/python3", MOMENTUM_LAB_TORCH_BENCH};
        torchCommand.insert(torchCommand.end(), work.torchArguments.begin(), work.torchArguments.end());
        const bool withTorch = importTorch.status == 0;
        if (runChild(cliCommand(), cliEnvironment).status != 0) {  // untimed warm-up
            std::printf("  momentum-lab-cli train failed; skipped\n");
            continue;
        }
        std::vector<double> cliWall, cliCpu, torchWall, torchCpu, torchLoopCpu, torchLoopWall, ratios;
        std::string torchBlas;
        bool failed = false;
        for (int pair = 0; pair < pairs && !failed; ++pair) {
            ChildRun ours, theirs;
            for (int side = 0; side < 2; ++side) {
                if ((side == 0) == (pair % 2 == 0)) {
                    ours = runChild(cliCommand(), cliEnvironment);
                    if (ours.status != 0) {
                        std::printf("  momentum-lab-cli train failed (exit status %d); skipped\n", ours.status);
                        failed = true;
                        break;
                    }
                } else if (withTorch) {
                    theirs = runChild(torchCommand, torchEnvironmentList);
                    const auto loopCpu = numberAfter(theirs.output, "loop_cpu_seconds");
                    const auto loopWall = numberAfter(theirs.output, "loop_wall_seconds");
                    if (theirs.status != 0 || !loopCpu || !loopWall) {
                        std::printf("  %s failed (exit status %d); skipped\n", MOMENTUM_LAB_TORCH_BENCH, theirs.status);
                        failed = true;
                        break;
                    }
                    torchWall.push_back(theirs.wallSeconds), torchCpu.push_back(theirs.cpuSeconds);
                    torchLoopCpu.push_back(*loopCpu), torchLoopWall.push_back(*loopWall);
                    const std::size_t blasAt = theirs.output.find("blas ");
                    if (blasAt != std::string::npos)
                        torchBlas = theirs.output.substr(blasAt + 5, theirs.output.find('\n', blasAt) - blasAt - 5);
                }
            }
            if (failed) break;
            cliWall.push_back(ours.wallSeconds), cliCpu.push_back(ours.cpuSeconds);
            if (withTorch) ratios.push_back(theirs.wallSeconds / ours.wallSeconds);
        }
        if (failed) continue;
        std::printf("  momentum-lab-cli train, whole process: median %.3f s wall (%.3f-%.3f), %.3f s CPU\n",
                    median(cliWall), lowest(cliWall), highest(cliWall), median(cliCpu));
        if (!withTorch) continue;
        std::printf(
            "  PyTorch, whole process (python3 start, import torch, data, training): median %.3f s wall "
            "(%.3f-%.3f), %.3f s CPU;\n    of which its training loop: %.3f s wall, %.3f s CPU; BLAS: %s\n",
            median(torchWall), lowest(torchWall), highest(torchWall), median(torchCpu), median(torchLoopWall),
            median(torchLoopCpu), torchBlas.empty() ? "unknown" : torchBlas.c_str());
        std::printf(
            "  ratio, PyTorch's wall time over the CLI's, whole processes: median %.1fx of %zu pairs (%.1f-%.1fx)\n",
            median(ratios), ratios.size(), lowest(ratios), highest(ratios));
        checkTarget(std::string("whole process vs PyTorch's whole process (wall, median of pairs): ") + work.shortTitle,
                    median(ratios), true, work.target, "x");
    }
}

}  // namespace

int main(int argc, char** argv) {
    double seconds = 2.0;
    std::string part = "all";
    std::string onlyNetwork, onlyOptimizer;  // training cases: all unless named (for profiling one of them)
    const char* usage =
        "usage: momentum-lab-bench [--seconds S] [--part training|diagnostics|load|write|process|study|conv|all]\n"
        "                          [--network 784-128-10|1-2-2-1] [--optimizer NAME]\n";
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc) return std::fprintf(stderr, "%s", usage), 2;
        if (std::strcmp(argv[i], "--seconds") == 0) seconds = std::atof(argv[i + 1]);
        else if (std::strcmp(argv[i], "--part") == 0) part = argv[i + 1];
        else if (std::strcmp(argv[i], "--network") == 0) onlyNetwork = argv[i + 1];
        else if (std::strcmp(argv[i], "--optimizer") == 0) onlyOptimizer = argv[i + 1];
        else return std::fprintf(stderr, "%s", usage), 2;
    }
    if (!(seconds > 0) || (part != "all" && part != "training" && part != "diagnostics" && part != "load" &&
                           part != "write" && part != "process" && part != "study" && part != "conv"))
        return std::fprintf(stderr, "%s", usage), 2;
    const auto wanted = [&part](const char* name) { return part == "all" || part == name; };
    Eigen::setNbThreads(1);
    std::printf("Eigen %d.%d.%d, SIMD: %s, single thread, %.1f s of CPU time per case\n", EIGEN_WORLD_VERSION,
                EIGEN_MAJOR_VERSION, EIGEN_MINOR_VERSION, Eigen::SimdInstructionSetsInUse(), seconds);
    if (wanted("training")) {
        std::printf("%-34s %-12s %12s %14s %10s\n", "case", "optimizer", "steps/s", "samples/s", "allocs/step");
        const Case cases[] = {
            {"784-128-10 relu cross-entropy b64", "784-128-10", ml::Activation::Relu, ml::LossKind::CrossEntropy, 64},
            {"1-2-2-1 tanh mse b1", "1-2-2-1", ml::Activation::Tanh, ml::LossKind::Mse, 1},
        };
        std::vector<double> bestStepsPerSecond;             // 0 for a case not run
        const ml::OptimizerInfo* fastestOfFirst = nullptr;  // the fastest rule of cases[0]
        for (const Case& c : cases) {
            double best = 0.0;
            if (onlyNetwork.empty() || onlyNetwork == c.network) {
                const ml::DenseDataset data = syntheticData(c, 8192);
                for (const ml::OptimizerInfo& optimizer : ml::optimizerCatalog())
                    if (onlyOptimizer.empty() || onlyOptimizer == optimizer.name) {
                        const double stepsPerSecond = runCase(c, data, optimizer, seconds);
                        if (stepsPerSecond > best && &c == &cases[0]) fastestOfFirst = &optimizer;
                        best = std::max(best, stepsPerSecond);
                    }
            }
            bestStepsPerSecond.push_back(best);
        }
        double peak = 0.0;
        if (fastestOfFirst) {
            const PeakShare share = reportPeakShare(cases[0], syntheticData(cases[0], 8192), *fastestOfFirst, seconds);
            peak = share.peak;
            checkTarget("784-128-10 b64 training loop: share of the SGEMM peak (median of rounds)", share.share, true,
                        75.0, "%");
        } else {
            peak = sgemmPeakGflops(seconds);
            std::printf("\nSGEMM peak (1024 x 1024 float product, one core): %.1f GFLOP/s\n", peak);
        }
        if (bestStepsPerSecond[1] > 0.0) {
            const double gflops = bestStepsPerSecond[1] * productFlopsPerStep(cases[1]) / 1e9;
            std::printf("%-34s fastest optimizer: %.4f GFLOP/s of matrix products = %.3f %% of the peak\n",
                        cases[1].title, gflops, 100.0 * gflops / peak);
            checkTarget("1-2-2-1 b1 training loop (fastest rule)", bestStepsPerSecond[1] / 1e6, true, 5.0, "M steps/s");
        }
        checkTarget("heap allocations per training step (most of any case run)", mostAllocationsPerStep, false, 0.0,
                    "allocs");
        std::printf("\nbatch layout: %s\n", ml::BatchMatrix::IsRowMajor ? "row-major" : "column-major");
        runGather("dense 784 floats b64", syntheticData(cases[0], 8192), 64, seconds);
        runGather("image 28x28 uint8 b64", syntheticImages(8192), 64, seconds);
    }
    if (wanted("diagnostics")) reportDiagnostics(seconds);
    if (wanted("load")) {
        const double idx = idxLoadMegabytesPerSecond(seconds);
        std::printf("\nIDX load (plain file, 60,000 28x28 images, 47 MB): %.0f MB/s\n", idx);
        checkTarget("IDX load, plain file of 60,000 images", idx, true, 500.0, "MB/s");
        reportFashionMnistLoad(5);
    }
    if (wanted("write")) {
        std::printf("\n");
        reportMetricsWriting(seconds);
        reportWeightsWriting(seconds);
    }
    if (wanted("process")) {
        std::printf(
            "\nWhole momentum-lab-cli train process against the whole PyTorch process on the same work "
            "(wall time, spawn to exit; 5 alternating pairs, each side's order swapped every pair; PyTorch on "
            "one thread, OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE removed from its environment):\n");
        reportWholeProcess(std::filesystem::read_symlink("/proc/self/exe").parent_path() / "momentum-lab-cli", 5);
    }
    if (wanted("study")) reportStudySpeed();
    if (wanted("conv")) compareConvWithTorch(seconds);
    printTargetTable();
    std::printf("(GUI targets: QT_QPA_PLATFORM=offscreen momentum-lab-gui-bench --seconds 600)\n");
    return 0;
}
