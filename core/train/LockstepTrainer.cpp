#include "train/LockstepTrainer.h"

#include "InputError.h"
#include "optim/OptimizerCatalog.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace ml {

struct LockstepTrainer::Run {
    Run(const RunSpec& spec, const NetworkSpec& networkSpec) : spec(spec), network(networkSpec) {}
    RunSpec spec;
    Network network;
    std::unique_ptr<Optimizer> optimizer;
    Parameters gradients;
    RunResult result;
    float lastBatchLoss = NAN;
};

namespace {

// The shuffling stream must not coincide with the initialisation stream of the same seed.
constexpr std::uint64_t kShuffleStream = 0x9E3779B97F4A7C15ull;

void checkDataFits(const Experiment& experiment, const Dataset& train) {
    const NetworkSpec& net = experiment.network;
    const std::string what = train.isClassification() ? " classes" : " outputs";
    const ImageShape image = train.imageShape();
    // An image network reads image data as 1 x H x W (the pixels are stored row by row).
    if (net.imageInput && image.valid() && !(net.input == SampleShape{1, image.height, image.width}))
        throw InputError("--network " + net.text() + ": data set " + experiment.data + " has 1x" +
                         std::to_string(image.height) + "x" + std::to_string(image.width) +
                         " images; the network must start with that shape, not " + net.input.text());
    if (net.inputs() != train.inputDim() || net.outputs() != train.outputDim())
        throw InputError("--network " + net.text() + ": data set " + experiment.data + " has " +
                         std::to_string(train.inputDim()) + " inputs and " + std::to_string(train.outputDim()) +
                         what + "; the network must start with " + std::to_string(train.inputDim()) +
                         " and end with " + std::to_string(train.outputDim()));
    if (net.loss == LossKind::CrossEntropy && !train.isClassification())
        throw InputError("--loss cross-entropy: data set " + experiment.data +
                         " is a regression task; use --loss mse");
    if (train.size() == 0) throw InputError("--data " + experiment.data + ": the training split is empty");
}

}  // namespace

LockstepTrainer::LockstepTrainer(Experiment experiment, DataSplit data, std::optional<InitialWeights> initialWeights)
    : experiment_(std::move(experiment)), data_(std::move(data)),
      shuffle_(experiment_.seed ^ kShuffleStream) {
    experiment_.validate();
    checkDataFits(experiment_, *data_.train);
    // A caller that forgot to load "init" would silently train from other weights.
    if (!experiment_.initWeightsFile.empty() && !initialWeights)
        throw std::invalid_argument("LockstepTrainer: the experiment names initial weights (" +
                                    experiment_.initWeightsFile + ") but none were given");

    Network initial(experiment_.network);
    if (!initialWeights) initial.initializeGlorotUniform(experiment_.seed);
    else initial.setParameters(initialWeights->parameters, initialWeights->source);
    initialParameters_ = initial.parameters();
    sharedInitialParameters_ = std::make_shared<const Parameters>(initialParameters_);

    for (const RunSpec& spec : experiment_.runs) {
        auto run = std::make_unique<Run>(spec, experiment_.network);
        run->network.setParameters(initialParameters_, "initial weights");
        run->optimizer = createOptimizer(spec.optimizer, spec.hp);
        run->optimizer->setColumnsPerInput(run->network.columnsPerInput());
        run->gradients = zerosLike(initialParameters_);
        run->result.label = spec.label;
        runs_.push_back(std::move(run));
    }

    const long n = static_cast<long>(data_.train->size());
    batchSize_ = experiment_.batchSize == 0 ? n : std::min(experiment_.batchSize, n);
    stepsPerEpoch_ = (n + batchSize_ - 1) / batchSize_;
    // Range first: epochs * stepsPerEpoch may overflow, and the epoch number is an int.
    if (experiment_.epochs > kMaxCount / stepsPerEpoch_)
        throw InputError("epochs: " + std::to_string(experiment_.epochs) + " epochs of " + std::to_string(stepsPerEpoch_) +
                         " steps exceed the largest step count, " + std::to_string(kMaxCount));
    totalSteps_ = experiment_.steps > 0 ? experiment_.steps : experiment_.epochs * stepsPerEpoch_;
    if ((totalSteps_ - 1) / stepsPerEpoch_ + 1 > std::numeric_limits<int>::max())
        throw InputError("steps: " + std::to_string(totalSteps_) + " steps of " + std::to_string(stepsPerEpoch_) +
                         " per epoch exceed the largest epoch number, " +
                         std::to_string(std::numeric_limits<int>::max()));
    order_.resize(n);
    std::iota(order_.begin(), order_.end(), Eigen::Index{0});
}

