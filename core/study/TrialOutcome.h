#pragma once
// What a finished trial left in its folder, and the score phase 1 ranks it by (the choice among
// the candidates: study/TuningRounds.h).
#include "study/StudyLayout.h"
#include "study/TrialMetrics.h"
#include "train/Snapshot.h"

#include <optional>
#include <string>
#include <vector>

namespace ml {

struct TrialOutcome {
    int trial = 0;
    stats::TrialPoint point;  // the values of the optimizer's search keys (phase 2: the chosen ones)
    std::string status;       // "done" or "diverged at step N" (train/RunStatus.h words)
    TrialMetrics metrics;     // metrics.csv streamed: figures over every row, curves for final runs
    bool diverged() const { return status != "done"; }
};

// The trial's folder when its trial.json says it finished; nothing when it did not (or is
// missing). Throws InputError naming the file when a finished trial's files cannot be read.
// Its metrics.csv is streamed (TrialMetrics), never held whole.
std::optional<TrialOutcome> readTrialOutcome(const StudyLayout& layout, int trial);

// Throws InputError naming trial.json unless it describes this trial of this study: its number,
// phase, task, optimizer, seed and the study's digest (an edited study.json no longer owns it), a
// finished status ("done", "diverged at step N") and, for a tuning trial of round 0, the plan's
// point (a refining round's point is planned from the rounds before; trial.json records it).
void checkTrialMarker(const StudyLayout& layout, int trial);

// Writes trial.json (atomically, last): the trial, its phase, task, optimizer, seed, point, status.
void writeTrialMarker(const StudyLayout& layout, int trial, const stats::TrialPoint& point, const std::string& status);

// The score a tuning trial gets under the study's selection metric (lower is better; a diverged
// run or one that never evaluated scores infinity).
double selectionScore(const Study& study, const TrialOutcome& outcome);
// The last evaluated loss (NaN when none) and the best accuracy (NaN when none) of a run.
double finalEvaluatedLoss(const TrialMetrics& metrics);
double bestEvaluatedAccuracy(const TrialMetrics& metrics);
double finalEvaluatedAccuracy(const TrialMetrics& metrics);

// The one rule for a final run's test figures, used by every results file (summary.csv,
// paired.csv, results.json): a diverged run counts as the worst outcome, never as a missing one —
// test loss infinity, test accuracy 0 (test error 1.0). Dropping it would make an optimizer that
// diverges on some seeds look as good as its surviving seeds. A run that finished without an
// evaluated value keeps NaN (a regression task has no accuracy); its loss counts as infinity.
double finalTestLoss(const TrialOutcome& outcome);
double finalTestAccuracy(const TrialOutcome& outcome);
double finalTestError(const TrialOutcome& outcome);  // 1 - finalTestAccuracy

struct Selection {
    int tuningTrial = 0;      // the trial index (StudyPlan numbering) of the chosen candidate's first tuning seed
    int number = 0;           // that trial's number (0 = the defaults)
    int candidate = 0;        // the chosen candidate (0 = the defaults)
    stats::TrialPoint point;  // its values (empty for the defaults)
    double score = 0.0;       // its score: the tuning statistic over its tuning seeds
};
// Phase 1's choice over every round (study/TuningRounds.cpp): the candidate with the lowest score
// on validation data, then the lower final validation loss, then the earlier one (the untuned
// defaults first). Throws InputError naming the missing trials when phase 1 of this task and
// optimizer is unfinished.
Selection selectConfiguration(const StudyPlan& plan, const StudyLayout& layout, int task, int optimizer);

}  // namespace ml
