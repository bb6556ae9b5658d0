#pragma once
// Diagnostics: per layer and neuron, the gradient and update norms and the rest of
// diagnostics/StepDiagnostics.h, every N steps (diagnostics/DiagnosticsWriter.h computes them once
// for both outputs).
//   flags: --diagnostics-every N, --no-gradient-snr;  keys: "diagnostics-every", "gradient-snr"
//   records: diagnostics.csv (columns: diagnostics/DiagnosticsColumns.h), live: RunDiagnostics
#include "instruments/Instrument.h"
#include "instruments/InstrumentRequest.h"

namespace ml {

class DiagnosticsInstrument : public Instrument {
public:
    static void addOptions(QCommandLineParser& parser);
    // nullptr unless --diagnostics-every or the experiment's "diagnostics-every" asks for it.
    static std::unique_ptr<Instrument> make(const InstrumentRequest& request);

    DiagnosticsInstrument(long every, bool gradientSnr) : every_(every), gradientSnr_(gradientSnr) {}
    std::string describe() const override;
    std::unique_ptr<TrainingObserver> start(const LockstepTrainer& trainer, const InstrumentOutputs& outputs) override;

private:
    long every_;
    bool gradientSnr_;
};

}  // namespace ml
