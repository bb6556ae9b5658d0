#pragma once
// Every trial of a study, numbered once for all front ends (the local runner, --list, --trial K,
// Slurm array tasks): first phase 1 (tuning: round, task, optimizer, trial; trial 0 is the untuned
// defaults), then phase 2 (final runs: task, optimizer, seed). Each trial is an ordinary
// single-run folder under the study folder (layout: study/StudyLayout.h).
// A tuning trial runs one candidate configuration on one tuning seed. Round 0 holds the defaults
// and the declared space's points, known from the study alone; the candidates of a refining round
// (study.refine) are planned from the rounds before it when it runs (study/TuningRounds.h), as
// phase 2's configuration is chosen from phase 1. Each round's trials are numbered together.
#include "stats/SearchSpace.h"
#include "study/Study.h"

#include <QString>

#include <cstdint>
#include <vector>

namespace ml {

enum class StudyPhase { Tuning, Final };

struct StudyTrial {
    int index = 0;
    StudyPhase phase = StudyPhase::Tuning;
    int task = 0;
    int optimizer = 0;
    // tuning: the trial of this optimizer and task, candidate x tuning seeds + tuning seed (0 =
    // the defaults on the first tuning seed); final: the seed's index
    int number = 0;
    std::uint64_t seed = 0;
    int round = 0;       // tuning: the search round (0: the defaults and the declared space; 1..: refining)
    int candidate = 0;   // tuning: the configuration tried, 0 = the defaults; in order of the rounds
    int tuningSeed = 0;  // tuning: which tuning seed (0: the experiment's seed; Study::tuningSeed)
};

class StudyPlan {
public:
    // Throws InputError when the search spaces cannot give the budget (checked by studyFromJson too).
    explicit StudyPlan(Study study);

    const Study& study() const { return study_; }
    int trialCount() const { return static_cast<int>(trials_.size()); }
    int tuningCount() const { return tuningCount_; }
    const StudyTrial& trial(int index) const;  // throws InputError naming the range

    // The hyper-parameter values of round 0's candidate `candidate` of `optimizer`, in the order of
    // its space; empty for candidate 0 (the defaults). A refining round's candidates are planned
    // when it runs (study/TuningRounds.h).
    const stats::TrialPoint& point(int optimizer, int candidate) const;
    // The declared search space of an optimizer (round 0's grid; a refining search goes beyond it).
    const std::vector<stats::SearchDimension>& space(int optimizer) const { return study_.optimizers[optimizer].space; }
    // The tuning trials of one optimizer on one task, in order (of their numbers).
    std::vector<int> tuningTrials(int task, int optimizer) const;
    std::vector<int> finalTrials(int task, int optimizer) const;

    // Search rounds: 1 + study.refine.rounds. Round r's trials are [roundBegin(r), roundBegin(r + 1)).
    int rounds() const { return static_cast<int>(roundBegins_.size()) - 1; }
    int roundBegin(int round) const { return roundBegins_[round]; }
    // The candidates of round `round` (of every optimizer and task): [first, first + count).
    int firstCandidate(int round) const;
    int candidateCount(int round) const;
    // The tuning trials of one round of one optimizer on one task, in order.
    std::vector<int> roundTrials(int round, int task, int optimizer) const;

    // The single-run experiment a trial trains: the task, the optimizer's run with `point` applied,
    // the trial's seed and holdout (validation for tuning, test for final runs).
    Experiment experiment(const StudyTrial& trial, const stats::TrialPoint& point) const;

private:
    Study study_;
    std::vector<StudyTrial> trials_;
    int tuningCount_ = 0;
    std::vector<int> roundBegins_;                        // per round, and the end of the last
    std::vector<std::vector<stats::TrialPoint>> points_;  // round 0's: [optimizer][candidate]
};

// "lr=0.01 momentum=0.9" for the point's keys (the defaults' values for trial 0), as labels show it.
std::string describePoint(const StudyOptimizer& optimizer, const RunSpec& run, const stats::TrialPoint& point);

}  // namespace ml
