#include "cli/DiagnosticsOptions.h"

#include "cli/CommandLine.h"

#include <algorithm>
#include <limits>

namespace ml {

void DiagnosticsOptions::addOptions(QCommandLineParser& parser) {
    parser.addOption({"diagnostics-every",
                      "Write diagnostics.csv (per layer and neuron: gradient and update norms, update/weight, "
                      "distance from the initial weights, cos(first moment, gradient), first-moment share along "
                      "the neuron mean, its coefficient of variation) every N steps.",
                      "N"});
    parser.addOption({"no-gradient-snr",
                      "Leave the gradient signal-to-noise ratio out of diagnostics.csv (nan): it costs about one "
                      "more weight-gradient product per recorded step."});
    parser.addOption({"curvature-every",
                      "Write curvature.csv every N steps: the largest Hessian eigenvalue of the loss on a fixed "
                      "batch (power iteration) beside 2/lr and (2+2mu)/lr.",
                      "N"});
    parser.addOption({"curvature-batch",
                      "The fixed batch of --curvature-every and --hessian-spectrum: the first B training samples "
                      "(default " +
                          QString::number(kDefaultCurvatureBatch) + ").",
                      "B"});
    parser.addOption({"hessian-spectrum",
                      "Write hessian_spectrum.csv, every eigenvalue of the Hessian at the final weights (networks "
                      "up to " +
                          QString::number(HessianProbe::kMaxSpectrumParameters) + " parameters)."});
}

namespace {
// An experiment's count (up to kMaxCount) as a flag's fallback; a step interval beyond int is never due.
int clampToInt(long count) { return static_cast<int>(std::min<long>(count, std::numeric_limits<int>::max())); }
}  // namespace

DiagnosticsOptions::DiagnosticsOptions(const QCommandLineParser& parser, const Experiment& experiment)
    : diagnosticsEvery_(wholeOption(parser, "diagnostics-every", clampToInt(experiment.diagnosticsEvery), 1)),
      curvatureEvery_(wholeOption(parser, "curvature-every", clampToInt(experiment.curvatureEvery), 1)),
      curvatureBatch_(wholeOption(parser, "curvature-batch", kDefaultCurvatureBatch, 1)),
      gradientSnr_(experiment.gradientSnr && !parser.isSet("no-gradient-snr")),
      spectrum_(parser.isSet("hessian-spectrum") || experiment.hessianSpectrum) {
    if (spectrum_) checkHessianSpectrumSize(experiment.network);
}

void DiagnosticsOptions::attach(LockstepTrainer& trainer, const RunFolderLayout& layout) {
    if (diagnosticsEvery_ > 0) {
        diagnostics_ = std::make_unique<DiagnosticsWriter>(layout, trainer, diagnosticsEvery_, gradientSnr_);
        trainer.addObserver(diagnostics_.get());
    }
    if (curvatureEvery_ > 0) {
        curvature_ = std::make_unique<CurvatureWriter>(layout, trainer, curvatureEvery_, curvatureBatch_);
        trainer.addObserver(curvature_.get());
    }
}

void DiagnosticsOptions::finish(const LockstepTrainer& trainer, const RunFolderLayout& layout) const {
    if (spectrum_) writeHessianSpectra(layout, trainer, curvatureBatch_);
}

}  // namespace ml
