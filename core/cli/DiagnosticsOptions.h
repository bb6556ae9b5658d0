#pragma once
// The `train` flags that ask for diagnostics and curvature (core/diagnostics, docs/guide/diagnostics.md):
//   --diagnostics-every N   diagnostics.csv every N steps
//   --no-gradient-snr       without its gradient_snr column's cost (nan; experiment "gradient-snr": false)
//   --curvature-every N     curvature.csv every N steps (largest Hessian eigenvalue, power iteration)
//   --curvature-batch B     the fixed batch of both curvature outputs: the first B training samples
//   --hessian-spectrum      hessian_spectrum.csv at the final weights (small networks)
// Off by default: without them training runs as before, bit for bit.
#include "diagnostics/CurvatureWriter.h"
#include "diagnostics/DiagnosticsWriter.h"

#include <QCommandLineParser>

#include <memory>

namespace ml {

class DiagnosticsOptions {
public:
    static void addOptions(QCommandLineParser& parser);
    // Reads and checks the flags (InputError naming the flag), before anything is trained. Without
    // --diagnostics-every / --curvature-every the experiment's "diagnostics-every" /
    // "curvature-every" (presets that show the instruments) apply; its "gradient-snr": false and
    // "hessian-spectrum": true act as --no-gradient-snr and --hessian-spectrum.
    DiagnosticsOptions(const QCommandLineParser& parser, const Experiment& experiment);

    // Adds the observers asked for to `trainer` (after the RunFolderWriter of `layout`).
    void attach(LockstepTrainer& trainer, const RunFolderLayout& layout);
    // After training: the files written at the end (the spectra).
    void finish(const LockstepTrainer& trainer, const RunFolderLayout& layout) const;

private:
    int diagnosticsEvery_ = 0;
    int curvatureEvery_ = 0;
    int curvatureBatch_ = kDefaultCurvatureBatch;
    bool gradientSnr_ = true;
    bool spectrum_ = false;
    std::unique_ptr<DiagnosticsWriter> diagnostics_;
    std::unique_ptr<CurvatureWriter> curvature_;
};

}  // namespace ml
