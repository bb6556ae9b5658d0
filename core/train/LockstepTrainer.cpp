#include "train/LockstepTrainer.h"

#include "InputError.h"
#include "optim/OptimizerCatalog.h"
#include "experiment/ExperimentJson.h"

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
    std::shared_ptr<const Parameters> initial;  // what it started from: the shared weights, constrained by its rule
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
                         std::to_string(train.inputDim()) + " inputs and " + std::to_string(train.outputDim()) + what +
                         "; the network must start with " + std::to_string(train.inputDim()) + " and end with " +
                         std::to_string(train.outputDim()));
    if (net.loss == LossKind::CrossEntropy && !train.isClassification())
        throw InputError("--loss cross-entropy: data set " + experiment.data + " is a regression task; use --loss mse");
    if (train.size() == 0) throw InputError("--data " + experiment.data + ": the training split is empty");
}

}  // namespace

LockstepTrainer::LockstepTrainer(Experiment experiment, DataSplit data, std::optional<InitialWeights> initialWeights)
    : experiment_(std::move(experiment)), data_(std::move(data)), shuffle_(experiment_.seed ^ kShuffleStream) {
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
        run->optimizer = createOptimizer(spec.optimizer, spec.hp);
        // The rule's constraint on its start (nero's projected rows) holds before the first forward pass.
        Parameters start = initialParameters_;
        run->initial = run->optimizer->constrainInitialParameters(start)
                           ? std::make_shared<const Parameters>(std::move(start))
                           : sharedInitialParameters_;
        run->network.setParameters(*run->initial, "initial weights");
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
        throw InputError("epochs: " + std::to_string(experiment_.epochs) + " epochs of " +
                         std::to_string(stepsPerEpoch_) + " steps exceed the largest step count, " +
                         std::to_string(kMaxCount));
    totalSteps_ = experiment_.steps > 0 ? experiment_.steps : experiment_.epochs * stepsPerEpoch_;
    if ((totalSteps_ - 1) / stepsPerEpoch_ + 1 > std::numeric_limits<int>::max())
        throw InputError("steps: " + std::to_string(totalSteps_) + " steps of " + std::to_string(stepsPerEpoch_) +
                         " per epoch exceed the largest epoch number, " +
                         std::to_string(std::numeric_limits<int>::max()));
    order_.resize(n);
    std::iota(order_.begin(), order_.end(), Eigen::Index{0});
}

LockstepTrainer::~LockstepTrainer() = default;

const Parameters& LockstepTrainer::initialParameters(int run) const { return *runs_.at(run)->initial; }
const Parameters& LockstepTrainer::parameters(int run) const { return runs_.at(run)->network.parameters(); }
const Optimizer& LockstepTrainer::optimizer(int run) const { return *runs_.at(run)->optimizer; }
const RunResult& LockstepTrainer::result(int run) const { return runs_.at(run)->result; }

TrainingState LockstepTrainer::trainingState(int index) const {
    const Run& run = *runs_.at(index);
    const NetworkSpec& network = experiment_.network;
    TrainingState state;
    state.network = network.text();
    state.activation = toString(network.activation);
    state.loss = toString(network.loss);
    state.data = experiment_.data;
    state.seed = experiment_.seed;
    state.batchSize = batchSize_;
    state.trainSamples = static_cast<long>(order_.size());
    state.step = step_;
    state.epoch = step_ > 0 ? static_cast<int>((step_ - 1) / stepsPerEpoch_ + 1) : 1;
    state.dataOrder = order_;
    state.shuffleState = shuffle_.state();
    state.label = run.spec.label;
    state.optimizer = run.spec.optimizer;
    state.hyperParameters = toJson(run.spec);
    state.optimizerSteps = run.optimizer->stepCount();
    state.wallMs = run.result.wallMs;
    state.parameters = run.network.parameters();
    for (std::size_t l = 0; l < run.optimizer->layerCount(); ++l) {
        std::map<std::string, Matrix>& buffers = state.optimizerBuffers.emplace_back();
        forEachStateBuffer(run.optimizer->layerState(l), [&](const char* name, const auto& buffer) {
            if (buffer.size() > 0) buffers[name] = buffer;
        });
    }
    return state;
}

