#include "instruments/DiagnosticsInstrument.h"

#include "diagnostics/DiagnosticsWriter.h"
#include "instruments/StepCount.h"

namespace ml {

void DiagnosticsInstrument::addOptions(QCommandLineParser& parser) {
    parser.addOption({"diagnostics-every",
                      "Write diagnostics.csv (per layer and neuron: gradient and update norms, update/weight, "
                      "distance from the initial weights, cos(first moment, gradient), first-moment share along "
                      "the neuron mean, its coefficient of variation) every N steps.",
                      "N"});
    parser.addOption({"no-gradient-snr",
                      "Leave the gradient signal-to-noise ratio out of diagnostics.csv (nan): it costs about one "
                      "more weight-gradient product per recorded step."});
}

std::unique_ptr<Instrument> DiagnosticsInstrument::make(const InstrumentRequest& request) {
    const Experiment& experiment = request.experiment();
    const int every = request.wholeNumber("diagnostics-every", clampToInt(experiment.diagnosticsEvery), 1);
    const bool gradientSnr = experiment.gradientSnr && !request.isSet("no-gradient-snr");
    return every > 0 ? std::make_unique<DiagnosticsInstrument>(every, gradientSnr) : nullptr;
}

std::string DiagnosticsInstrument::describe() const {
    return "diagnostics.csv every " + std::to_string(every_) + " steps";
}

std::unique_ptr<TrainingObserver> DiagnosticsInstrument::start(const LockstepTrainer& trainer,
                                                               const InstrumentOutputs& outputs) {
    if (!outputs.folder && !outputs.mailbox) return nullptr;
    DiagnosticsWriter::Listener live;
    if (RecordMailbox* mailbox = outputs.mailbox)
        live = [mailbox](int run, long step, const StepDiagnostics& diagnostics) {
            InstrumentRecords records;
            records.diagnostics.push_back({run, recordOf(step, diagnostics)});
            mailbox->post(std::move(records));
        };
    return std::make_unique<DiagnosticsWriter>(outputs.folder, trainer, every_, gradientSnr_, std::move(live));
}

}  // namespace ml
