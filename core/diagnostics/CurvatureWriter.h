#pragma once
// Writes each run's curvature.csv every `every` steps (an observer of the LockstepTrainer, added
// after the RunFolderWriter): the largest Hessian eigenvalue of the training loss on one fixed batch
// (the first `batchSize` training samples, diagnostics/HessianProbe.h) beside the stability
// thresholds of the run's learning rate lr and momentum mu:
//   step,lambda_max,iterations,converged,sgd_threshold,heavy_ball_threshold
// with sgd_threshold = 2/lr and heavy_ball_threshold = (2 + 2 mu)/lr (plain gradient descent, and
// heavy-ball momentum, are unstable along a direction whose curvature exceeds them). Each row is
// handed to the append-only file at once (rows are rare and costly).
// Also writeHessianSpectra: each run's hessian_spectrum.csv (index,eigenvalue ascending) at its
// final weights, for networks up to HessianProbe::kMaxSpectrumParameters parameters.
#include "diagnostics/DiagnosticsRecords.h"
#include "diagnostics/HessianProbe.h"
#include "io/Files.h"
#include "train/LockstepTrainer.h"
#include "runfolder/RunFolderLayout.h"
#include "train/TrainingObserver.h"

#include <functional>
#include <memory>
#include <vector>

namespace ml {

inline constexpr int kCurvatureMaxIterations = 100;
inline constexpr int kDefaultCurvatureBatch = 256;  // samples in the fixed batch unless told otherwise
inline constexpr double kCurvatureTolerance = 1e-4;

// lambda_max at the state's parameters (power iteration, the limits above) and the run's thresholds
// (the rows of curvature.csv; the desktop app's live curvature).
CurvaturePoint measureCurvature(HessianProbe& probe, const StepState& state);

class CurvatureWriter : public TrainingObserver {
public:
    // Receives each measurement, on the training thread.
    using Listener = std::function<void(int run, const CurvaturePoint& point)>;

    // every >= 1, batchSize >= 1. Throws FileError naming the path.
    CurvatureWriter(const RunFolderLayout& layout, const LockstepTrainer& trainer, long every, long batchSize);
    // Into `layout`'s files unless it is null, and to `listener` unless it is empty.
    CurvatureWriter(const RunFolderLayout* layout, const LockstepTrainer& trainer, long every, long batchSize,
                    Listener listener);
    ~CurvatureWriter() override;

    bool wantsStepState(int run, long step) override;
    void stepStateReady(const StepState& state) override;
    void runFinished(int run, const RunResult& result) override;

private:
    long every_;
    HessianProbe probe_;  // one for every run: each row sets its point
    Listener listener_;
    std::vector<std::unique_ptr<AppendOnlyFile>> files_;  // empty without a run folder
    QByteArray row_;
};

// Throws InputError (naming --hessian-spectrum) when the network is too large; call before training.
void checkHessianSpectrumSize(const NetworkSpec& network);
// After training: every run's spectrum at its final weights (ascending), diverged runs' too.
std::vector<Eigen::VectorXd> hessianSpectra(const LockstepTrainer& trainer, long batchSize);
// Each run's hessian_spectrum.csv from hessianSpectra(). Throws FileError naming the path.
void writeHessianSpectra(const RunFolderLayout& layout, const std::vector<Eigen::VectorXd>& spectra);

}  // namespace ml
