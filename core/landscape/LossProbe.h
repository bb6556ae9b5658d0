#pragma once
// The training loss at any point of weight space, on a fixed subset of the training data,
// converted once into EvaluationChunks, so that a grid of thousands of points allocates nothing per
// point. A Network copy (its own buffers) evaluates the whole chunks of kChunkSize examples; when
// the subset ends in a shorter chunk, a second copy evaluates that one (one network alternating
// between two batch sizes would re-size its buffers at every point). The loss is the network's
// data loss (Network::evaluate: mean over the examples; no weight-decay term).
#include "data/Dataset.h"
#include "data/EvaluationChunks.h"
#include "nn/Network.h"

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

namespace ml {

// The examples a landscape evaluates by default: the first 1,000 training examples (the whole
// training set when it is smaller). Enough for a smooth surface; a 784-128-10 point costs ~0.2 GFLOP.
inline constexpr long kDefaultLandscapeExamples = 1000;

// The first min(examples, size) samples of `data`, in stored order.
std::shared_ptr<const Dataset> firstExamples(const Dataset& data, long examples);

// Cancel and progress for a long computation on a background thread: `cancel` is polled before
// every point; `progress(done, total)` is called after every point (on the computing thread).
struct LandscapeControl {
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(long done, long total)> progress;
    bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
};

class LossProbe {
public:
    LossProbe(const NetworkSpec& spec, const Dataset& examples);
    Eigen::Index parameterCount() const { return parameterCount_; }
    Eigen::Index exampleCount() const { return exampleCount_; }
    // The loss with the network's weights set to `weights` (flattened, nn/FlatParameters.h).
    float lossAt(const Eigen::VectorXf& weights);

private:
    // The examples that fill whole chunks, and those of the last, shorter chunk (none: empty).
    struct Part {
        Network network;
        EvaluationChunks examples;
    };
    std::vector<Part> parts_;
    Eigen::Index exampleCount_ = 0;
    Eigen::Index parameterCount_ = 0;
};

}  // namespace ml