LockstepTrainer::~LockstepTrainer() = default;

const Parameters& LockstepTrainer::parameters(int run) const { return runs_.at(run)->network.parameters(); }
const Optimizer& LockstepTrainer::optimizer(int run) const { return *runs_.at(run)->optimizer; }
const RunResult& LockstepTrainer::result(int run) const { return runs_.at(run)->result; }

bool LockstepTrainer::anyRunning() const {
    return std::any_of(runs_.begin(), runs_.end(), [](const auto& run) {
        return run->result.status == RunStatus::Pending || run->result.status == RunStatus::Running;
    });
}

void LockstepTrainer::nextBatch() {
    // step_ is 1-based: step 1 starts epoch 1 (so the first epoch is shuffled too, and every epoch
    // visits each sample once).
    const long positionInEpoch = (step_ - 1) % stepsPerEpoch_;
    // Full batches need no shuffling; mini-batches get a fresh seeded order every epoch.
    if (positionInEpoch == 0 && batchSize_ < static_cast<long>(order_.size()))
        shuffle_.shuffle(std::span<Eigen::Index>(order_));
    const long begin = positionInEpoch * batchSize_;
    const long end = std::min<long>(begin + batchSize_, static_cast<long>(order_.size()));
    data_.train->gather(std::span<const Eigen::Index>(order_.data() + begin, end - begin), batch_);
}

bool LockstepTrainer::evaluationDue() const {
    const bool epochEnd = step_ % stepsPerEpoch_ == 0;
    const bool periodic = experiment_.evalEvery > 0 && step_ % experiment_.evalEvery == 0;
    return epochEnd || periodic || step_ == totalSteps_;
}

void LockstepTrainer::evaluate(Run& run, StepMetrics& metrics) {
    // Converted at the first evaluation (the constructor stays cheap), then shared by every run.
    if (!trainChunks_) trainChunks_.emplace(*data_.train);
    const Evaluation train = run.network.evaluate(*trainChunks_);
    metrics.fullTrainLoss = train.loss;
    run.result.finalTrainLoss = train.loss;
    if (data_.test && data_.test->size() > 0) {
        if (!testChunks_) testChunks_.emplace(*data_.test);
        const Evaluation test = run.network.evaluate(*testChunks_);
        metrics.testLoss = test.loss;
        metrics.testAccuracy = test.accuracy;
        run.result.finalTestLoss = test.loss;
        run.result.finalTestAccuracy = test.accuracy;
    }
}

