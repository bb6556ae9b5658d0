#pragma once
// Writes each run's diagnostics.csv (layout: runfolder/RunFolderLayout.h) every `every` steps, as an
// observer of the LockstepTrainer (add it after the RunFolderWriter, which creates the folders).
// Columns: diagnostics/DiagnosticsColumns.h (docs/guide/diagnostics.md); one row per parameter layer
// (layer 0-based, neuron empty) followed by one row per neuron of it (neuron 0-based). The figures
// are computed on the training thread; each run's rows are formatted and written on a thread of its
// own (DiagnosticsRowWriter), everything written when the run finishes (stopped too); a step with no
// diagnostics costs one integer test. The same figures can also go to a listener (the desktop app's
// live view), computed once for both.
#include "diagnostics/DiagnosticsRowWriter.h"
#include "diagnostics/StepDiagnostics.h"
#include "train/LockstepTrainer.h"
#include "runfolder/RunFolderLayout.h"
#include "train/TrainingObserver.h"

#include <functional>
#include <memory>
#include <vector>

namespace ml {

class DiagnosticsWriter : public TrainingObserver {
public:
    // Receives each run's figures as they are computed, on the training thread.
    using Listener = std::function<void(int run, long step, const StepDiagnostics& diagnostics)>;

    // every >= 1; gradientSnr false: the gradient_snr column stays nan (its cost saved). Throws
    // FileError naming the path.
    DiagnosticsWriter(const RunFolderLayout& layout, const LockstepTrainer& trainer, long every,
                      bool gradientSnr = true);
    // Into `layout`'s files unless it is null, and to `listener` unless it is empty.
    DiagnosticsWriter(const RunFolderLayout* layout, const LockstepTrainer& trainer, long every, bool gradientSnr,
                      Listener listener);
    ~DiagnosticsWriter() override;

    bool wantsStepState(int run, long step) override;
    void stepStateReady(const StepState& state) override;
    void runFinished(int run, const RunResult& result) override;

private:
    struct RunLog;
    long every_;
    bool gradientSnr_;
    Listener listener_;
    std::vector<std::unique_ptr<RunLog>> runs_;
};

}  // namespace ml
