#pragma once
// Training states: each run's state every N steps, RUN/state/step-K.json.gz
// (runfolder/TrainingStateWriter.h), which `train --fork-from RUN --at-step K` continues.
//   flag: --save-state-every N
//   records: state/step-K.json.gz (run folder only; the app keeps its end states in memory)
#include "instruments/Instrument.h"
#include "instruments/InstrumentRequest.h"

namespace ml {

class TrainingStateInstrument : public Instrument {
public:
    static void addOptions(QCommandLineParser& parser);
    // nullptr unless --save-state-every is given. Throws InputError naming the flag.
    static std::unique_ptr<Instrument> make(const InstrumentRequest& request);

    explicit TrainingStateInstrument(long every) : every_(every) {}
    std::string describe() const override;
    std::unique_ptr<TrainingObserver> start(const LockstepTrainer& trainer, const InstrumentOutputs& outputs) override;

private:
    long every_;
};

}  // namespace ml
