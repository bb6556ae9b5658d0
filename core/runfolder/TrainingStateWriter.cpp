#include "runfolder/TrainingStateWriter.h"

#include "io/FileError.h"

#include <QDir>

#include <stdexcept>

namespace ml {

TrainingStateWriter::TrainingStateWriter(const RunFolderLayout& layout, const LockstepTrainer& trainer, long every)
    : layout_(layout), trainer_(trainer), every_(every) {
    if (every_ < 1) throw std::invalid_argument("TrainingStateWriter: every must be at least 1");
    for (int run = 0; run < layout_.runCount(); ++run)
        if (!QDir().mkpath(layout_.stateDirectory(run)))
            throw FileError(layout_.stateDirectory(run), "cannot create the folder");
}

void TrainingStateWriter::stepFinished(const StepMetrics& metrics) {
    // The trainer counts a diverged step as not applied (result.steps stays at the step before).
    if (metrics.step % every_ != 0 || trainer_.result(metrics.run).steps != metrics.step) return;
    writeTrainingStateFile(layout_.stateFile(metrics.run, metrics.step), trainer_.trainingState(metrics.run));
}

}  // namespace ml