void LockstepTrainer::stepRun(int index, Run& run) {
    using Clock = std::chrono::steady_clock;
    StepMetrics metrics;
    metrics.run = index;
    metrics.step = step_;
    metrics.epoch = static_cast<int>((step_ - 1) / stepsPerEpoch_ + 1);

    const auto start = Clock::now();
    metrics.trainLoss = run.network.computeGradients(batch_, run.gradients);
    // A non-finite loss, or an update the optimizer refuses as non-finite, is divergence at this
    // step; either way the weights stay those of the previous step.
    const bool stepped =
        std::isfinite(metrics.trainLoss) && run.optimizer->step(run.network.parameters(), run.gradients);
    run.result.wallMs += std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    metrics.wallMs = run.result.wallMs;
    run.result.status = RunStatus::Running;

    if (!stepped) {
        run.result.divergedAtStep = step_;
        run.result.steps = step_.load() - 1;
        for (TrainingObserver* observer : observers_) observer->stepFinished(metrics);
        finish(index, run, RunStatus::Diverged);
        return;
    }
    run.result.steps = step_;
    if (evaluationDue()) evaluate(run, metrics);
    for (TrainingObserver* observer : observers_) observer->stepFinished(metrics);

    bool snapshotWanted = false;
    for (TrainingObserver* observer : observers_) snapshotWanted = observer->wantsSnapshot(index, step_) || snapshotWanted;
    if (snapshotWanted) {
        const SharedSnapshot snapshot = std::make_shared<const Snapshot>(takeSnapshot(index, run, metrics.trainLoss));
        for (TrainingObserver* observer : observers_) observer->snapshotTaken(snapshot);
    }
    bool stateWanted = false;
    for (TrainingObserver* observer : observers_) stateWanted = observer->wantsStepState(index, step_) || stateWanted;
    if (stateWanted) {
        const StepState state{index, step_, run.spec, experiment_.network, run.network.parameters(), run.gradients,
                              *run.optimizer, initialParameters_};
        for (TrainingObserver* observer : observers_) observer->stepStateReady(state);
    }
    if (step_ == totalSteps_) finish(index, run, RunStatus::Done);
}

Snapshot LockstepTrainer::takeSnapshot(int index, const Run& run, float batchLoss) const {
    Snapshot snapshot;
    snapshot.run = index;
    snapshot.label = run.spec.label;
    snapshot.step = step_;
    snapshot.epoch = static_cast<int>((step_ - 1) / stepsPerEpoch_ + 1);
    snapshot.batchLoss = batchLoss;
    snapshot.initialParameters = sharedInitialParameters_;
    const MomentumAggregation& aggregation = run.optimizer->aggregation();
    snapshot.scope = aggregation.scope();
    snapshot.bias = aggregation.bias();
    snapshot.statistic = aggregation.statistic();
    snapshot.secondMomentScope = run.optimizer->secondMomentSharing().scope();
    const Parameters& parameters = run.network.parameters();
    for (std::size_t l = 0; l < parameters.size(); ++l) {
        const LayerState& state = run.optimizer->layerState(l);
        LayerSnapshot layer{parameters[l], run.gradients[l], state.firstMoment, state.secondMoment, state.update, {},
                            state.columnsPerInput};
        if (layer.firstMoment.size() > 0)
            aggregation.neuronMeans(layer.firstMoment, layer.neuronMeans, layer.columnsPerInput);
        snapshot.layers.push_back(std::move(layer));
    }
    return snapshot;
}

void LockstepTrainer::finish(int index, Run& run, RunStatus status) {
    run.result.status = status;
    for (TrainingObserver* observer : observers_) observer->runFinished(index, run.result);
}

void LockstepTrainer::run(RunControl& control) {
    while (step_ < totalSteps_ && anyRunning()) {
        if (!control.waitForNextStep()) break;
        ++step_;
        nextBatch();
        for (int i = 0; i < runCount(); ++i) {
            Run& run = *runs_[i];
            if (run.result.status == RunStatus::Pending || run.result.status == RunStatus::Running) stepRun(i, run);
        }
    }
    for (int i = 0; i < runCount(); ++i) {
        Run& run = *runs_[i];
        if (run.result.status == RunStatus::Pending || run.result.status == RunStatus::Running) {
            // Stopped early: make the final figures describe the weights we stop with.
            if (run.result.steps > 0 && std::isnan(run.result.finalTrainLoss)) {
                StepMetrics ignored;
                evaluate(run, ignored);
            }
            finish(i, run, RunStatus::Stopped);
        }
    }
}

}  // namespace ml