namespace {

// The buffers of `file` into the freshly allocated `states`: each buffer the rule keeps must be
// there with its shape, and no other.
void restoreOptimizerState(const TrainingState& file, std::vector<LayerState>& states) {
    const std::string source = file.source.toStdString();
    if (file.optimizerBuffers.size() != states.size())
        throw InputError(source + ": layers: the " + file.optimizer + " state has " +
                         std::to_string(file.optimizerBuffers.size()) + " layers; expected " +
                         std::to_string(states.size()));
    for (std::size_t l = 0; l < states.size(); ++l) {
        const std::map<std::string, Matrix>& saved = file.optimizerBuffers[l];
        std::size_t used = 0;
        forEachStateBuffer(states[l], [&](const char* name, auto& buffer) {
            const std::string field = source + ": layers[" + std::to_string(l) + "]." + name;
            const auto found = saved.find(name);
            if (buffer.size() == 0) {
                if (found != saved.end())
                    throw InputError(field + ": " + file.optimizer +
                                     " with this run's settings keeps no such buffer (were other settings saved?)");
                return;
            }
            if (found == saved.end())
                throw InputError(field + ": missing; " + file.optimizer + " with this run's settings keeps it");
            if (found->second.rows() != buffer.rows() || found->second.cols() != buffer.cols())
                throw InputError(field + ": is " + std::to_string(found->second.rows()) + " x " +
                                 std::to_string(found->second.cols()) + "; expected " + std::to_string(buffer.rows()) +
                                 " x " + std::to_string(buffer.cols()));
            buffer = found->second;
            ++used;
        });
        if (used != saved.size())  // names are checked on reading; a leftover is one the rule does not keep
            throw InputError(source + ": layers[" + std::to_string(l) + "]: holds buffers " + file.optimizer +
                             " does not keep");
    }
}

}  // namespace

void LockstepTrainer::resumeFrom(const TrainingState& state, const std::vector<bool>& continueOptimizer) {
    const std::string source = state.source.toStdString();
    auto mismatch = [&](const std::string& field, const std::string& saved, const std::string& here) {
        if (saved != here)
            throw InputError(source + ": " + field + ": the state was saved with " + saved + "; this experiment has " +
                             here);
    };
    const NetworkSpec& network = experiment_.network;
    mismatch("network", state.network, network.text());
    mismatch("activation", state.activation, toString(network.activation));
    mismatch("loss", state.loss, toString(network.loss));
    mismatch("data", state.data, experiment_.data);
    mismatch("seed", std::to_string(state.seed), std::to_string(experiment_.seed));
    mismatch("batch", std::to_string(state.batchSize), std::to_string(batchSize_));
    mismatch("train_samples", std::to_string(state.trainSamples), std::to_string(order_.size()));
    if (state.step >= totalSteps_)
        throw InputError(source + ": step: " + std::to_string(state.step) + "; the experiment ends at step " +
                         std::to_string(totalSteps_) + ", nothing would be left to train (give more --steps)");
    mismatch("epoch", std::to_string(state.epoch), std::to_string((state.step - 1) / stepsPerEpoch_ + 1));
    // A permutation of the samples, else a corrupt file would index outside the data.
    std::vector<bool> seen(order_.size(), false);
    if (state.dataOrder.size() != order_.size())
        throw InputError(source + ": data_order: has " + std::to_string(state.dataOrder.size()) +
                         " indices; expected " + std::to_string(order_.size()));
    for (std::size_t i = 0; i < state.dataOrder.size(); ++i) {
        const Eigen::Index index = state.dataOrder[i];
        if (index >= static_cast<Eigen::Index>(seen.size()) || seen[index])
            throw InputError(source + ": data_order[" + std::to_string(i) + "]: " + std::to_string(index) +
                             " is not a permutation of the " + std::to_string(order_.size()) + " samples");
        seen[index] = true;
    }
    Random shuffle(0);
    if (!shuffle.setState(state.shuffleState))
        throw InputError(source + ": shuffle_state: not a state of the shuffling stream (mt19937_64)");
    if (state.parameters.size() != initialParameters_.size())
        throw InputError(source + ": layers: has " + std::to_string(state.parameters.size()) + "; network " +
                         network.text() + " has " + std::to_string(initialParameters_.size()) + " with parameters");
    for (std::size_t l = 0; l < initialParameters_.size(); ++l) {
        const Matrix& saved = state.parameters[l];
        if (saved.rows() != initialParameters_[l].rows() || saved.cols() != initialParameters_[l].cols())
            throw InputError(source + ": layers[" + std::to_string(l) + "].parameters: is " +
                             std::to_string(saved.rows()) + " x " + std::to_string(saved.cols()) + "; network " +
                             network.text() + " has " + std::to_string(initialParameters_[l].rows()) + " x " +
                             std::to_string(initialParameters_[l].cols()) + " (outputs x inputs + bias)");
    }
    if (continueOptimizer.size() != runs_.size())
        throw std::invalid_argument("LockstepTrainer::resumeFrom: one continueOptimizer flag per run");
    for (std::size_t i = 0; i < runs_.size(); ++i)
        if (continueOptimizer[i] && runs_[i]->spec.optimizer != state.optimizer)
            throw InputError(source + ": optimizer: the state holds " + state.optimizer + "'s state; run " +
                             runs_[i]->spec.label + " is " + runs_[i]->spec.optimizer + " (it can only start fresh)");
    for (std::size_t i = 0; i < runs_.size(); ++i) {
        Run& run = *runs_[i];
        run.network.setParameters(state.parameters, source);
        if (continueOptimizer[i]) {
            restoreOptimizerState(state, run.optimizer->restoreState(state.parameters, state.optimizerSteps));
        } else {
            // A fresh rule's constraint holds from its first step; saved weights that already satisfy
            // it (a nero run's) stay exactly as saved.
            Parameters start = state.parameters;
            if (run.optimizer->constrainInitialParameters(start)) run.network.setParameters(start, source);
        }
        run.result.steps = state.step;
        run.result.wallMs = state.wallMs;
    }
    order_ = state.dataOrder;
    shuffle_ = shuffle;
    step_ = state.step;
}

