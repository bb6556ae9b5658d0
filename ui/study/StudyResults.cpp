#include "study/StudyResults.h"

#include "InputError.h"
#include "io/Files.h"
#include "io/JsonFile.h"
#include "study/StudyAggregate.h"
#include "study/StudyRunner.h"
#include "runfolder/RunCsv.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ml {

namespace {

// results.json writes NaN as null and infinity as "inf" (StudyAggregate.cpp).
double jsonNumber(const QJsonValue& value) {
    if (value.isString()) {
        const QString text = value.toString();
        if (text == "inf") return std::numeric_limits<double>::infinity();
        if (text == "-inf") return -std::numeric_limits<double>::infinity();
    }
    return value.isDouble() ? value.toDouble() : NAN;
}

SeedSummary summaryOf(const QJsonObject& json) {
    return {jsonNumber(json["median"]), jsonNumber(json["q1"]),     jsonNumber(json["q3"]),
            jsonNumber(json["mean"]),   jsonNumber(json["ci_low"]), jsonNumber(json["ci_high"])};
}

ChoiceFragility fragilityOf(const QJsonObject& json) {
    ChoiceFragility f;
    if (json.isEmpty()) return f;
    f.known = true;
    f.score = jsonNumber(json["score"]);
    f.tuningSeeds = json["tuning_seeds"].toInt(1);
    f.stability = jsonNumber(json["stability"]);
    for (const QJsonValue& value : json["parameters"].toArray()) {
        const QJsonObject p = value.toObject();
        ChoiceParameter c;
        c.parameter = p["parameter"].toString();
        c.value = jsonNumber(p["value"]);
        c.searchedLow = jsonNumber(p["searched_low"]);
        c.searchedHigh = jsonNumber(p["searched_high"]);
        c.below = p["below"].toString();
        c.above = p["above"].toString();
        c.lowerValue = jsonNumber(p["lower_neighbour"]["value"]);
        c.lowerScore = jsonNumber(p["lower_neighbour"]["score"]);
        c.upperValue = jsonNumber(p["upper_neighbour"]["value"]);
        c.upperScore = jsonNumber(p["upper_neighbour"]["score"]);
        f.parameters.push_back(std::move(c));
    }
    return f;
}

QString text(const QByteArray& cell) { return QString::fromUtf8(cell); }

void readResultsJson(const QString& path, StudyResults& results) {
    const QJsonObject json = readJsonObject(path);
    results.name = json["study"].toString();
    results.selection = json["selection"].toString();
    results.target = json.contains("target") ? json["target"].toDouble() : NAN;
    results.baseline = json["baseline"].toString();
    results.profileCost = json["profile_cost"].toString();
    for (const QJsonValue& row : json["profile_costs"].toArray()) {
        std::vector<double> costs;
        for (const QJsonValue& cost : row.toArray()) costs.push_back(jsonNumber(cost));
        results.profileCosts.push_back(std::move(costs));
    }
    results.finishedTrials = json["trials_finished"].toInt();
    results.totalTrials = json["trials_total"].toInt();
    for (const QJsonValue& warning : json["warnings"].toArray()) results.warnings << warning.toString();
    if (!json["tasks"].isArray())
        throw InputError(path.toStdString() + ": tasks: expected an array (a file written by aggregate)");
    for (const QJsonValue& task : json["tasks"].toArray()) {
        const QString taskName = task["task"].toString();
        for (const QJsonValue& entry : task["optimizers"].toArray()) {
            StudyOptimizerResult r;
            r.task = taskName;
            r.optimizer = entry["optimizer"].toString();
            r.configuration = entry["configuration"].toString();
            r.seeds = entry["seeds"].toInt();
            r.testLoss = summaryOf(entry["test_loss"].toObject());
            r.testAccuracy = summaryOf(entry["test_accuracy"].toObject());
            r.stepsToTargetMedian = jsonNumber(entry["steps_to_target_median"]);
            r.finalTestLoss = finalTestLosses(entry.toObject());
            r.fragility = fragilityOf(entry["fragility"].toObject());
            if (r.seeds == 0) r.testLoss = r.testAccuracy = {NAN, NAN, NAN, NAN, NAN, NAN};
            results.optimizerResults.push_back(std::move(r));
        }
    }
}

void readBands(const QString& path, StudyResults& results) {
    const QByteArray header = "task,optimizer,series,step,seeds,median,q1,q3,mean,mean_ci_low,mean_ci_high";
    const char* const columns[] = {"median", "q1", "q3", "mean", "mean_ci_low", "mean_ci_high"};
    for (const CsvRecord& record : csvRecords(readFileBytes(path), header, path)) {
        const QList<QByteArray>& f = record.fields;
        if (results.bands.empty() || results.bands.back().task != text(f[0]) ||
            results.bands.back().optimizer != text(f[1]) || results.bands.back().series != text(f[2]))
            results.bands.push_back({text(f[0]), text(f[1]), text(f[2]), {}});
        StudyBandPoint point;
        point.step = static_cast<long>(csvNumber(f[3], path, record.line, "step", false));
        point.seeds = static_cast<int>(csvNumber(f[4], path, record.line, "seeds", false));
        double* values[] = {&point.value.median, &point.value.q1,    &point.value.q3,
                            &point.value.mean,   &point.value.ciLow, &point.value.ciHigh};
        for (int c = 0; c < 6; ++c) *values[c] = csvNumber(f[5 + c], path, record.line, columns[c], true);
        results.bands.back().points.push_back(point);
    }
}

void readSensitivity(const QString& path, StudyResults& results) {
    for (const CsvRecord& record :
         csvRecords(readFileBytes(path), "task,optimizer,trial,parameter,value,score", path)) {
        const QList<QByteArray>& f = record.fields;
        SensitivityPoint point{text(f[0]),
                               text(f[1]),
                               text(f[3]),
                               static_cast<int>(csvNumber(f[2], path, record.line, "trial", false)),
                               csvNumber(f[4], path, record.line, "value", false),
                               csvNumber(f[5], path, record.line, "score", true),
                               QString()};
        if (!results.parameters.contains(point.parameter)) results.parameters.append(point.parameter);
        results.sensitivity.push_back(std::move(point));
    }
}

}  // namespace

