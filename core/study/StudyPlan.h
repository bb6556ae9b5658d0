#pragma once
// Every trial of a study, numbered once for all front ends (the local runner, --list, --trial K,
// Slurm array tasks): first phase 1 (tuning: task, optimizer, trial; trial 0 is the untuned
// defaults), then phase 2 (final runs: task, optimizer, seed). Each trial is an ordinary
// single-run folder under the study folder (layout: study/StudyLayout.h).
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
    int number = 0;  // tuning: the trial of this optimizer and task (0 = defaults); final: the seed's index
    std::uint64_t seed = 0;
};

class StudyPlan {
public:
    // Throws InputError when the search spaces cannot give the budget (checked by studyFromJson too).
    explicit StudyPlan(Study study);

    const Study& study() const { return study_; }
    int trialCount() const { return static_cast<int>(trials_.size()); }
    int tuningCount() const { return tuningCount_; }
    const StudyTrial& trial(int index) const;  // throws InputError naming the range

    // The hyper-parameter values of tuning trial `number` of `optimizer`, in the order of its space;
    // empty for trial 0 (the defaults).
    const stats::TrialPoint& point(int optimizer, int number) const { return points_[optimizer][number]; }
    // The tuning trials of one optimizer on one task, in order.
    std::vector<int> tuningTrials(int task, int optimizer) const;
    std::vector<int> finalTrials(int task, int optimizer) const;

    // The single-run experiment a trial trains: the task, the optimizer's run with `point` applied,
    // the trial's seed and holdout (validation for tuning, test for final runs).
    Experiment experiment(const StudyTrial& trial, const stats::TrialPoint& point) const;

private:
    Study study_;
    std::vector<StudyTrial> trials_;
    int tuningCount_ = 0;
    std::vector<std::vector<stats::TrialPoint>> points_;  // [optimizer][number]
};

// "lr=0.01 momentum=0.9" for the point's keys (the defaults' values for trial 0), as labels show it.
std::string describePoint(const StudyOptimizer& optimizer, const RunSpec& run, const stats::TrialPoint& point);

}  // namespace ml
