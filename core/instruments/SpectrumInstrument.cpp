#include "instruments/SpectrumInstrument.h"

#include "InputError.h"
#include "diagnostics/CurvatureWriter.h"
#include "instruments/CurvatureInstrument.h"

namespace ml {

void SpectrumInstrument::addOptions(QCommandLineParser& parser) {
    parser.addOption({"hessian-spectrum",
                      "Write hessian_spectrum.csv, every eigenvalue of the Hessian at the final weights (networks "
                      "up to " +
                          QString::number(HessianProbe::kMaxSpectrumParameters) + " parameters)."});
}

std::unique_ptr<Instrument> SpectrumInstrument::make(const InstrumentRequest& request) {
    const int batch = CurvatureInstrument::batch(request);
    if (!request.isSet("hessian-spectrum") && !request.experiment().hessianSpectrum) return nullptr;
    if (request.fromCommandLine()) checkHessianSpectrumSize(request.experiment().network);
    return std::make_unique<SpectrumInstrument>(batch);
}

void SpectrumInstrument::finish(const LockstepTrainer& trainer, const InstrumentOutputs& outputs) {
    if (!outputs.folder && !outputs.mailbox) return;
    try {
        checkHessianSpectrumSize(trainer.experiment().network);
    } catch (const InputError& error) {
        InstrumentRecords problem;
        problem.spectrumProblem = QString::fromStdString(error.what());
        if (outputs.mailbox) outputs.mailbox->post(std::move(problem));
        return;
    }
    const std::vector<Eigen::VectorXd> spectra = hessianSpectra(trainer, batch_);
    if (outputs.folder) writeHessianSpectra(*outputs.folder, spectra);
    if (!outputs.mailbox) return;
    // A diverged run's spectrum is not shown (its weights are not finite).
    InstrumentRecords live;
    for (int run = 0; run < trainer.runCount(); ++run) {
        std::vector<double> eigenvalues;
        if (trainer.result(run).status != RunStatus::Diverged) {
            const Eigen::VectorXd& spectrum = spectra[static_cast<std::size_t>(run)];
            eigenvalues.assign(spectrum.data(), spectrum.data() + spectrum.size());
        }
        live.spectra.push_back(std::move(eigenvalues));
    }
    outputs.mailbox->post(std::move(live));
}

}  // namespace ml
