// libFuzzer target: the training-state file (RUN/state/step-K.json.gz, train --fork-from), parsed
// in memory by trainingStateFromJson (its gzip layer is the one fuzz_idx covers), then resumed by a
// 1-2-2-1 trainer on toy:sine as `--fork-from` does, continuing the optimizer state, and trained for
// two steps. A refusal (InputError) is a correct answer; an accepted state must survive its own
// round trip.
#include "FuzzScratch.h"
#include "InputError.h"
#include "data/DataRegistry.h"
#include "train/LockstepTrainer.h"
#include "train/TrainingState.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    ml::TrainingState state;
    try {
        state = ml::trainingStateFromJson(ml::fuzz::bytesOf(data, size), "fuzz.json");
    } catch (const ml::InputError&) {
        return 0;
    }
    try {
        const ml::TrainingState back = ml::trainingStateFromJson(ml::trainingStateToJson(state), "written.json");
        if (back.parameters.size() != state.parameters.size() || back.dataOrder != state.dataOrder) std::abort();
    } catch (const ml::InputError&) {
        std::abort();  // an accepted state was written in a form its own reader refuses
    }
    ml::Experiment experiment;  // 1-2-2-1, tanh, mse, toy:sine, full batch
    experiment.data = "toy:sine";
    experiment.steps = state.step < 1000 ? state.step + 2 : 3;
    experiment.runs = {{"momentum", "momentum", {}}};
    try {
        ml::LockstepTrainer trainer(experiment, ml::loadExperimentData(experiment));
        trainer.resumeFrom(state, {true});
        ml::RunControl control;
        trainer.run(control);
    } catch (const ml::InputError&) {}
    return 0;
}
