#include "study/TuningRounds.h"

#include "InputError.h"
#include "optim/HyperParameters.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace ml {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

std::string missingTrials(const std::vector<int>& missing) {
    std::string text;
    for (std::size_t i = 0; i < missing.size() && i < 5; ++i) text += (i == 0 ? "" : ", ") + std::to_string(missing[i]);
    return std::to_string(missing.size()) + " tuning trial(s) missing (" + text + (missing.size() > 5 ? ", ..." : "") +
           ")";
}

// The smallest log spacing of a grid (ascending, positive: Study checks it for a refining search).
double coarseLogStep(const stats::SearchDimension& dimension) {
    double step = kInfinity;
    for (std::size_t i = 1; i < dimension.grid.size(); ++i)
        step = std::min(step, std::log(dimension.grid[i]) - std::log(dimension.grid[i - 1]));
    return step;
}

double roundToSignificantDigits(double value, int digits) {
    const double scale = std::pow(10.0, digits - 1 - std::floor(std::log10(value)));
    return std::round(value * scale) / scale;
}

}  // namespace

double tuningStatistic(TuningStatistic statistic, std::vector<double> values) {
    if (values.empty()) return kInfinity;
    if (statistic == TuningStatistic::Mean)
        return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
    std::sort(values.begin(), values.end());
    const std::size_t half = values.size() / 2;
    if (values.size() % 2 == 1) return values[half];
    const double low = values[half - 1], high = values[half];
    return std::isinf(high) ? high : low + (high - low) / 2;
}

CandidateTable readCandidates(const StudyLayout& layout, int task, int optimizer, int rounds) {
    const StudyPlan& plan = layout.plan();
    const Study& study = plan.study();
    const StudyOptimizer& searched = study.optimizers[optimizer];
    const RunSpec& run = study.tasks[task].experiment.runs[optimizer];
    CandidateTable table;
    CandidateOutcome current;
    std::vector<double> losses;
    bool complete = true;
    const auto close = [&] {
        if (complete && !current.trials.empty()) {
            current.score = tuningStatistic(study.tuningStatistic, current.scores);
            current.tieBreak = tuningStatistic(study.tuningStatistic, losses);
            for (std::size_t d = 0; d < searched.space.size(); ++d)
                current.values.push_back(d < current.point.size()
                                             ? current.point[d]
                                             : findParameterField(searched.space[d].key)->getReal(run.hp));
            table.candidates.push_back(std::move(current));
        }
        current = {};
        losses.clear();
        complete = true;
    };
    for (int round = 0; round < std::min(rounds, plan.rounds()); ++round)
        for (const int k : plan.roundTrials(round, task, optimizer)) {
            const StudyTrial& trial = plan.trial(k);
            if (trial.tuningSeed == 0) close();
            current.candidate = trial.candidate;
            current.round = trial.round;
            const std::optional<TrialOutcome> outcome = readTrialOutcome(layout, k);
            if (!outcome) {
                table.missing.push_back(k);
                complete = false;
                continue;
            }
            if (!current.trials.empty() && outcome->point != current.point)
                throw InputError(layout.trialMarker(k).toStdString() +
                                 ": point: differs from the candidate's other tuning seeds; the file was edited");
            current.point = outcome->point;
            current.trials.push_back(k);
            current.scores.push_back(selectionScore(study, *outcome));
            const double loss = finalEvaluatedLoss(outcome->metrics);
            losses.push_back(outcome->diverged() || !std::isfinite(loss) ? kInfinity : loss);
        }
    close();
    return table;
}

int bestCandidate(const std::vector<CandidateOutcome>& candidates) {
    int best = -1;
    for (int i = 0; i < static_cast<int>(candidates.size()); ++i) {
        const CandidateOutcome& c = candidates[i];
        if (best < 0 || c.score < candidates[best].score ||
            (c.score == candidates[best].score && c.tieBreak < candidates[best].tieBreak))
            best = i;
    }
    return best;
}

Selection selectConfiguration(const StudyPlan& plan, const StudyLayout& layout, int task, int optimizer) {
    const CandidateTable table = readCandidates(layout, task, optimizer, plan.rounds());
    if (!table.missing.empty())
        throw InputError("phase 1 of " + plan.study().tasks[task].name + " / " +
                         plan.study().optimizers[optimizer].label + " is unfinished: " + missingTrials(table.missing) +
                         "; run them first");
    const CandidateOutcome& best = table.candidates[bestCandidate(table.candidates)];
    return {best.trials.front(), plan.trial(best.trials.front()).number, best.candidate, best.point, best.score};
}

