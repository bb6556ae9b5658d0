#include "session/TrainingWorker.h"

#include "data/DataRegistry.h"
#include "diagnostics/CurvatureWriter.h"
#include "InputError.h"
#include "train/LockstepTrainer.h"
#include "runfolder/WeightsFile.h"

#include <exception>

namespace ml {

namespace {
TrainingEnd failure(const QString& message) {
    TrainingEnd end;
    end.failed = true;
    end.message = message;
    return end;
}
}  // namespace

// Every run's Hessian spectrum at its final weights on the curvature's fixed batch (small networks).
void TrainingWorker::addSpectra(TrainingEnd& end) const {
    try {
        checkHessianSpectrumSize(trainer_->experiment().network);
        HessianProbe probe(trainer_->experiment().network, fixedBatch(*trainer_->data().train, kDefaultCurvatureBatch));
        for (int run = 0; run < trainer_->runCount(); ++run) {
            std::vector<double> eigenvalues;
            if (trainer_->result(run).status != RunStatus::Diverged) {
                probe.setPoint(trainer_->parameters(run));
                const Eigen::VectorXd spectrum = probe.spectrum();
                eigenvalues.assign(spectrum.data(), spectrum.data() + spectrum.size());
            }
            end.spectra.push_back(std::move(eigenvalues));
        }
    } catch (const InputError& error) {
        end.spectra.clear();
        end.spectrumProblem = QString::fromStdString(error.what());
    }
}

TrainingWorker::TrainingWorker() = default;

TrainingWorker::~TrainingWorker() = default;

void TrainingWorker::train(const Experiment& experiment, std::shared_ptr<RunControl> control,
                           std::shared_ptr<TrainingFeed> feed, std::shared_ptr<const ForkStart> fork) {
    TrainingEnd end;
    try {
        trainer_ = std::make_unique<LockstepTrainer>(experiment, loadExperimentData(experiment),
                                                     loadInitialWeights(experiment));
        if (fork) trainer_->resumeFrom(fork->state, fork->continueOptimizer);
        TrainingPlan plan;
        for (const RunSpec& run : trainer_->experiment().runs) plan.labels.push_back(run.label);
        plan.totalSteps = trainer_->totalSteps();
        for (const Matrix& layer : trainer_->initialParameters()) plan.parameterCount += layer.size();
        plan.stepsPerEpoch = trainer_->stepsPerEpoch();
        plan.imageShape = trainer_->data().train->imageShape();
        if (experiment.curvatureEvery > 0)
            feed->setCurvatureProbe(
                std::make_unique<HessianProbe>(experiment.network,
                                               fixedBatch(*trainer_->data().train, kDefaultCurvatureBatch)),
                experiment.curvatureEvery);
        feed->announce(plan);
        trainer_->addObserver(feed.get());
        trainer_->run(*control);
        // The loop has ended: nothing moves any more, so the states are read safely here.
        // A diverged run's state is not meant to continue: an empty state (step 0) stands for it.
        for (int run = 0; run < trainer_->runCount(); ++run)
            end.states.push_back(trainer_->result(run).status == RunStatus::Diverged ? TrainingState{}
                                                                                     : trainer_->trainingState(run));
        if (experiment.hessianSpectrum) addSpectra(end);
    } catch (const InputError& error) {
        end = failure(QString::fromStdString(error.what()));
    } catch (const std::exception& error) {
        end = failure(tr("Training failed: %1").arg(QString::fromStdString(error.what())));
    }
    trainer_.reset();
    feed->end(end);
}

}  // namespace ml
