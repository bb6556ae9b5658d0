#include "train/Fork.h"

#include "InputError.h"

namespace ml {

std::string forkLabel(const std::string& source, long step, const std::string& branch) {
    return source + "@" + std::to_string(step) + "\u2192" + branch;
}

Experiment forkExperiment(const Experiment& source, const TrainingState& state, std::vector<RunSpec> branches,
                          long untilStep, const std::string& folder) {
    if (untilStep <= state.step)
        throw InputError("fork: train until step " + std::to_string(untilStep) + ": expected a step after " +
                         std::to_string(state.step) + ", the step it continues from");
    if (branches.empty()) throw InputError("fork: expected at least one branch");
    Experiment fork = source;
    fork.steps = untilStep;
    fork.epochs = 0;
    fork.initWeightsFile.clear();  // the weights come from the state
    for (RunSpec& branch : branches) branch.label = forkLabel(state.label, state.step, branch.label);
    makeLabelsUnique(branches);
    fork.runs = std::move(branches);
    fork.forkedFrom = {state.label, state.optimizer, state.step, folder};
    return fork;
}

std::vector<bool> continuesSavedState(const Experiment& experiment, const TrainingState& state) {
    std::vector<bool> continues;
    for (const RunSpec& run : experiment.runs) continues.push_back(run.optimizer == state.optimizer);
    return continues;
}

}  // namespace ml
