#include "session/TrainingWorker.h"

#include "InputError.h"
#include "instruments/InstrumentCatalog.h"
#include "instruments/TrainingJob.h"

#include <exception>

namespace ml {

namespace {

TrainingEnd failure(const QString& message) {
    TrainingEnd end;
    end.failed = true;
    end.message = message;
    return end;
}

TrainingPlan planOf(const TrainingJob& job) {
    const LockstepTrainer& trainer = job.trainer();
    TrainingPlan plan;
    for (const RunSpec& run : trainer.experiment().runs) plan.labels.push_back(run.label);
    plan.totalSteps = trainer.totalSteps();
    for (const Matrix& layer : trainer.initialParameters()) plan.parameterCount += layer.size();
    plan.stepsPerEpoch = trainer.stepsPerEpoch();
    plan.imageShape = trainer.data().train->imageShape();
    plan.runFolder = job.runFolder().toStdString();
    plan.records = job.describeInstruments();
    return plan;
}

}  // namespace

void TrainingWorker::train(const Experiment& experiment, const QString& runFolder, std::shared_ptr<RunControl> control,
                           std::shared_ptr<TrainingFeed> feed, std::shared_ptr<const ForkStart> fork) {
    TrainingEnd end;
    try {
        // The experiment's instrument keys ask for them, as they do in `train --config`.
        TrainingJob job(experiment, requestedInstruments(InstrumentRequest(experiment)));
        if (fork) job.trainer().resumeFrom(fork->state, fork->continueOptimizer);
        if (!runFolder.isEmpty()) job.writeRunFolder(runFolder);
        job.deliverTo(feed.get());
        job.addObserver(feed.get());
        feed->announce(planOf(job));
        job.run(*control);
        job.finish();
        // The loop has ended: nothing moves any more, so the states are read safely here.
        // A diverged run's state is not meant to continue: an empty state (step 0) stands for it.
        const LockstepTrainer& trainer = job.trainer();
        for (int run = 0; run < trainer.runCount(); ++run)
            end.states.push_back(trainer.result(run).status == RunStatus::Diverged ? TrainingState{}
                                                                                   : trainer.trainingState(run));
    } catch (const InputError& error) {
        end = failure(QString::fromStdString(error.what()));
    } catch (const std::exception& error) {
        end = failure(tr("Training failed: %1").arg(QString::fromStdString(error.what())));
    }
    feed->end(end);
}

}  // namespace ml
