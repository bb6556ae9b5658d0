#pragma once
// Phase 1's candidates as the trial folders record them: each candidate's score over its tuning
// seeds (their median or mean), the choice among them, and the refining search's rounds — round
// r's candidates planned from the rounds before it (docs/guide/studies.md#refining-search). The
// planning depends only on the finished trials' files, so every front end (the local runner,
// --trial K, a Slurm array per round, a resumed run) plans the same candidates.
#include "study/TrialOutcome.h"

#include <functional>
#include <vector>

namespace ml {

// One candidate configuration of one optimizer on one task.
struct CandidateOutcome {
    int candidate = 0;  // 0: the untuned defaults
    int round = 0;
    stats::TrialPoint point;     // as trial.json records it (empty for the defaults)
    std::vector<double> values;  // each searched key's value, the defaults' filled in
    std::vector<int> trials;     // its finished tuning trials, by tuning seed
    std::vector<double> scores;  // their selection scores
    double score = 0.0;          // the tuning statistic (median or mean) of `scores`
    double tieBreak = 0.0;       // the same of their final validation losses (diverged: infinity)
};

// The candidates of rounds [0, rounds) of one optimizer on one task whose every tuning seed
// finished, in candidate order; `missing` lists the trials of those rounds that did not. These
// are the values searched so far (what an edge of the search is judged against).
struct CandidateTable {
    std::vector<CandidateOutcome> candidates;
    std::vector<int> missing;
};
CandidateTable readCandidates(const StudyLayout& layout, int task, int optimizer, int rounds);

// The median or mean of a candidate's figures over its tuning seeds (an infinity counts as one).
double tuningStatistic(TuningStatistic statistic, std::vector<double> values);

// The best of `candidates`: the lowest score, then the lower tie-break, then the earlier
// candidate (the defaults first). -1 when there is none.
int bestCandidate(const std::vector<CandidateOutcome>& candidates);

// The points of round `round`'s candidates of one optimizer on one task, in candidate order:
// round 0's from the plan, a refining round's planned from the rounds before. Throws InputError
// naming the missing trials when an earlier round is unfinished.
std::vector<stats::TrialPoint> roundPoints(const StudyLayout& layout, int round, int task, int optimizer);

// The values of refining round `round` (>= 1) of a one-dimensional search over positive values,
// `count` of them, none already in `values` (every value evaluated so far; `best` indexes the
// best one). Worked in log space: while the best value is the highest (lowest) one searched, the
// round first extends past that edge at the coarse spacing `coarseStep` (a log difference); the
// rest bisects the wider of the intervals next to the best value, again and again (half a
// decade's grid: quarter-decade values next, then eighth-decade ones). `allowed` says whether the
// hyper-parameter may take a value. Throws InputError when no `count` values fit.
std::vector<double> planRefiningRound(const std::vector<double>& values, int best, double coarseStep, int round,
                                      int count, const std::function<bool(double)>& allowed);

}  // namespace ml
