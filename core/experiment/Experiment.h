#pragma once
// Everything that defines an experiment: network, data, schedule, seed, and the optimizer runs
// compared in lockstep. The same value is built by the CLI (flags / --config), the GUI (forms,
// presets) and read back from a run folder's config.json (JSON form: experiment/ExperimentJson.h).
#include "data/ValidationSplit.h"
#include "experiment/RecordedLayers.h"
#include "nn/Network.h"
#include "optim/HyperParameters.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ml {

// The largest count (steps, epochs, batch, seed, ...) accepted anywhere: JSON numbers are doubles,
// which hold every whole number up to 2^53 exactly. Checked before any conversion.
inline constexpr long kMaxCount = 1L << 53;

struct RunSpec {
    std::string label;      // unique within the experiment; names the run's output folder
    std::string optimizer;  // a name from OptimizerCatalog
    HyperParameters hp;
};

// Where a fork's runs come from (twin runs): the source run's label and rule, the step whose
// state they continue, and the run folder it was read from (empty: a training in the desktop app).
// Recorded in config.json ("forked-from") for provenance; training reads nothing from it.
struct ForkOrigin {
    std::string run, optimizer;
    long step = 0;
    std::string folder;
    bool valid() const { return step > 0; }
    bool operator==(const ForkOrigin&) const = default;
};

struct Experiment {
    std::string name = "experiment";
    NetworkSpec network;
    std::string data = "toy:sine";
    std::uint64_t seed = 7;
    long batchSize = 0;  // 0 = full batch
    long steps = 0;      // exactly one of steps / epochs is > 0
    long epochs = 0;
    long evalEvery = 0;               // 0 = at each epoch end only (and at the last step)
    Holdout holdout = Holdout::None;  // which part of the data trains and which evaluates (studies)
    // The instruments the experiment asks for (0: none; presets that show them): diagnostics.csv /
    // curvature.csv every N steps in the CLI (its flags override), live in the desktop app.
    long diagnosticsEvery = 0;
    long curvatureEvery = 0;
    bool gradientSnr = true;       // "gradient-snr": false leaves the diagnostics' SNR out (nan; its cost saved)
    bool hessianSpectrum = false;  // "hessian-spectrum": every Hessian eigenvalue at the final weights
    std::string initWeightsFile;   // empty: seeded Glorot initialisation (the caller loads the file)
    std::vector<RunSpec> runs;
    ForkOrigin forkedFrom;   // set for twin runs only
    RecordedModel recorded;  // a recorded PyTorch model's layers (none for the core's own trainings)

    // Throws InputError naming the offending field.
    void validate() const;
};

// The layer matrices a run of `experiment` holds, [out x (fan-in + 1)] each: a recorded model's
// layers where it is shown as blocks, else the network's. checkLayerShapes throws InputError naming
// `source`, the layer and both shapes unless `parameters` have exactly these.
std::vector<std::pair<long, long>> layerMatrixShapes(const Experiment& experiment);
std::vector<Eigen::Index> layerColumnsPerInput(const Experiment& experiment);
void checkLayerShapes(const Experiment& experiment, const Parameters& parameters, const std::string& source);

// The experiment's data (data/DataRegistry.h) with its holdout applied. Throws InputError.
// Loaded, then checked by requireTrainingWithinMemoryBudget with the training split's size.
DataSplit loadExperimentData(const Experiment& experiment);

// The one estimate of what training `experiment` holds in memory: each run's weights, gradients and
// optimizer state, and the activations (and their gradients) of a batch and an evaluation chunk in
// each run's network (NetworkSpec::passBytes); `trainSamples` sizes a full batch (0: not known yet,
// the parameters only). Throws InputError naming what was estimated, its size and the budget.
void requireTrainingWithinMemoryBudget(const Experiment& experiment, long trainSamples);

// Hyper-parameters are read as doubles but training computes in 32-bit floats. The one rule for
// every Real hyper-parameter of `optimizer` (CLI flags, --optimizer items, experiment JSON, the
// app's form): a value whose float is 0 while it is not (1e-46), subnormal (1e-40, digits lost) or
// outside its range (momentum 0.99999999 becomes 1) is refused, naming `context --KEY`, the value,
// what it becomes and what to give instead.
void requireFloat32HyperParameters(const std::string& optimizer, const HyperParameters& hp, const std::string& context);
// The same for one field's value (the CLI checks each flag as it reads it, naming the flag).
void requireFloat32Value(const ParameterField& field, double value, const std::string& context);

// "momentum" -> "momentum"; repeated labels get "-2", "-3", ... so folders never collide.
void makeLabelsUnique(std::vector<RunSpec>& runs);

}  // namespace ml
