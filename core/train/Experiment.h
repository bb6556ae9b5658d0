#pragma once
// Everything that defines an experiment: network, data, schedule, seed, and the optimizer runs
// compared in lockstep. The same value is built by the CLI (flags / --config), the GUI (forms,
// presets) and read back from a run folder's config.json.
#include "nn/Network.h"
#include "optim/HyperParameters.h"

#include <QJsonObject>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ml {

struct RunSpec {
    std::string label;      // unique within the experiment; names the run's output folder
    std::string optimizer;  // a name from OptimizerCatalog
    HyperParameters hp;
};

struct Experiment {
    std::string name = "experiment";
    NetworkSpec network;
    std::string data = "toy:sine";
    std::uint64_t seed = 7;
    long batchSize = 0;   // 0 = full batch
    long steps = 0;       // exactly one of steps / epochs is > 0
    long epochs = 0;
    long evalEvery = 0;   // 0 = at each epoch end only (and at the last step)
    std::string initWeightsFile;  // empty: seeded Glorot initialisation
    std::vector<RunSpec> runs;

    // Throws InputError naming the offending field.
    void validate() const;
};

// JSON form (the experiment file and a run folder's config.json). fromJson checks every field
// and names it in its error messages ("EXP.json: runs[1].lr: ..."); unknown keys are refused.
QJsonObject toJson(const Experiment& experiment);
Experiment experimentFromJson(const QJsonObject& json, const std::string& source);
Experiment loadExperiment(const std::string& path);  // throws InputError
// The runs' hyper-parameters as JSON: only the keys each optimizer reads.
QJsonObject toJson(const RunSpec& run);

// "momentum" -> "momentum"; repeated labels get "-2", "-3", ... so folders never collide.
void makeLabelsUnique(std::vector<RunSpec>& runs);

// The seed presets shared by the GUI and the CLI (--preset): name, experiment.
struct Preset {
    std::string title;
    Experiment experiment;
};
const std::vector<Preset>& presets();

}  // namespace ml
