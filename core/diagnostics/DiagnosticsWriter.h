#pragma once
// Writes each run's diagnostics.csv (layout: train/RunFolderLayout.h) every `every` steps, as an
// observer of the LockstepTrainer (add it after the RunFolderWriter, which creates the folders).
// Columns (docs/diagnostics.md; the quantities: diagnostics/StepDiagnostics.h):
//   step,layer,neuron,gradient_norm,update_norm,update_to_weight,distance_from_initial,
//   cos_moment_gradient,mean_share,moment_cv,gradient_snr
// one row per parameter layer (layer 0-based, neuron empty) followed by one row per neuron of it
// (neuron 0-based). Rows go into one reused buffer, handed to the append-only file each 64 KiB and
// when the run finishes; a step with no diagnostics costs one integer test.
#include "diagnostics/StepDiagnostics.h"
#include "io/Files.h"
#include "train/LockstepTrainer.h"
#include "train/RunFolderLayout.h"
#include "train/TrainingObserver.h"

#include <QByteArray>

#include <memory>
#include <vector>

namespace ml {

QByteArray diagnosticsHeader();
// Appends the rows of one step (the buffer's capacity is reused; no allocation once it suffices).
void appendDiagnosticsRows(QByteArray& out, long step, const StepDiagnostics& diagnostics);

class DiagnosticsWriter : public TrainingObserver {
public:
    // every >= 1; gradientSnr false: the gradient_snr column stays nan (its cost saved). Throws
    // FileError naming the path.
    DiagnosticsWriter(const RunFolderLayout& layout, const LockstepTrainer& trainer, long every, bool gradientSnr = true);
    ~DiagnosticsWriter() override;

    bool wantsStepState(int run, long step) override;
    void stepStateReady(const StepState& state) override;
    void runFinished(int run, const RunResult& result) override;

private:
    static constexpr qsizetype kBufferBytes = 1 << 16;
    struct RunLog;
    long every_;
    bool gradientSnr_;
    std::vector<std::unique_ptr<RunLog>> runs_;
};

}  // namespace ml
