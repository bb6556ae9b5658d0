#include "study/StudyLayout.h"

#include "runfolder/RunFolderLayout.h"

#include <QDir>

namespace ml {

QString StudyLayout::studyFile() const { return QDir(root_).filePath(studyfolder::kStudy); }

QString StudyLayout::trialDirectory(int index) const {
    const StudyTrial& trial = plan_.trial(index);
    const Study& study = plan_.study();
    const QString leaf =
        trial.phase == StudyPhase::Tuning ? QString("trial-%1").arg(trial.number) : QString("seed-%1").arg(trial.seed);
    return QDir(root_).filePath(QString(trial.phase == StudyPhase::Tuning ? "tune" : "final") + "/" +
                                runFileName(study.tasks[trial.task].name) + "/" +
                                runFileName(study.optimizers[trial.optimizer].label) + "/" + leaf);
}

QString StudyLayout::trialMarker(int trial) const {
    return QDir(trialDirectory(trial)).filePath(studyfolder::kTrialMarker);
}
QString StudyLayout::resultsDirectory() const { return QDir(root_).filePath(studyfolder::kResults); }
QString StudyLayout::slurmDirectory() const { return QDir(root_).filePath(studyfolder::kSlurm); }

}  // namespace ml
