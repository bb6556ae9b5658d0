#include "diagnostics/DiagnosticsWriter.h"

namespace ml {

struct DiagnosticsWriter::RunLog {
    RunLog(const QString& path, const Parameters& shapes) : diagnostics(shapes), rows(path, shapes) {}
    StepDiagnostics diagnostics;
    DiagnosticsRowWriter rows;
};

DiagnosticsWriter::DiagnosticsWriter(const RunFolderLayout& layout, const LockstepTrainer& trainer, long every,
                                     bool gradientSnr)
    : every_(every), gradientSnr_(gradientSnr) {
    for (int run = 0; run < layout.runCount(); ++run)
        runs_.push_back(std::make_unique<RunLog>(layout.diagnosticsFile(run), trainer.initialParameters()));
}

DiagnosticsWriter::~DiagnosticsWriter() = default;

bool DiagnosticsWriter::wantsStepState(int /*run*/, long step) { return step % every_ == 0; }

void DiagnosticsWriter::stepStateReady(const StepState& state) {
    if (state.step % every_ != 0) return;  // asked for by another observer
    RunLog& log = *runs_[state.run];
    log.diagnostics.compute(state.parameters, state.gradients, state.optimizer, state.initialParameters,
                            gradientSnr_ ? &state.model : nullptr);
    log.rows.push(state.step, log.diagnostics);
}

void DiagnosticsWriter::runFinished(int run, const RunResult& /*result*/) { runs_[run]->rows.close(); }

}  // namespace ml
