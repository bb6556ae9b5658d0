#include "diagnostics/DiagnosticsWriter.h"

#include "io/NumberText.h"

#include <array>

namespace ml {

struct DiagnosticsWriter::RunLog {
    RunLog(const QString& path, const Parameters& shapes) : file(path), diagnostics(shapes) {}
    AppendOnlyFile file;
    StepDiagnostics diagnostics;
    QByteArray buffer;
};

QByteArray diagnosticsHeader() {
    return "step,layer,neuron,gradient_norm,update_norm,update_to_weight,distance_from_initial,"
           "cos_moment_gradient,mean_share,moment_cv,gradient_snr\n";
}

void appendDiagnosticsRows(QByteArray& out, long step, const StepDiagnostics& diagnostics) {
    std::array<char, 16 * kNumberTextBytes> row;
    for (std::size_t l = 0; l < diagnostics.layerCount(); ++l) {
        const std::vector<UnitDiagnostics>& units = diagnostics.layer(l);
        for (std::size_t u = 0; u < units.size(); ++u) {
            char* end = row.data() + row.size();
            char* p = writeInteger(row.data(), end, step);
            *p++ = ',';
            p = writeInteger(p, end, static_cast<long long>(l));
            *p++ = ',';
            if (u > 0) p = writeInteger(p, end, static_cast<long long>(u - 1));  // the layer row has none
            const UnitDiagnostics& d = units[u];
            for (const float value : {d.gradientNorm, d.updateNorm, d.updateToWeight, d.distanceFromInitial,
                                      d.cosMomentGradient, d.meanShare, d.momentCv, d.gradientSnr}) {
                *p++ = ',';
                p = writeShortest(p, end, value);
            }
            *p++ = '\n';
            out.append(row.data(), p - row.data());
        }
    }
}

DiagnosticsWriter::DiagnosticsWriter(const RunFolderLayout& layout, const LockstepTrainer& trainer, long every,
                                     bool gradientSnr)
    : every_(every), gradientSnr_(gradientSnr) {
    for (int run = 0; run < layout.runCount(); ++run) {
        auto log = std::make_unique<RunLog>(layout.diagnosticsFile(run), trainer.initialParameters());
        log->buffer.reserve(2 * kBufferBytes);  // grows once more only if one step's rows exceed 64 KiB
        log->buffer.append(diagnosticsHeader());
        runs_.push_back(std::move(log));
    }
}

DiagnosticsWriter::~DiagnosticsWriter() = default;

bool DiagnosticsWriter::wantsStepState(int /*run*/, long step) { return step % every_ == 0; }

void DiagnosticsWriter::stepStateReady(const StepState& state) {
    if (state.step % every_ != 0) return;  // asked for by another observer
    RunLog& log = *runs_[state.run];
    log.diagnostics.compute(state.parameters, state.gradients, state.optimizer, state.initialParameters,
                            gradientSnr_ ? &state.model : nullptr);
    appendDiagnosticsRows(log.buffer, state.step, log.diagnostics);
    if (log.buffer.size() >= kBufferBytes) {
        log.file.append(log.buffer);
        log.file.flush();
        log.buffer.resize(0);  // keeps the capacity
    }
}

void DiagnosticsWriter::runFinished(int run, const RunResult& /*result*/) {
    RunLog& log = *runs_[run];
    log.file.append(log.buffer);
    log.buffer.resize(0);
    log.file.close();
}

}  // namespace ml
