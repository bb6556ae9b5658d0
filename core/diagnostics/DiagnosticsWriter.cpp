#include "diagnostics/DiagnosticsWriter.h"

#include <optional>

namespace ml {

struct DiagnosticsWriter::RunLog {
    explicit RunLog(const Parameters& shapes) : diagnostics(shapes) {}
    StepDiagnostics diagnostics;
    std::optional<DiagnosticsRowWriter> rows;  // without a run folder: none
};

DiagnosticsWriter::DiagnosticsWriter(const RunFolderLayout& layout, const LockstepTrainer& trainer, long every,
                                     bool gradientSnr)
    : DiagnosticsWriter(&layout, trainer, every, gradientSnr, {}) {}

DiagnosticsWriter::DiagnosticsWriter(const RunFolderLayout* layout, const LockstepTrainer& trainer, long every,
                                     bool gradientSnr, Listener listener)
    : every_(every), gradientSnr_(gradientSnr), listener_(std::move(listener)) {
    for (int run = 0; run < trainer.runCount(); ++run) {
        runs_.push_back(std::make_unique<RunLog>(trainer.initialParameters(run)));
        if (layout) runs_.back()->rows.emplace(layout->diagnosticsFile(run), trainer.initialParameters(run));
    }
}

DiagnosticsWriter::~DiagnosticsWriter() = default;

bool DiagnosticsWriter::wantsStepState(int /*run*/, long step) { return step % every_ == 0; }

void DiagnosticsWriter::stepStateReady(const StepState& state) {
    if (state.step % every_ != 0) return;  // asked for by another observer
    RunLog& log = *runs_[state.run];
    log.diagnostics.compute(state.parameters, state.gradients, state.optimizer, state.initialParameters,
                            gradientSnr_ ? &state.model : nullptr);
    if (log.rows) log.rows->push(state.step, log.diagnostics);
    if (listener_) listener_(state.run, state.step, log.diagnostics);
}

void DiagnosticsWriter::runFinished(int run, const RunResult& /*result*/) {
    if (runs_[run]->rows) runs_[run]->rows->close();
}

}  // namespace ml
