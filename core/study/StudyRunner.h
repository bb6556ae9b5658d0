#pragma once
// Runs the trials of a study: one trial into its folder (what `--trial K` and every Slurm array
// task do), or a list of trials on N worker threads (each trial single-threaded, as Eigen is here).
// A trial's folder is an ordinary run folder; an unfinished one (no trial.json) is cleared and
// trained again, a finished one is kept, so re-running a study resumes it.
#include "study/SharedTrialInputs.h"
#include "study/StudyLayout.h"
#include "train/RunControl.h"

#include <QString>

#include <functional>
#include <vector>

namespace ml {

// Copies `studyFile` to DIR/study.json, or checks that the copy already there is the same study
// (a different one would mix two studies' trials: InputError naming both files).
void prepareStudyFolder(const QString& studyFile, const QString& directory);

// Trains trial `trial` into its folder and writes its trial.json; phase 2 trials first choose their
// configuration from phase 1's folders (InputError when those are unfinished). Returns false when
// the control stopped it (no trial.json: it is unfinished). Throws FileError / InputError.
bool runTrial(const StudyLayout& layout, int trial, RunControl& control);
// The same with the data and phase 1's choices shared with the other trials of `inputs`' study.
bool runTrial(const StudyLayout& layout, int trial, RunControl& control, SharedTrialInputs& inputs);

// The trials in `trials` that have no trial.json yet. Throws InputError when a trial.json there
// does not describe its trial of this study (checkTrialMarker: edited, or the study was).
std::vector<int> unfinishedTrials(const StudyLayout& layout, const std::vector<int>& trials);

// What a (resumed) study still has to run: its unfinished tuning trials and final runs.
struct PendingTrials {
    std::vector<int> tuning, finals;
    int count() const { return static_cast<int>(tuning.size() + finals.size()); }
};
PendingTrials pendingTrials(const StudyLayout& layout);
// Phases 1 and 2 as `momentum-lab-cli study` and the desktop app run them, on `jobs` threads that
// share one SharedTrialInputs: each worker takes the next ready trial (TrialQueue: a final run once
// its task and optimizer's tuning trials finished) until none is left or the control stops them.
// A worker hands each trained trial to one commit thread and goes on with the next, so no core
// sleeps in fsync. That thread commits the trials waiting as a group: one syncfs of the study's
// file system for all their files, then each trial.json (written atomically and synced).
// `onFinished` is called from that thread after each trial's trial.json is written. The first error stops the workers after their current
// trial and is rethrown here, once the trials already trained are committed. Returns the number of
// trials that finished.
int runPendingTrials(const StudyLayout& layout, const PendingTrials& pending, int jobs, RunControl& control,
                     const std::function<void(int trial)>& onFinished = {});

}  // namespace ml
