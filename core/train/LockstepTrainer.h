#pragma once
// Trains one or more optimizer runs in lockstep: identical initial weights, identical batch
// order, one step of every run before the next step. A run that diverges stops alone.
#include "Random.h"
#include "data/Dataset.h"
#include "data/EvaluationChunks.h"
#include "optim/Optimizer.h"
#include "experiment/Experiment.h"
#include "experiment/InitialWeights.h"
#include "train/RunControl.h"
#include "train/TrainingState.h"
#include "train/TrainingObserver.h"

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

namespace ml {

class LockstepTrainer {
public:
    // Checks the experiment against the data (sizes, loss), builds the networks and optimizers.
    // Starts from `initialWeights` (checked against the network) or else from the seeded Glorot
    // initialisation; an experiment with an "init" file needs its weights (loadInitialWeights).
    // Throws InputError naming the field.
    LockstepTrainer(Experiment experiment, DataSplit data, std::optional<InitialWeights> initialWeights = std::nullopt);
    ~LockstepTrainer();

    void addObserver(TrainingObserver* observer) { observers_.push_back(observer); }

    // Continues from a saved state (train/TrainingState.h) instead of step 0; call before run().
    // Every run starts from the state's weights; the data order and the shuffling stream continue
    // and step numbers continue from state.step. Run i takes over the saved optimizer state when
    // continueOptimizer[i] (it must be the same rule: the continuation is then bit-identical to
    // never having stopped), else its optimizer starts fresh (zero buffers, step count 0).
    // Throws InputError naming the file and the field when the state does not fit the experiment
    // (after which the trainer is not to be run).
    void resumeFrom(const TrainingState& state, const std::vector<bool>& continueOptimizer);
    // Run `run` as it stands after the last step, for a training-state file.
    TrainingState trainingState(int run) const;

    // Trains until every run has finished or the control asks to stop.
    void run(RunControl& control);

    const Experiment& experiment() const { return experiment_; }
    // Evaluates on `train` and `test` (the data's halves, converted by whoever loaded them and
    // shared with other trainers: the study runner's trials) instead of converting its own. Before run().
    void shareEvaluationChunks(std::shared_ptr<const EvaluationChunks> train,
                               std::shared_ptr<const EvaluationChunks> test);
    const DataSplit& data() const { return data_; }
    int runCount() const { return static_cast<int>(runs_.size()); }
    long totalSteps() const { return totalSteps_; }
    long stepsPerEpoch() const { return stepsPerEpoch_; }
    // Safe to read from another thread (e.g. for a progress display).
    long stepsDone() const { return step_.load(std::memory_order_relaxed); }
    // The weights every run starts from (the seeded initialisation or the given ones)...
    const Parameters& initialParameters() const { return initialParameters_; }
    // ...and what run `run` starts from: the same, constrained by its rule (nero's projected rows).
    const Parameters& initialParameters(int run) const;
    const Parameters& parameters(int run) const;
    const Optimizer& optimizer(int run) const;
    const RunResult& result(int run) const;

private:
    struct Run;
    bool anyRunning() const;
    void nextBatch();
    void stepRun(int index, Run& run);
    void evaluate(Run& run, StepMetrics& metrics);
    bool evaluationDue() const;
    Snapshot takeSnapshot(int index, const Run& run, float batchLoss) const;
    void finish(int index, Run& run, RunStatus status);

    Experiment experiment_;
    DataSplit data_;
    std::vector<std::unique_ptr<Run>> runs_;
    std::vector<TrainingObserver*> observers_;
    Parameters initialParameters_;
    std::shared_ptr<const Parameters> sharedInitialParameters_;  // the runs' starts share it where equal
    long batchSize_ = 0;
    long stepsPerEpoch_ = 0;
    long totalSteps_ = 0;
    std::atomic<long> step_{0};
    std::vector<Eigen::Index> order_;
    Batch batch_;
    std::shared_ptr<const EvaluationChunks> trainChunks_;  // the evaluation data, converted once
    std::shared_ptr<const EvaluationChunks> testChunks_;
    Random shuffle_{0};
};

}  // namespace ml
