#include "study/StudyPlan.h"

#include "InputError.h"
#include "io/MemoryBudget.h"
#include "optim/HyperParameters.h"

#include <cstdint>
#include <limits>
#include <stdexcept>

namespace ml {

namespace {

// The plan holds one entry per trial: counted, and checked against the trial numbering (an int)
// and the memory budget, before anything is planned.
void checkTrialCount(const Study& study) {
    const std::uint64_t perPair = std::uint64_t(study.budget) + std::uint64_t(study.seeds);
    const std::uint64_t count =
        saturatingProduct(saturatingProduct(study.tasks.size(), study.optimizers.size()), perPair);
    const std::string what = "study plan of " + std::to_string(count) + " trials (" +
                             std::to_string(study.tasks.size()) + " tasks x " +
                             std::to_string(study.optimizers.size()) + " optimizers x (budget " +
                             std::to_string(study.budget) + " + " + std::to_string(study.seeds) + " seeds))";
    if (count > std::uint64_t(std::numeric_limits<int>::max()))
        throw InputError(what + ": expected at most " + std::to_string(std::numeric_limits<int>::max()) + " trials");
    requireWithinMemoryBudget(saturatingProduct(count, sizeof(StudyTrial)), what);
}

}  // namespace

StudyPlan::StudyPlan(Study study) : study_(std::move(study)) {
    checkTrialCount(study_);
    for (const StudyOptimizer& optimizer : study_.optimizers) {
        std::vector<stats::TrialPoint> points{stats::TrialPoint{}};  // candidate 0: the defaults
        if (candidateCount(0) > 1) {
            try {
                for (stats::TrialPoint& p :
                     stats::planTrials(optimizer.space, candidateCount(0) - 1, study_.searchSeed))
                    points.push_back(std::move(p));
            } catch (const std::invalid_argument& error) {
                throw InputError("study.search (" + optimizer.label + "): " + error.what());
            }
        }
        points_.push_back(std::move(points));
    }
    const int tasks = static_cast<int>(study_.tasks.size());
    const int optimizers = static_cast<int>(study_.optimizers.size());
    const int seeds = study_.tuningSeeds;
    for (int r = 0; r <= study_.refine.rounds; ++r) {
        roundBegins_.push_back(static_cast<int>(trials_.size()));
        for (int t = 0; t < tasks; ++t)
            for (int o = 0; o < optimizers; ++o)
                for (int c = firstCandidate(r); c < firstCandidate(r) + candidateCount(r); ++c)
                    for (int s = 0; s < seeds; ++s) {
                        StudyTrial trial{0, StudyPhase::Tuning, t, o, c * seeds + s, 0};
                        trial.seed = study_.tuningSeed(study_.tasks[t].experiment.seed, s);
                        trial.round = r;
                        trial.candidate = c;
                        trial.tuningSeed = s;
                        trials_.push_back(trial);
                    }
    }
    tuningCount_ = static_cast<int>(trials_.size());
    roundBegins_.push_back(tuningCount_);
    for (int t = 0; t < tasks; ++t)
        for (int o = 0; o < optimizers; ++o)
            for (int s = 0; s < study_.seeds; ++s)
                trials_.push_back(
                    {0, StudyPhase::Final, t, o, s, study_.tasks[t].experiment.seed + 1 + std::uint64_t(s)});
    for (int k = 0; k < trialCount(); ++k) trials_[k].index = k;
}

int StudyPlan::candidateCount(int round) const {
    return round == 0 ? study_.candidates() - study_.refine.rounds * study_.refine.points : study_.refine.points;
}

int StudyPlan::firstCandidate(int round) const {
    return round == 0 ? 0 : candidateCount(0) + (round - 1) * study_.refine.points;
}

const stats::TrialPoint& StudyPlan::point(int optimizer, int candidate) const {
    if (candidate < 0 || candidate >= candidateCount(0))
        throw std::logic_error("StudyPlan::point: candidate " + std::to_string(candidate) +
                               " is not one of round 0's; a refining round's are planned from the rounds before");
    return points_[optimizer][candidate];
}

std::vector<int> StudyPlan::roundTrials(int round, int task, int optimizer) const {
    std::vector<int> list;
    for (int k = roundBegin(round); k < roundBegin(round + 1); ++k)
        if (trials_[k].task == task && trials_[k].optimizer == optimizer) list.push_back(k);
    return list;
}

const StudyTrial& StudyPlan::trial(int index) const {
    if (index < 0 || index >= trialCount())
        throw InputError("--trial: " + std::to_string(index) + " is not a trial of this study; expected 0 to " +
                         std::to_string(trialCount() - 1));
    return trials_[index];
}

std::vector<int> StudyPlan::tuningTrials(int task, int optimizer) const {
    std::vector<int> list;
    for (int k = 0; k < tuningCount_; ++k)
        if (trials_[k].task == task && trials_[k].optimizer == optimizer) list.push_back(k);
    return list;  // rounds in order, so numbers ascend
}

std::vector<int> StudyPlan::finalTrials(int task, int optimizer) const {
    std::vector<int> list;
    for (int k = tuningCount_; k < trialCount(); ++k)
        if (trials_[k].task == task && trials_[k].optimizer == optimizer) list.push_back(k);
    return list;
}

Experiment StudyPlan::experiment(const StudyTrial& trial, const stats::TrialPoint& point) const {
    const StudyTask& task = study_.tasks[trial.task];
    const StudyOptimizer& optimizer = study_.optimizers[trial.optimizer];
    Experiment experiment = task.experiment;
    RunSpec run = experiment.runs[trial.optimizer];
    for (std::size_t d = 0; d < point.size(); ++d)
        findParameterField(optimizer.space[d].key)->setReal(run.hp, point[d], "study.search." + optimizer.label);
    experiment.runs = {run};
    experiment.seed = trial.seed;
    experiment.holdout = trial.phase == StudyPhase::Tuning ? Holdout::Validation : Holdout::Test;
    experiment.name = study_.name + " / " + task.name + " / " + optimizer.label +
                      (trial.phase == StudyPhase::Tuning ? " / trial " : " / seed ") +
                      std::to_string(trial.phase == StudyPhase::Tuning ? trial.number : long(trial.seed));
    return experiment;
}

std::string describePoint(const StudyOptimizer& optimizer, const RunSpec& run, const stats::TrialPoint& point) {
    std::string text;
    for (std::size_t d = 0; d < optimizer.space.size(); ++d) {
        const ParameterField& field = *findParameterField(optimizer.space[d].key);
        HyperParameters hp = run.hp;
        if (d < point.size()) field.setReal(hp, point[d], optimizer.label);
        text += (text.empty() ? "" : " ") + field.key + "=" + field.get(hp);
    }
    return text;
}

}  // namespace ml
