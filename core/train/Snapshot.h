#pragma once
// What the trainer hands to observers. Plain value types: observers may copy them to another
// thread and keep them as long as they like.
#include "nn/Network.h"
#include "optim/HyperParameters.h"
#include "train/RunStatus.h"

#include <cmath>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ml {

// One row of metrics.csv: the batch loss before this step's update, and the evaluation after it
// where one was made (NaN where not).
struct StepMetrics {
    int run = 0;
    long step = 0;  // 1-based
    int epoch = 0;  // 1-based epoch the step belongs to
    float trainLoss = NAN;
    float testLoss = NAN;
    float testAccuracy = NAN;
    float fullTrainLoss = NAN;  // loss over the whole training set, at evaluations
    double wallMs = 0.0;        // this run's own training time so far (evaluation excluded)
    bool evaluated() const { return !std::isnan(testLoss); }
};

// One layer's matrices. All are [out x (in + 1)] with the bias in the last column; a quantity
// the optimizer does not keep is an empty matrix.
struct LayerSnapshot {
    Matrix parameters;
    Matrix gradient;
    Matrix firstMoment;                // momentum / accumulation / m
    Matrix secondMoment;               // v, or the sum of squares
    Matrix update;                     // w_after - w_before
    Vector neuronMeans;                // group means of the first moment (see MomentumAggregation::neuronMeans)
    Eigen::Index columnsPerInput = 1;  // weight columns per input: 1 dense, k*k for a convolution
    // The rule's other state buffers, by their names in optim/Optimizer.h's forEachStateBuffer
    // (amsgrad's max_second_moment, centered rmsprop's centred_mean, nero's row_second_moment and
    // tensor_scales, ...): those the rule keeps, a vector as one column. The update explainer reads them.
    std::vector<std::pair<std::string, Matrix>> ruleState;

    // The named rule-state buffer, or null when the rule keeps none.
    const Matrix* ruleStateBuffer(std::string_view name) const {
        for (const auto& [key, buffer] : ruleState)
            if (key == name) return &buffer;
        return nullptr;
    }
    // Floats held (memory budgets).
    std::size_t floatCount() const {
        std::size_t count = std::size_t(parameters.size() + gradient.size() + firstMoment.size() + secondMoment.size() +
                                        update.size() + neuronMeans.size());
        for (const auto& entry : ruleState) count += std::size_t(entry.second.size());
        return count;
    }
};

struct Snapshot {
    int run = 0;
    std::string label;
    long step = 0;
    int epoch = 0;
    float batchLoss = NAN;
    MeanScope scope = MeanScope::None;  // how neuronMeans were grouped (the run's --momentum-mean)
    BiasMode bias = BiasMode::Own;
    // Read from a run folder that kept only the final weights (no snapshots.bin): an empty
    // quantity was not saved there, rather than not kept by the optimizer.
    bool weightsOnly = false;
    MeanStatistic statistic = MeanStatistic::Mean;                  // the run's --momentum-mean-stat
    SecondMomentScope secondMomentScope = SecondMomentScope::None;  // --second-moment-mean (adam-mini: fan-in)
    std::vector<LayerSnapshot> layers;
    // The run's parameters before step 1, shared by every snapshot of a training (never copied):
    // "weight minus initial weight" needs them. Null where unknown.
    std::shared_ptr<const Parameters> initialParameters;
};

// Snapshots are built once by the trainer and then only read (by another thread, by every view):
// they travel as shared immutable values instead of copies (one MNIST snapshot is about 1.6 MB).
using SharedSnapshot = std::shared_ptr<const Snapshot>;

struct RunResult {
    std::string label;
    RunStatus status = RunStatus::Pending;
    long steps = 0;              // updates applied
    long divergedAtStep = 0;     // when status == Diverged
    float finalTrainLoss = NAN;  // whole training set, at the last evaluation
    float finalTestLoss = NAN;
    float finalTestAccuracy = NAN;
    double wallMs = 0.0;
    std::string statusText() const;  // "done", "stopped", "diverged at step 12", ...
};

}  // namespace ml
