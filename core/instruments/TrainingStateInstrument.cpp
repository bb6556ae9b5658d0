#include "instruments/TrainingStateInstrument.h"

#include "runfolder/TrainingStateWriter.h"

namespace ml {

void TrainingStateInstrument::addOptions(QCommandLineParser& parser) {
    parser.addOption(
        {"save-state-every", "Save each run's training state every N steps (RUN/state/step-K.json.gz).", "N"});
}

std::unique_ptr<Instrument> TrainingStateInstrument::make(const InstrumentRequest& request) {
    const long every = request.count("save-state-every", 0, kMaxCount);
    return every > 0 ? std::make_unique<TrainingStateInstrument>(every) : nullptr;
}

std::string TrainingStateInstrument::describe() const {
    return "state/step-K.json.gz every " + std::to_string(every_) + " steps";
}

std::unique_ptr<TrainingObserver> TrainingStateInstrument::start(const LockstepTrainer& trainer,
                                                                 const InstrumentOutputs& outputs) {
    if (!outputs.folder) return nullptr;
    return std::make_unique<TrainingStateWriter>(*outputs.folder, trainer, every_);
}

}  // namespace ml
