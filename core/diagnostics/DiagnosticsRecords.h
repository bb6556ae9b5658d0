#pragma once
// Diagnostics as data: one recorded step of one run (every layer's UnitDiagnostics) and one
// curvature measurement, read back from a run's diagnostics.csv / curvature.csv or taken from a
// live StepDiagnostics. The desktop app plots these (ui/views/DiagnosticsDock).
#include "diagnostics/StepDiagnostics.h"

#include <QString>

#include <vector>

namespace ml {

struct DiagnosticsRecord {
    long step = 0;
    // layers[l][0]: the whole layer, layers[l][1 + i]: neuron i (as StepDiagnostics::layer).
    std::vector<std::vector<UnitDiagnostics>> layers;
};

struct CurvaturePoint {
    long step = 0;
    double lambdaMax = NAN;
    int iterations = 0;
    bool converged = false;
    double sgdThreshold = NAN;        // 2 / lr
    double heavyBallThreshold = NAN;  // (2 + 2 mu) / lr
};

DiagnosticsRecord recordOf(long step, const StepDiagnostics& diagnostics);

// Reads diagnostics.csv (docs/guide/diagnostics.md; files written before the gradient_snr column read
// with that column NaN). Throws InputError naming the file, line and column.
std::vector<DiagnosticsRecord> readDiagnosticsFile(const QString& path);
// Reads curvature.csv. Throws InputError naming the file, line and column.
std::vector<CurvaturePoint> readCurvatureFile(const QString& path);
// Reads hessian_spectrum.csv (index,eigenvalue): the eigenvalues in file order. Throws InputError
// naming the file, line and column.
std::vector<double> readSpectrumFile(const QString& path);

}  // namespace ml
