#include "diagnostics/CurvatureWriter.h"

#include "InputError.h"
#include "io/NumberText.h"

namespace ml {

CurvaturePoint measureCurvature(HessianProbe& probe, const StepState& state) {
    probe.setPoint(state.parameters);
    const PowerIterationResult top = probe.largestEigenvalue(kCurvatureMaxIterations, kCurvatureTolerance);
    const double lr = state.spec.hp.lr;
    const double mu = state.spec.hp.momentum;
    CurvaturePoint point;
    point.step = state.step;
    point.lambdaMax = top.eigenvalue;
    point.iterations = top.iterations;
    point.converged = top.converged;
    point.sgdThreshold = 2.0 / lr;
    point.heavyBallThreshold = (2.0 + 2.0 * mu) / lr;
    return point;
}

CurvatureWriter::CurvatureWriter(const RunFolderLayout& layout, const LockstepTrainer& trainer, long every,
                                 long batchSize)
    : CurvatureWriter(&layout, trainer, every, batchSize, {}) {}

CurvatureWriter::CurvatureWriter(const RunFolderLayout* layout, const LockstepTrainer& trainer, long every,
                                 long batchSize, Listener listener)
    : every_(every), probe_(trainer.experiment().network, fixedBatch(*trainer.data().train, batchSize)),
      listener_(std::move(listener)) {
    for (int run = 0; layout && run < layout->runCount(); ++run) {
        files_.push_back(std::make_unique<AppendOnlyFile>(layout->curvatureFile(run)));
        files_.back()->append("step,lambda_max,iterations,converged,sgd_threshold,heavy_ball_threshold\n");
        files_.back()->flush();
    }
    row_.reserve(4 * kNumberTextBytes);
}

CurvatureWriter::~CurvatureWriter() = default;

bool CurvatureWriter::wantsStepState(int /*run*/, long step) { return step % every_ == 0; }

void CurvatureWriter::stepStateReady(const StepState& state) {
    if (state.step % every_ != 0) return;  // asked for by another observer
    const CurvaturePoint point = measureCurvature(probe_, state);
    if (listener_) listener_(state.run, point);
    if (files_.empty()) return;
    row_.resize(0);
    appendInteger(row_, state.step);
    row_.append(',');
    appendShortest(row_, static_cast<float>(point.lambdaMax));
    row_.append(',');
    appendInteger(row_, point.iterations);
    row_.append(point.converged ? ",1," : ",0,");
    appendShortest(row_, static_cast<float>(point.sgdThreshold));
    row_.append(',');
    appendShortest(row_, static_cast<float>(point.heavyBallThreshold));
    row_.append('\n');
    AppendOnlyFile& file = *files_[state.run];
    file.append(row_);
    file.flush();
}

void CurvatureWriter::runFinished(int run, const RunResult& /*result*/) {
    if (!files_.empty()) files_[run]->close();
}

void checkHessianSpectrumSize(const NetworkSpec& network) {
    const Network probe(network);
    Eigen::Index count = 0;
    for (const Matrix& layer : probe.parameters()) count += layer.size();
    if (count > HessianProbe::kMaxSpectrumParameters)
        throw InputError("--hessian-spectrum: the network " + network.text() + " has " + std::to_string(count) +
                         " parameters; the exact spectrum is computed for at most " +
                         std::to_string(HessianProbe::kMaxSpectrumParameters) +
                         " (use --curvature-every for larger ones)");
}

std::vector<Eigen::VectorXd> hessianSpectra(const LockstepTrainer& trainer, long batchSize) {
    HessianProbe probe(trainer.experiment().network, fixedBatch(*trainer.data().train, batchSize));
    std::vector<Eigen::VectorXd> spectra;
    for (int run = 0; run < trainer.runCount(); ++run) {
        probe.setPoint(trainer.parameters(run));
        spectra.push_back(probe.spectrum());
    }
    return spectra;
}

void writeHessianSpectra(const RunFolderLayout& layout, const std::vector<Eigen::VectorXd>& spectra) {
    for (int run = 0; run < layout.runCount(); ++run) {
        const Eigen::VectorXd& eigenvalues = spectra[static_cast<std::size_t>(run)];
        QByteArray csv = "index,eigenvalue\n";
        for (Eigen::Index i = 0; i < eigenvalues.size(); ++i) {
            appendInteger(csv, i);
            csv.append(',');
            appendShortest(csv, static_cast<float>(eigenvalues(i)));
            csv.append('\n');
        }
        writeFileAtomically(layout.hessianSpectrumFile(run), csv);
    }
}

}  // namespace ml
