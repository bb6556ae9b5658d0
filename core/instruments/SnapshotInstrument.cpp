#include "instruments/SnapshotInstrument.h"

#include "InputError.h"
#include "runfolder/SnapshotWriter.h"

namespace ml {

void SnapshotInstrument::addOptions(QCommandLineParser& parser) {
    parser.addOption(
        {"snapshots-every",
         "Also save every run's matrices (weights, gradient, moments, update, neuron means) every N "
         "steps and at the last step, in RUN/snapshots.bin (docs/guide/snapshot-format.md), for the app's views.",
         "N"});
    parser.addOption({"snapshots-max-mb",
                      QString("Budget of all snapshot files together, in MB (default %1): an interval that could "
                              "exceed it is refused, naming the smallest one that fits.")
                          .arg(kDefaultSnapshotBudgetMb),
                      "MB"});
}

std::unique_ptr<Instrument> SnapshotInstrument::make(const InstrumentRequest& request) {
    const long every = request.count("snapshots-every", 0, kMaxCount);
    const long budgetMb = request.count("snapshots-max-mb", long(kDefaultSnapshotBudgetMb), 1000000);
    if (request.isSet("snapshots-max-mb") && !request.isSet("snapshots-every"))
        throw InputError("--snapshots-max-mb: only read with --snapshots-every N");
    if (every <= 0) return nullptr;
    return std::make_unique<SnapshotInstrument>(every, std::uint64_t(budgetMb));
}

std::string SnapshotInstrument::describe() const { return "snapshots.bin every " + std::to_string(every_) + " steps"; }

void SnapshotInstrument::check(const LockstepTrainer& trainer) const {
    checkSnapshotBudget(trainer, every_, budgetMb_);
}

std::unique_ptr<TrainingObserver> SnapshotInstrument::start(const LockstepTrainer& trainer,
                                                            const InstrumentOutputs& outputs) {
    if (!outputs.folder) return nullptr;
    return std::make_unique<SnapshotWriter>(*outputs.folder, trainer, every_);
}

}  // namespace ml
