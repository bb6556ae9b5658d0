#pragma once
// Snapshots: every run's matrices every N steps and at the last step, in RUN/snapshots.bin
// (runfolder/SnapshotWriter.h), for the app's views of a run folder.
//   flags: --snapshots-every N, --snapshots-max-mb MB (the budget of all files together)
//   records: snapshots.bin (run folder only; the app's live views get theirs from its feed)
#include "instruments/Instrument.h"
#include "instruments/InstrumentRequest.h"

#include <cstdint>

namespace ml {

class SnapshotInstrument : public Instrument {
public:
    static void addOptions(QCommandLineParser& parser);
    // nullptr unless --snapshots-every is given. Throws InputError naming the flag.
    static std::unique_ptr<Instrument> make(const InstrumentRequest& request);

    SnapshotInstrument(long every, std::uint64_t budgetMb) : every_(every), budgetMb_(budgetMb) {}
    std::string describe() const override;
    void check(const LockstepTrainer& trainer) const override;  // the budget
    std::unique_ptr<TrainingObserver> start(const LockstepTrainer& trainer, const InstrumentOutputs& outputs) override;

private:
    long every_;
    std::uint64_t budgetMb_;
};

}  // namespace ml
