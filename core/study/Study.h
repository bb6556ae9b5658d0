#pragma once
// A study: several optimizers compared credibly on one or more tasks (DeepOBS; Schmidt et al.
// 2021): each optimizer gets the same tuning budget over its declared search space (its untuned
// defaults always one of the trials), the best configuration is chosen on validation data and
// re-run on several seeds, reported on test data. The file format (docs/guide/studies.md) is an experiment
// file (experiment/ExperimentJson.h) plus a "study" section; this is its parsed form.
#include "stats/SearchSpace.h"
#include "experiment/Experiment.h"

#include <QJsonObject>
#include <QString>

#include <cstdint>
#include <string>
#include <vector>

namespace ml {

// How phase 1 ranks the trials of one optimizer on one task (lower score is better).
enum class SelectionMetric {
    FinalValidationLoss,     // the validation loss at the last evaluation
    BestValidationAccuracy,  // the highest validation accuracy of any evaluation (score: 1 - it)
    StepsToTarget,           // the first step with validation loss <= target (never: infinity)
};
std::string toString(SelectionMetric metric);  // "final-validation-loss", ...

struct StudyTask {
    std::string name;       // names the task's folders
    Experiment experiment;  // its runs are the study's optimizers, with their untuned defaults
};

struct StudyOptimizer {
    std::string label;                          // the run label: the same in every task
    std::vector<stats::SearchDimension> space;  // each key a real hyper-parameter the optimizer reads
};

// A refining search (docs/guide/studies.md#refining-search): after round 0 (the defaults and the
// declared coarse grid), `rounds` more rounds of `points` candidates each, planned from the rounds
// before: around the best value so far at half the previous spacing, or past the edge of what was
// searched (at the coarse spacing) while the best value sits on that edge.
struct Refinement {
    int rounds = 0;  // 0: no refinement
    int points = 2;  // candidates per refining round
    bool declared() const { return rounds > 0; }
};

// How a candidate's tuning seeds are summarised into its selection score.
enum class TuningStatistic { Median, Mean };
std::string toString(TuningStatistic statistic);  // "median", "mean"

struct Study {
    std::string name;
    std::vector<StudyTask> tasks;
    std::vector<StudyOptimizer> optimizers;  // in the order of the experiment's runs
    int budget = 8;                          // tuning trials per optimizer and task, defaults included
    std::uint64_t searchSeed = 0;            // where the quasi-random sequence starts
    SelectionMetric selection = SelectionMetric::FinalValidationLoss;
    double target = 0.0;  // a loss; > 0 when given (steps-to-target, time to target in the report)
    bool hasTarget() const { return target > 0.0; }
    int seeds = 10;  // final re-runs per optimizer and task: seeds seed+1 .. seed+seeds (tuning: seed)
    Refinement refine;
    // Each candidate runs on this many tuning seeds: seed, then seed+seeds+1 .. seed+seeds+k-1, all
    // apart from the final seeds; the budget counts trials, so it is `tuningSeeds` x the candidates.
    int tuningSeeds = 1;
    TuningStatistic tuningStatistic = TuningStatistic::Median;
    int candidates() const { return budget / tuningSeeds; }  // per optimizer and task, defaults included
    // The seed of tuning seed `index` (0 .. tuningSeeds-1) of a task whose experiment seed is `seed`.
    std::uint64_t tuningSeed(std::uint64_t seed, int index) const {
        return index == 0 ? seed : seed + std::uint64_t(seeds) + std::uint64_t(index);
    }
    // Whether the trial files record rounds and tuning seeds (studies without either keep the old columns).
    bool recordsRounds() const { return refine.declared() || tuningSeeds > 1; }
    // The study file's digest (16 hex digits of the SHA-256 of its JSON, keys sorted, no spaces):
    // each trial.json records it, so a trial of an edited study is not taken for one of this study.
    std::string digest;
};

// Parses the study; every error names `source` and the field ("S.json: study.search.adam.lr: ...").
// Throws InputError.
Study studyFromJson(const QJsonObject& json, const std::string& source);
// Reads a study file (syntax errors as FILE:LINE:COLUMN). Throws InputError.
Study loadStudy(const QString& path);

}  // namespace ml
