#pragma once
// The Hessian spectrum: every eigenvalue of the Hessian at each run's final weights, on the
// curvature's fixed batch (small networks: diagnostics/CurvatureWriter.h hessianSpectra).
//   flag: --hessian-spectrum (its batch: --curvature-batch);  key: "hessian-spectrum"
//   records: hessian_spectrum.csv at the end, live: InstrumentRecords::spectra (or the problem)
// On the command line a network too large is refused before training; live, the problem is
// delivered at the end instead, and the training stands.
#include "instruments/Instrument.h"
#include "instruments/InstrumentRequest.h"

namespace ml {

class SpectrumInstrument : public Instrument {
public:
    static void addOptions(QCommandLineParser& parser);
    // nullptr unless asked for. Throws InputError naming --hessian-spectrum (command line only).
    static std::unique_ptr<Instrument> make(const InstrumentRequest& request);

    explicit SpectrumInstrument(long batch) : batch_(batch) {}
    std::string describe() const override { return "hessian_spectrum.csv at the end"; }
    std::unique_ptr<TrainingObserver> start(const LockstepTrainer&, const InstrumentOutputs&) override {
        return nullptr;
    }
    void finish(const LockstepTrainer& trainer, const InstrumentOutputs& outputs) override;

private:
    long batch_;
};

}  // namespace ml