void LockstepTrainer::shareEvaluationChunks(std::shared_ptr<const EvaluationChunks> train,
                                            std::shared_ptr<const EvaluationChunks> test) {
    trainChunks_ = std::move(train);
    testChunks_ = std::move(test);
}

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
    if (!trainChunks_) trainChunks_ = std::make_shared<const EvaluationChunks>(*data_.train);
    const Evaluation train = run.network.evaluate(*trainChunks_);
    metrics.fullTrainLoss = train.loss;
    run.result.finalTrainLoss = train.loss;
    if (data_.test && data_.test->size() > 0) {
        if (!testChunks_) testChunks_ = std::make_shared<const EvaluationChunks>(*data_.test);
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

    // Asked before the step (the observers' schedules depend on the step number only), so that the
    // optimizer collects the diagnostics' sums in its own pass over the update.
    bool stateWanted = false;
    for (TrainingObserver* observer : observers_) stateWanted = observer->wantsStepState(index, step_) || stateWanted;
    if (stateWanted) run.optimizer->collectStepSums(*run.initial);
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
    for (TrainingObserver* observer : observers_)
        snapshotWanted = observer->wantsSnapshot(index, step_) || snapshotWanted;
    if (snapshotWanted) {
        const SharedSnapshot snapshot = std::make_shared<const Snapshot>(takeSnapshot(index, run, metrics.trainLoss));
        for (TrainingObserver* observer : observers_) observer->snapshotTaken(snapshot);
    }
    if (stateWanted) {
        const StepState state{
            index,         step_,          run.spec,     experiment_.network, run.network.parameters(),
            run.gradients, *run.optimizer, *run.initial, run.network};
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
    snapshot.initialParameters = run.initial;
    const MomentumAggregation& aggregation = run.optimizer->aggregation();
    snapshot.scope = aggregation.scope();
    snapshot.bias = aggregation.bias();
    snapshot.statistic = aggregation.statistic();
    snapshot.secondMomentScope = run.optimizer->secondMomentSharing().scope();
    const Parameters& parameters = run.network.parameters();
    for (std::size_t l = 0; l < parameters.size(); ++l) {
        const LayerState& state = run.optimizer->layerState(l);
        LayerSnapshot layer{parameters[l],         run.gradients[l],
                            state.firstMoment,     state.secondMoment,
                            state.update,          {},
                            state.columnsPerInput, {}};
        if (layer.firstMoment.size() > 0)
            aggregation.neuronMeans(layer.firstMoment, layer.neuronMeans, layer.columnsPerInput);
        // Every other buffer the rule carries from step to step (the list training-state files use).
        forEachStateBuffer(state, [&layer](const char* name, const auto& buffer) {
            const std::string_view key(name);
            if (buffer.size() == 0 || key == "first_moment" || key == "second_moment" || key == "update") return;
            layer.ruleState.emplace_back(key, Matrix(buffer));
        });
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
