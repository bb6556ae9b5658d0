#include "experiment/Experiment.h"

#include "InputError.h"
#include "io/MemoryBudget.h"
#include "data/DataRegistry.h"
#include "optim/OptimizerCatalog.h"
#include "experiment/RunLabels.h"

#include <map>

namespace ml {

void Experiment::validate() const {
    if (network.layers.empty()) throw InputError("network: needs at least an input and an output size");
    if ((steps > 0) == (epochs > 0))
        throw InputError("steps/epochs: give exactly one of --steps N or --epochs N (N > 0)");
    const std::pair<const char*, long> counts[] = {{"steps", steps},
                                                   {"epochs", epochs},
                                                   {"batch", batchSize},
                                                   {"eval-every", evalEvery},
                                                   {"diagnostics-every", diagnosticsEvery},
                                                   {"curvature-every", curvatureEvery}};
    for (const auto& [field, value] : counts)
        if (value > kMaxCount)
            throw InputError(std::string(field) + ": " + std::to_string(value) + " is too large; expected at most " +
                             std::to_string(kMaxCount));
    if (batchSize < 0) throw InputError("batch: expected 0 (full batch) or a positive batch size");
    if (evalEvery < 0) throw InputError("eval-every: expected a whole number >= 0");
    if (runs.empty()) throw InputError("optimizer: no optimizer runs; give --optimizer NAME[,NAME...]");
    std::vector<std::string> labels;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        validateHyperParameters(runs[i].optimizer, runs[i].hp, "runs[" + std::to_string(i) + "]");
        labels.push_back(runs[i].label);
    }
    checkRunFileNames(labels);  // labels name the run folders: no paths, no collisions
    // Before any matrix exists: each run holds weights, gradients and up to three optimizer
    // matrices (moments, update); the trainer keeps the initial weights and builds one network more.
    const std::uint64_t matrices = 5 * runs.size() + 2;
    requireWithinMemoryBudget(
        saturatingProduct(saturatingProduct(network.parameterCount(), sizeof(Matrix::Scalar)), matrices),
        "network " + network.text() + " (" + std::to_string(network.parameterCount()) +
            " parameters; weights, gradients and optimizer state of " + std::to_string(runs.size()) +
            (runs.size() == 1 ? " run)" : " runs)"));
}

DataSplit loadExperimentData(const Experiment& experiment) {
    return applyHoldout(loadDataSplit(experiment.data, experiment.seed), experiment.holdout);
}

void makeLabelsUnique(std::vector<RunSpec>& runs) {
    std::map<std::string, int> seen;
    for (RunSpec& run : runs) {
        const int count = ++seen[run.label];
        if (count > 1) run.label += "-" + std::to_string(count);
    }
}

}  // namespace ml
