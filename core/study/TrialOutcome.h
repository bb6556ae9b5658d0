#pragma once
// What a finished trial left in its folder, and how phase 1 picks each optimizer's configuration
// from those: the lowest selection score on validation data, ties to the earlier trial (the
// untuned defaults first), then the lower final validation loss.
#include "study/StudyLayout.h"
#include "train/Snapshot.h"

#include <optional>
#include <string>
#include <vector>

namespace ml {

struct TrialOutcome {
    int trial = 0;
    stats::TrialPoint point;  // the values of the optimizer's search keys (phase 2: the chosen ones)
    std::string status;       // "done" or "diverged at step N" (train/RunStatus.h words)
    std::vector<StepMetrics> metrics;
    bool diverged() const { return status != "done"; }
};

// The trial's folder when its trial.json says it finished; nothing when it did not (or is
// missing). Throws InputError naming the file when a finished trial's files cannot be read.
std::optional<TrialOutcome> readTrialOutcome(const StudyLayout& layout, int trial);

// Throws InputError naming trial.json unless it describes this trial of this study: its number,
// phase, task, optimizer, seed and the study's digest (an edited study.json no longer owns it), a
// finished status ("done", "diverged at step N") and, for a tuning trial, the plan's point.
void checkTrialMarker(const StudyLayout& layout, int trial);

// Writes trial.json (atomically, last): the trial, its phase, task, optimizer, seed, point, status.
void writeTrialMarker(const StudyLayout& layout, int trial, const stats::TrialPoint& point, const std::string& status);

// The score a tuning trial gets under the study's selection metric (lower is better; a diverged
// run or one that never evaluated scores infinity).
double selectionScore(const Study& study, const TrialOutcome& outcome);
// The last evaluated loss (NaN when none) and the best accuracy (NaN when none) of a run.
double finalEvaluatedLoss(const std::vector<StepMetrics>& metrics);
double bestEvaluatedAccuracy(const std::vector<StepMetrics>& metrics);
double finalEvaluatedAccuracy(const std::vector<StepMetrics>& metrics);

struct Selection {
    int tuningTrial = 0;  // the trial index (StudyPlan numbering)
    int number = 0;       // the optimizer's trial number (0 = defaults)
    double score = 0.0;
};
// Throws InputError naming the missing trials when phase 1 of this task and optimizer is unfinished.
Selection selectConfiguration(const StudyPlan& plan, const StudyLayout& layout, int task, int optimizer);

}  // namespace ml
