#include "study/Study.h"

#include "InputError.h"
#include "io/JsonFile.h"
#include "optim/OptimizerCatalog.h"
#include "experiment/ExperimentJson.h"
#include "runfolder/RunFolderLayout.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <stdexcept>

namespace ml {

namespace {

const char* const kStudyKeys[] = {"tasks",  "budget", "search",       "search-seed",      "selection",
                                  "target", "seeds",  "tuning-seeds", "tuning-statistic", "refine"};
constexpr const char* kEveryOptimizer = "*";

std::string quoted(const QString& text) { return "\"" + text.toStdString() + "\""; }

int requireWhole(const QJsonObject& json, const char* key, int fallback, int low, int high,
                 const std::string& context) {
    const QJsonValue value = json.value(QLatin1String(key));
    if (value.isUndefined()) return fallback;
    const double number = value.toDouble(NAN);
    if (!value.isDouble() || !(number >= low && number <= high) || std::floor(number) != number)
        throw InputError(context + "." + key + ": expected a whole number from " + std::to_string(low) + " to " +
                         std::to_string(high));
    return static_cast<int>(number);
}

SelectionMetric selectionFromString(const std::string& text, const std::string& context) {
    for (const SelectionMetric metric : {SelectionMetric::FinalValidationLoss, SelectionMetric::BestValidationAccuracy,
                                         SelectionMetric::StepsToTarget})
        if (text == toString(metric)) return metric;
    throw InputError(context + ": \"" + text +
                     "\" is not a selection metric; expected final-validation-loss, best-validation-accuracy or "
                     "steps-to-target");
}

// One numeric array of exactly `count` entries (0: any non-empty length).
std::vector<double> numbers(const QJsonValue& value, std::size_t count, const std::string& context,
                            const char* expected) {
    if (!value.isArray()) throw InputError(context + ": expected " + expected);
    std::vector<double> list;
    for (const QJsonValue& entry : value.toArray()) {
        if (!entry.isDouble()) throw InputError(context + ": expected " + expected);
        list.push_back(entry.toDouble());
    }
    if (list.empty() || (count > 0 && list.size() != count)) throw InputError(context + ": expected " + expected);
    return list;
}

// {"grid": [v, ...]}, {"log-grid": [low, high, points]}, {"uniform": [low, high]}, {"log-uniform": [low, high]}.
stats::SearchDimension dimensionFromJson(const std::string& key, const QJsonValue& value, const std::string& context) {
    const char* const forms =
        "one of {\"grid\": [v, ...]}, {\"log-grid\": [low, high, points]}, "
        "{\"uniform\": [low, high]}, {\"log-uniform\": [low, high]}";
    if (!value.isObject() || value.toObject().size() != 1) throw InputError(context + ": expected " + forms);
    const QString form = value.toObject().begin().key();
    const QJsonValue arguments = value.toObject().begin().value();
    const std::string where = context + "." + form.toStdString();
    stats::SearchDimension dimension;
    dimension.key = key;
    if (form == "grid") {
        dimension.grid = numbers(arguments, 0, where, "a non-empty array of numbers");
    } else if (form == "log-grid") {
        const std::vector<double> a =
            numbers(arguments, 3, where, "[low, high, points] with 0 < low < high, points >= 2");
        if (!(a[0] > 0 && a[0] < a[1]) || a[2] < 2 || a[2] > 1000 || std::floor(a[2]) != a[2])
            throw InputError(where + ": expected [low, high, points] with 0 < low < high and 2 <= points <= 1000");
        const int points = static_cast<int>(a[2]);
        for (int i = 0; i < points; ++i)  // low * (high/low)^(i/(points-1)), ends exact
            dimension.grid.push_back(i == points - 1 ? a[1] : a[0] * std::pow(a[1] / a[0], double(i) / (points - 1)));
    } else if (form == "uniform" || form == "log-uniform") {
        const std::vector<double> a = numbers(arguments, 2, where, "[low, high]");
        dimension.kind =
            form == "uniform" ? stats::SearchDimension::Kind::Uniform : stats::SearchDimension::Kind::LogUniform;
        dimension.low = a[0];
        dimension.high = a[1];
    } else {
        throw InputError(context + ": unknown form \"" + form.toStdString() + "\"; expected " + forms);
    }
    try {
        dimension.validate();
    } catch (const std::invalid_argument& error) {
        throw InputError(where + ": " + error.what());
    }
    return dimension;
}

// Checks every value the space can produce against the optimizer's range for that key.
void checkValues(const stats::SearchDimension& dimension, const RunSpec& run, const std::string& context) {
    const ParameterField& field = *findParameterField(dimension.key);
    std::vector<double> values = dimension.grid;
    if (dimension.kind != stats::SearchDimension::Kind::Grid) values = {dimension.low, dimension.high};
    for (const double value : values) {
        HyperParameters hp = run.hp;
        field.setReal(hp, value, context);  // throws InputError with the range
        // Rounding is monotonic: a range whose ends survive float32 has no point that does not.
        requireFloat32Value(field, value, context);
    }
}

std::vector<stats::SearchDimension> spaceFromJson(const QJsonObject& json, const RunSpec& run,
                                                  const std::string& context) {
    std::vector<stats::SearchDimension> space;
    const OptimizerInfo& info = optimizerInfo(run.optimizer);
    for (auto it = json.begin(); it != json.end(); ++it) {
        const std::string key = it.key().toStdString();
        const std::string where = context + "." + key;
        const ParameterField* field = findParameterField(key);
        if (!field) throw InputError(where + ": no hyper-parameter is called '" + key + "'");
        if (!info.uses(key))
            throw InputError(where + ": " + run.label + " (" + run.optimizer + ") has no hyper-parameter '" + key +
                             "'");
        if (field->kind != ParameterField::Kind::Real)
            throw InputError(where +
                             ": only numeric hyper-parameters can be searched; compare choices as separate runs");
        space.push_back(dimensionFromJson(key, it.value(), where));
        checkValues(space.back(), run, where);
    }
    return space;
}

// "refine": {"rounds": R, "points": P}.
Refinement refinementFromJson(const QJsonValue& value, const std::string& context) {
    if (!value.isObject())
        throw InputError(context + ": expected {\"rounds\": R, \"points\": P} (refining rounds after the grid)");
    const QJsonObject json = value.toObject();
    for (auto it = json.begin(); it != json.end(); ++it)
        if (it.key() != "rounds" && it.key() != "points")
            throw InputError(context + ": unknown key '" + it.key().toStdString() + "'; expected rounds, points");
    Refinement refine;
    refine.rounds = requireWhole(json, "rounds", 0, 1, 20, context);
    if (!json.contains("rounds")) throw InputError(context + ".rounds: missing; expected a whole number from 1 to 20");
    refine.points = requireWhole(json, "points", refine.points, 1, 50, context);
    return refine;
}

// A refining search works in log space on one hyper-parameter: a grid of positive values, ascending.
void requireRefinable(const StudyOptimizer& optimizer, const std::string& context) {
    const auto refuse = [&](const std::string& why) {
        return InputError(context + ": " + optimizer.label + ": a refining search (study.refine) " + why);
    };
    if (optimizer.space.size() != 1) throw refuse("needs exactly one searched hyper-parameter");
    const stats::SearchDimension& dimension = optimizer.space.front();
    if (dimension.kind != stats::SearchDimension::Kind::Grid || dimension.grid.size() < 2)
        throw refuse("starts from a grid of at least 2 values (grid or log-grid)");
    for (std::size_t i = 0; i < dimension.grid.size(); ++i)
        if (!(dimension.grid[i] > 0) || (i > 0 && !(dimension.grid[i] > dimension.grid[i - 1])))
            throw refuse("needs the grid's values positive and ascending (it refines in log space)");
}

std::vector<StudyTask> tasksFromJson(const QJsonObject& json, const QJsonObject& section, const std::string& source) {
    QJsonObject base = json;
    base.remove("study");
    if (base.contains("holdout"))
        throw InputError(source + ": holdout: a study sets it itself (validation for tuning, test for the final runs)");
    std::vector<StudyTask> tasks;
    const QJsonValue list = section.value("tasks");
    if (list.isUndefined()) {
        Experiment experiment = experimentFromJson(base, source);
        tasks.push_back({runFileName(experiment.data).toStdString(), std::move(experiment)});
        return tasks;
    }
    if (!list.isArray() || list.toArray().isEmpty())
        throw InputError(
            source +
            ": study.tasks: expected a non-empty array of tasks, e.g. [{\"name\": \"digits\", \"data\": \"digits\"}]");
    std::set<std::string> names;
    for (qsizetype i = 0; i < list.toArray().size(); ++i) {
        const std::string context = source + ": study.tasks[" + std::to_string(i) + "]";
        const QJsonValue entry = list.toArray()[i];
        if (!entry.isObject()) throw InputError(context + ": expected an object with a \"name\" and experiment keys");
        QJsonObject merged = base;
        std::string name;
        const QJsonObject task = entry.toObject();
        for (auto it = task.begin(); it != task.end(); ++it) {
            if (it.key() == "name") {
                name = it.value().toString().toStdString();
                if (!it.value().isString() || name.empty() || runFileName(name).toStdString() != name)
                    throw InputError(context +
                                     ".name: expected a non-empty name of letters, digits and - _ . + = @ "
                                     "(it names the task's folders)");
                continue;
            }
            if (it.key() == "runs" || it.key() == "holdout" || it.key() == "study")
                throw InputError(context + "." + it.key().toStdString() +
                                 ": not allowed in a task (the study's runs are "
                                 "the same in every task)");
            merged.insert(it.key(), it.value());
        }
        if (name.empty()) throw InputError(context + ".name: missing; every task needs a name");
        if (!names.insert(name).second)
            throw InputError(context + ".name: " + quoted(QString::fromStdString(name)) + " is used twice");
        tasks.push_back({name, experimentFromJson(merged, context)});
    }
    return tasks;
}

}  // namespace

std::string toString(SelectionMetric metric) {
    switch (metric) {
    case SelectionMetric::FinalValidationLoss: return "final-validation-loss";
    case SelectionMetric::BestValidationAccuracy: return "best-validation-accuracy";
    case SelectionMetric::StepsToTarget: return "steps-to-target";
    }
    return "final-validation-loss";
}

std::string toString(TuningStatistic statistic) { return statistic == TuningStatistic::Mean ? "mean" : "median"; }

Study studyFromJson(const QJsonObject& json, const std::string& source) {
    const QJsonValue sectionValue = json.value("study");
    if (!sectionValue.isObject())
        throw InputError(source +
                         ": study: missing; a study file is an experiment file with a \"study\" object "
                         "(see docs/guide/studies.md)");
    const QJsonObject section = sectionValue.toObject();
    for (auto it = section.begin(); it != section.end(); ++it)
        if (std::find(std::begin(kStudyKeys), std::end(kStudyKeys), it.key()) == std::end(kStudyKeys))
            throw InputError(source + ": study: unknown key '" + it.key().toStdString() +
                             "'; expected tasks, budget, search, search-seed, selection, target, seeds, tuning-seeds, "
                             "tuning-statistic, refine");

    Study study;
    study.digest =
        QCryptographicHash::hash(QJsonDocument(json).toJson(QJsonDocument::Compact), QCryptographicHash::Sha256)
            .toHex()
            .left(16)
            .toStdString();
    study.tasks = tasksFromJson(json, section, source);
    study.name = study.tasks.front().experiment.name;
    // The labels name the trials' folders, by the rule train's run folders follow.
    std::vector<std::string> labels;
    for (const RunSpec& run : study.tasks.front().experiment.runs) labels.push_back(run.label);
    try {
        checkRunFileNames(labels);
    } catch (const InputError& error) {
        throw InputError(source + ": " + error.what());
    }
    const std::string context = source + ": study";
    study.budget = requireWhole(section, "budget", study.budget, 1, 10000, context);
    study.seeds = requireWhole(section, "seeds", study.seeds, 1, 10000, context);
    study.tuningSeeds = requireWhole(section, "tuning-seeds", study.tuningSeeds, 1, 100, context);
    if (section.contains("tuning-statistic")) {
        const QJsonValue statistic = section.value("tuning-statistic");
        if (statistic == QJsonValue("median")) study.tuningStatistic = TuningStatistic::Median;
        else if (statistic == QJsonValue("mean")) study.tuningStatistic = TuningStatistic::Mean;
        else throw InputError(context + ".tuning-statistic: expected \"median\" or \"mean\" (over the tuning seeds)");
    }
    if (section.contains("refine")) study.refine = refinementFromJson(section.value("refine"), context + ".refine");
    if (study.budget % study.tuningSeeds != 0)
        throw InputError(context + ".budget: " + std::to_string(study.budget) + " trials cannot be shared by " +
                         std::to_string(study.tuningSeeds) +
                         " tuning seeds per candidate; expected a multiple of tuning-seeds (the budget counts trials)");
    // The final runs use seeds seed+1 .. seed+seeds and the further tuning seeds the ones after
    // them, which must not wrap past 2^64 - 1.
    const std::uint64_t seedsAfter = std::uint64_t(study.seeds) + std::uint64_t(study.tuningSeeds - 1);
    for (const StudyTask& task : study.tasks)
        if (task.experiment.seed > std::numeric_limits<std::uint64_t>::max() - seedsAfter)
            throw InputError(
                context + ".seeds: " + std::to_string(seedsAfter) +
                (study.tuningSeeds > 1 ? " final and tuning seeds after seed " : " final seeds after seed ") +
                std::to_string(task.experiment.seed) + " (task " + task.name +
                ") pass 2^64 - 1; expected a seed of at most " +
                std::to_string(std::numeric_limits<std::uint64_t>::max() - seedsAfter));
    if (section.contains("search-seed"))
        study.searchSeed = seedFromJson(section.value("search-seed"), context + ".search-seed");
    if (section.contains("selection")) {
        if (!section.value("selection").isString()) throw InputError(context + ".selection: expected a string");
        study.selection =
            selectionFromString(section.value("selection").toString().toStdString(), context + ".selection");
    }
    if (section.contains("target")) {
        const QJsonValue target = section.value("target");
        if (!target.isDouble() || !(target.toDouble() > 0) || !std::isfinite(target.toDouble()))
            throw InputError(context + ".target: expected a loss > 0 (the validation or test loss to reach)");
        study.target = target.toDouble();
    }
    if (study.selection == SelectionMetric::StepsToTarget && !study.hasTarget())
        throw InputError(context + ".target: missing; selection steps-to-target needs a target loss");

    const QJsonValue search = section.value("search");
    if (!search.isUndefined() && !search.isObject())
        throw InputError(context + ".search: expected an object: {\"*\": {\"lr\": {...}}, \"LABEL\": {...}}");
    const QJsonObject searchObject = search.toObject();
    const std::vector<RunSpec>& runs = study.tasks.front().experiment.runs;
    for (auto it = searchObject.begin(); it != searchObject.end(); ++it) {
        const bool known = it.key() == kEveryOptimizer || std::any_of(runs.begin(), runs.end(), [&](const RunSpec& r) {
                               return it.key().toStdString() == r.label;
                           });
        if (!known)
            throw InputError(context + ".search." + it.key().toStdString() +
                             ": no run is labelled so; expected \"*\" or a run label");
        if (!it.value().isObject())
            throw InputError(context + ".search." + it.key().toStdString() +
                             ": expected an object of hyper-parameters");
    }
    for (const RunSpec& run : runs) {
        const QString own = QString::fromStdString(run.label);
        const QString key = searchObject.contains(own) ? own : QString(kEveryOptimizer);
        const std::string where = context + ".search." + key.toStdString();
        StudyOptimizer optimizer{run.label, spaceFromJson(searchObject.value(key).toObject(), run, where)};
        // Equal budgets: every optimizer gets exactly `budget` trials, its defaults being one of
        // them: (1 + the space's points + the refining rounds' points) candidates x tuning seeds.
        const int refined = study.refine.rounds * study.refine.points;
        const int searched = study.candidates() - 1 - refined;
        if (study.candidates() > 1 && optimizer.space.empty())
            throw InputError(where + ": " + run.label + " has no search space but the budget is " +
                             std::to_string(study.budget) + " trials; give one (or budget 1: defaults only)");
        if (study.refine.declared()) requireRefinable(optimizer, where);
        if (searched < 0 || (study.refine.declared() && searched < 2))
            throw InputError(context + ".budget: " + std::to_string(study.budget) + " trials leave " +
                             std::to_string(std::max(searched, 0)) + " candidates for the search space after " +
                             std::to_string(refined) + " refining ones and the defaults (x " +
                             std::to_string(study.tuningSeeds) + " tuning seeds); expected a larger budget");
        if (searched > 0) {
            try {
                const auto points = stats::planTrials(optimizer.space, searched, study.searchSeed);
                if (static_cast<int>(points.size()) != searched && !study.recordsRounds())
                    throw std::invalid_argument("the grid has " + std::to_string(points.size()) +
                                                " points; with the "
                                                "untuned defaults that makes " +
                                                std::to_string(points.size() + 1) + " trials, but the budget is " +
                                                std::to_string(study.budget) +
                                                " (every optimizer gets the same number)");
                if (static_cast<int>(points.size()) != searched)
                    throw std::invalid_argument(
                        "the grid has " + std::to_string(points.size()) + " points; with the untuned defaults and " +
                        std::to_string(refined) + " refining candidates that makes " +
                        std::to_string(points.size() + 1 + refined) + " candidates x " +
                        std::to_string(study.tuningSeeds) +
                        " tuning seeds = " + std::to_string((points.size() + 1 + refined) * study.tuningSeeds) +
                        " trials, but the budget is " + std::to_string(study.budget) +
                        " (every optimizer gets the same number)");
            } catch (const std::invalid_argument& error) {
                throw InputError(where + ": " + error.what());
            }
        }
        study.optimizers.push_back(std::move(optimizer));
    }
    return study;
}

Study loadStudy(const QString& path) { return studyFromJson(readExperimentJson(path), path.toStdString()); }

}  // namespace ml