std::vector<double> planRefiningRound(const std::vector<double>& values, int best, double coarseStep, int round,
                                      int count, const std::function<bool(double)>& allowed) {
    std::vector<double> taken;  // log values evaluated or chosen
    for (const double v : values) taken.push_back(std::log(v));
    const double centre = taken[best];
    const double tolerance = 1e-9 * coarseStep;
    const auto usable = [&](double x) {
        const double value = std::exp(x);
        return std::isfinite(value) && value > 0 && allowed(value) &&
               std::none_of(taken.begin(), taken.end(), [&](double y) { return std::abs(x - y) <= tolerance; });
    };
    std::vector<double> chosen;
    // Snapped to 12 significant digits so a decade past 1 reads 10, not exp(log(10))'s 9.99999999999998;
    // the optimizers train in float32, so the trajectories are the same.
    const auto choose = [&](double x) {
        taken.push_back(x);
        chosen.push_back(roundToSignificantDigits(std::exp(x), 12));
    };
    // Past an edge: the best value is the highest (lowest) one searched.
    const bool top = std::all_of(taken.begin(), taken.end(), [&](double x) { return x <= centre + tolerance; });
    const bool bottom = std::all_of(taken.begin(), taken.end(), [&](double x) { return x >= centre - tolerance; });
    for (int j = 1; j <= count && top != bottom; ++j)
        if (const double x = centre + (top ? j : -j) * coarseStep; usable(x)) choose(x);
    // Inside: bisect the wider of the intervals next to the best value (the lower one on a tie).
    while (static_cast<int>(chosen.size()) < count) {
        double below = -INFINITY, above = INFINITY;
        for (const double x : taken) {
            if (x < centre - tolerance) below = std::max(below, x);
            if (x > centre + tolerance) above = std::min(above, x);
        }
        const double widthBelow = centre - below, widthAbove = above - centre;  // infinite: no neighbour
        const bool lower = std::isfinite(widthBelow) && (!std::isfinite(widthAbove) || widthBelow >= widthAbove);
        const double x = lower ? centre - widthBelow / 2 : centre + widthAbove / 2;
        if (!std::isfinite(x) || !usable(x))
            throw InputError("refining round " + std::to_string(round) + ": only " + std::to_string(chosen.size()) +
                             " of " + std::to_string(count) + " new values fit the hyper-parameter's range");
        choose(x);
    }
    return chosen;
}

std::vector<stats::TrialPoint> roundPoints(const StudyLayout& layout, int round, int task, int optimizer) {
    const StudyPlan& plan = layout.plan();
    std::vector<stats::TrialPoint> points;
    if (round == 0) {
        for (int c = 0; c < plan.candidateCount(0); ++c) points.push_back(plan.point(optimizer, c));
        return points;
    }
    const Study& study = plan.study();
    const StudyOptimizer& searched = study.optimizers[optimizer];
    const CandidateTable table = readCandidates(layout, task, optimizer, round);
    if (!table.missing.empty())
        throw InputError("round " + std::to_string(round) + " of " + study.tasks[task].name + " / " + searched.label +
                         " is planned from the rounds before it, which are unfinished: " +
                         missingTrials(table.missing) + "; run them first");
    std::vector<double> values;
    for (const CandidateOutcome& c : table.candidates) values.push_back(c.values.front());
    const stats::SearchDimension& dimension = searched.space.front();
    const ParameterField& field = *findParameterField(dimension.key);
    const RunSpec& run = study.tasks[task].experiment.runs[optimizer];
    const auto allowed = [&](double value) {
        try {
            HyperParameters hp = run.hp;
            field.setReal(hp, value, searched.label);
            requireFloat32Value(field, value, searched.label);
            return true;
        } catch (const InputError&) {
            return false;
        }
    };
    try {
        for (const double value : planRefiningRound(values, bestCandidate(table.candidates), coarseLogStep(dimension),
                                                    round, plan.candidateCount(round), allowed))
            points.push_back({value});
    } catch (const InputError& error) {
        throw InputError(study.tasks[task].name + " / " + searched.label + ": " + error.what());
    }
    return points;
}

}  // namespace ml