const StudyBand* StudyResults::band(const QString& task, const QString& optimizer, const QString& series) const {
    for (const StudyBand& b : bands)
        if (b.task == task && b.optimizer == optimizer && b.series == series) return &b;
    return nullptr;
}

bool ChoiceFragility::onEdge() const {
    return std::any_of(parameters.begin(), parameters.end(), [](const ChoiceParameter& p) { return p.onEdge(); });
}

const ChoiceParameter* ChoiceFragility::parameter(const QString& name) const {
    for (const ChoiceParameter& p : parameters)
        if (p.parameter == name) return &p;
    return nullptr;
}

const StudyOptimizerResult* StudyResults::result(const QString& task, const QString& optimizer) const {
    for (const StudyOptimizerResult& r : optimizerResults)
        if (r.task == task && r.optimizer == optimizer) return &r;
    return nullptr;
}

std::map<int, TuningTrial> StudyResults::tuningTrials(const QString& task, const QString& optimizer,
                                                      QStringList* searched) const {
    std::map<int, TuningTrial> trials;
    for (const SensitivityPoint& p : sensitivity) {
        if (p.task != task || p.optimizer != optimizer) continue;
        TuningTrial& trial = trials[p.trial];
        trial.values[p.parameter] = p.value;
        trial.score = p.score;
        trial.folder = p.folder;
        if (searched && !searched->contains(p.parameter)) searched->append(p.parameter);
    }
    return trials;
}

StudyResults loadStudyResults(const QString& directory) {
    const QFileInfo folder(directory);
    if (!folder.isDir())
        throw InputError(directory.toStdString() +
                         ": not a folder (expected a study folder written by momentum-lab-cli study)");
    const QDir dir(folder.absoluteFilePath());
    const QString studyFile = dir.filePath(studyfolder::kStudy);
    if (!QFileInfo(studyFile).isFile())
        throw InputError(dir.path().toStdString() + ": not a study folder: it has no " + studyfolder::kStudy +
                         " (written by momentum-lab-cli study --out DIR; a run folder opens with Open run folder)");
    const StudyPlan plan(loadStudy(studyFile));
    const StudyLayout layout(dir.path(), plan);

    StudyResults results;
    results.folder = dir.path();
    for (const StudyTask& task : plan.study().tasks) results.tasks.append(QString::fromStdString(task.name));
    for (const StudyOptimizer& optimizer : plan.study().optimizers)
        results.optimizers.append(QString::fromStdString(optimizer.label));

    // Aggregate when the results are missing or were made from fewer trials than have finished since.
    const int finished = plan.trialCount() - pendingTrials(layout).count();
    if (finished == 0)
        throw InputError(dir.path().toStdString() +
                         ": no trial of this study has finished yet (start it with momentum-lab-cli study)");
    const QDir resultsDir(layout.resultsDirectory());
    const QString resultsJson = resultsDir.filePath("results.json");
    bool fresh = QFileInfo(resultsJson).isFile();
    if (fresh) readResultsJson(resultsJson, results);
    // A results.json from before the per-seed values and the baseline were written counts as stale.
    // So does one from before each choice's fragility was written.
    const bool hasFragility =
        std::all_of(results.optimizerResults.begin(), results.optimizerResults.end(),
                    [](const StudyOptimizerResult& r) { return r.configuration.isEmpty() || r.fragility.known; });
    if (!fresh || results.finishedTrials != finished || results.baseline.isEmpty() || !hasFragility) {
        results.optimizerResults.clear();
        results.profileCosts.clear();
        results.warnings.clear();
        aggregateStudy(layout);
        results.aggregated = true;
        readResultsJson(resultsJson, results);
    }
    readBands(resultsDir.filePath("bands.csv"), results);
    readSensitivity(resultsDir.filePath("sensitivity.csv"), results);
    for (SensitivityPoint& point : results.sensitivity) {
        const int task = static_cast<int>(results.tasks.indexOf(point.task));
        const int optimizer = static_cast<int>(results.optimizers.indexOf(point.optimizer));
        if (task < 0 || optimizer < 0) continue;
        const std::vector<int> trials = plan.tuningTrials(task, optimizer);
        if (point.trial >= 0 && point.trial < static_cast<int>(trials.size()))
            point.folder = layout.trialDirectory(trials[point.trial]);
    }
    return results;
}

}  // namespace ml
