#pragma once
// What instruments deliver live (the desktop app's mailbox, ui/session/TrainingFeed) rather than
// into a run folder's files: the same records the files hold, read back by DiagnosticsRecords.h.
#include "diagnostics/DiagnosticsRecords.h"

#include <QString>

#include <vector>

namespace ml {

struct RunDiagnostics {
    int run = 0;
    DiagnosticsRecord record;
};

struct RunCurvature {
    int run = 0;
    CurvaturePoint point;
};

// One batch of records, in the order they were taken.
struct InstrumentRecords {
    std::vector<RunDiagnostics> diagnostics;
    std::vector<RunCurvature> curvature;
    // Each run's Hessian eigenvalues at its final weights (ascending; empty for a diverged run), or
    // why there are none.
    std::vector<std::vector<double>> spectra;
    QString spectrumProblem;

    bool empty() const {
        return diagnostics.empty() && curvature.empty() && spectra.empty() && spectrumProblem.isEmpty();
    }
    // Appends `more` (a later batch) to these.
    void append(InstrumentRecords&& more);
};

// Receives records on the training thread; must not block it for long.
class RecordMailbox {
public:
    virtual ~RecordMailbox() = default;
    virtual void post(InstrumentRecords records) = 0;
};

}  // namespace ml
