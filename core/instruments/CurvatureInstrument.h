#pragma once
// Curvature: the largest Hessian eigenvalue of the loss on a fixed batch every N steps, beside the
// stability thresholds 2/lr and (2+2mu)/lr (diagnostics/CurvatureWriter.h).
//   flags: --curvature-every N, --curvature-batch B (also the spectrum's batch);  key: "curvature-every"
//   records: curvature.csv, live: RunCurvature
#include "instruments/Instrument.h"
#include "instruments/InstrumentRequest.h"

namespace ml {

class CurvatureInstrument : public Instrument {
public:
    static void addOptions(QCommandLineParser& parser);
    // nullptr unless --curvature-every or the experiment's "curvature-every" asks for it.
    static std::unique_ptr<Instrument> make(const InstrumentRequest& request);
    // --curvature-batch (default kDefaultCurvatureBatch), shared with the spectrum.
    static int batch(const InstrumentRequest& request);

    CurvatureInstrument(long every, long batch) : every_(every), batch_(batch) {}
    std::string describe() const override;
    std::unique_ptr<TrainingObserver> start(const LockstepTrainer& trainer, const InstrumentOutputs& outputs) override;

private:
    long every_;
    long batch_;
};

}  // namespace ml
