#pragma once
// The study folder, written by `momentum-lab-cli study` (locally or through Slurm) and read by
// `aggregate` and the desktop app. The one place that knows its names:
//   DIR/study.json                              the study file as given (the trials' commands use it)
//   DIR/tune/TASK/LABEL/trial-N/                phase 1: an ordinary single-run folder + trial.json
//   DIR/final/TASK/LABEL/seed-S/                phase 2: the same
//   DIR/results/                                aggregate's CSV, JSON and figure files (docs/guide/studies.md)
//   DIR/slurm/                                  --emit slurm: sbatch scripts, submit.sh, logs
//   DIR/trials.lock                             one byte per trial, locked while it is written
// A trial's trial.json is written last, atomically: a folder without it is unfinished (killed or
// still running) and is trained again from the start.
#include "study/StudyPlan.h"

#include <QString>

namespace ml {

namespace studyfolder {
inline constexpr const char* kStudy = "study.json";
inline constexpr const char* kTrialMarker = "trial.json";
inline constexpr const char* kResults = "results";
inline constexpr const char* kSlurm = "slurm";
inline constexpr const char* kTrialLocks = "trials.lock";  // study/TrialLock.h
}  // namespace studyfolder

class StudyLayout {
public:
    StudyLayout(QString root, const StudyPlan& plan) : root_(std::move(root)), plan_(plan) {}

    const QString& root() const { return root_; }
    const StudyPlan& plan() const { return plan_; }
    QString studyFile() const;
    QString trialDirectory(int trial) const;
    QString trialMarker(int trial) const;
    QString resultsDirectory() const;
    QString slurmDirectory() const;

private:
    QString root_;
    const StudyPlan& plan_;
};

}  // namespace ml
