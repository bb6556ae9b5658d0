#include "study/StudyAggregate.h"

#include "io/FileError.h"
#include "io/Files.h"
#include "io/PgfplotsDocument.h"
#include "stats/Bootstrap.h"
#include "stats/Descriptive.h"
#include "stats/ExpectedBest.h"
#include "stats/PerformanceProfile.h"
#include "stats/SeedBands.h"
#include "stats/TimeToTarget.h"
#include "study/SelectionFragility.h"
#include "study/TrialOutcome.h"
#include "runfolder/RunFolderLayout.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <map>
#include <optional>

namespace ml {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// CSV numbers: shortest exact-enough form; "inf" for never reached, empty for none.
QByteArray num(double value) {
    if (std::isnan(value)) return {};
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    return QByteArray::number(value, 'g', 9);
}

QJsonValue jsonNumber(double value) {
    if (std::isnan(value)) return QJsonValue::Null;
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    return value;
}

// Quoted when it holds a comma, a quote or a line break (labels are free text).
QByteArray field(const std::string& text) {
    QByteArray bytes = QByteArray::fromStdString(text);
    if (!bytes.contains(',') && !bytes.contains('"') && !bytes.contains('\n') && !bytes.contains('\r')) return bytes;
    return '"' + bytes.replace("\"", "\"\"") + '"';
}

// Quantiles where "never reached" (infinity) ranks last instead of poisoning the interpolation.
stats::Spread spreadWithInfinity(const std::vector<double>& values) {
    std::vector<double> capped;
    for (const double v : values) capped.push_back(std::isinf(v) ? DBL_MAX : v);
    stats::Spread s = stats::spreadOf(capped);
    for (double* q : {&s.median, &s.lowerQuartile, &s.upperQuartile})
        if (*q >= 1e300) *q = kInfinity;  // interpolated towards a capped infinity
    return s;
}

// The final runs of one optimizer on one task, by seed.
struct FinalRuns {
    std::map<std::uint64_t, TrialOutcome> bySeed;
};

struct OptimizerResult {
    std::optional<Selection> selection;
    std::vector<TrialOutcome> tuning;
    FinalRuns finals;
};

std::vector<double> perSeed(const FinalRuns& runs, const std::vector<std::uint64_t>& seeds,
                            double (*metric)(const TrialOutcome&)) {
    std::vector<double> values;
    for (const std::uint64_t seed : seeds) values.push_back(metric(runs.bySeed.at(seed)));
    return values;
}

std::vector<std::uint64_t> seedsOf(const FinalRuns& runs) {
    std::vector<std::uint64_t> seeds;
    for (const auto& [seed, outcome] : runs.bySeed) seeds.push_back(seed);
    return seeds;
}

std::vector<std::uint64_t> commonSeeds(const FinalRuns& a, const FinalRuns& b) {
    std::vector<std::uint64_t> seeds;
    for (const auto& [seed, outcome] : a.bySeed)
        if (b.bySeed.count(seed)) seeds.push_back(seed);
    return seeds;
}

class ResultsWriter {
public:
    ResultsWriter(QString directory, AggregateReport& report) : directory_(std::move(directory)), report_(report) {
        if (!QDir().mkpath(directory_)) throw FileError(directory_, "cannot create the folder");
    }
    void write(const QString& name, const QByteArray& contents) {
        const QString path = QDir(directory_).filePath(name);
        writeFileAtomically(path, contents);
        report_.files.push_back(path);
    }

private:
    QString directory_;
    AggregateReport& report_;
};

// The band figure of one task: test loss per optimizer over the final seeds, median line and
// interquartile band, as pgfplots (io/PgfplotsDocument, the app's figure export writes through it
// too): band-TASK.tex reading band-TASK.csv beside it.
void writeBandFigure(ResultsWriter& out, const std::string& task,
                     const std::vector<std::pair<std::string, std::vector<stats::BandPoint>>>& curves,
                     const AggregateOptions& options, bool logLoss) {
    // xcolor names every LaTeX installation has, one per optimizer in the study's order.
    static const char* const colours[] = {"blue",  "red",     "teal",  "orange", "violet",
                                          "brown", "magenta", "olive", "cyan",   "gray"};
    const QString stem = "band-" + runFileName(task);
    PgfplotsDocument doc(stem + ".csv");
    doc.beginAxis("width=" + PgfplotsDocument::millimetres(options.figureWidthMm) + ", height=" +
                  PgfplotsDocument::millimetres(options.figureHeightMm) + ", xlabel={step}, ylabel={test loss}, " +
                  (logLoss ? "ymode=log, " : "") + "legend pos=north east, legend cell align=left");
    for (std::size_t c = 0; c < curves.size(); ++c) {
        const auto& [label, band] = curves[c];
        const QByteArray column = doc.stem(QString::fromStdString(label));
        std::vector<double> steps, median, q1, q3;
        for (const stats::BandPoint& p : band) {
            steps.push_back(static_cast<double>(p.step));
            median.push_back(p.median);
            q1.push_back(p.lowerQuartile);
            q3.push_back(p.upperQuartile);
        }
        doc.addColumn(column + "_step", std::move(steps));
        doc.addColumn(column + "_median", std::move(median));
        doc.addColumn(column + "_q1", std::move(q1));
        doc.addColumn(column + "_q3", std::move(q3));
        const QByteArray colour = colours[c % std::size(colours)];
        doc.addPlot("draw=" + colour + ", thick, mark=none", column + "_step", column + "_median");
        doc.addLegendEntry(QString::fromStdString(label));
        doc.addPlot("draw=none, mark=none, forget plot, name path=" + column + "-q1", column + "_step", column + "_q1");
        doc.addPlot("draw=none, mark=none, forget plot, name path=" + column + "-q3", column + "_step", column + "_q3");
        doc.addFillBetween("fill=" + colour + ", fill opacity=0.2, draw=none", column + "-q1", column + "-q3");
    }
    doc.endAxis();
    const PgfplotsFiles files = doc.render(
        QString::fromStdString(task) + ": test loss over the final seeds, median (line) and interquartile range (band)",
        options.figureWidthMm, options.figureHeightMm);
    out.write(stem + ".csv", files.csv);
    out.write(stem + ".tex", files.tex);
}

// The searched keys' values of a tuning trial: its point, or the defaults' values for trial 0.
stats::TrialPoint fullPoint(const Study& study, int task, int optimizer, const stats::TrialPoint& point) {
    stats::TrialPoint full;
    const std::vector<stats::SearchDimension>& space = study.optimizers[optimizer].space;
    for (std::size_t d = 0; d < space.size(); ++d)
        full.push_back(
            d < point.size()
                ? point[d]
                : findParameterField(space[d].key)->getReal(study.tasks[task].experiment.runs[optimizer].hp));
    return full;
}

// The choice's fragility (study/SelectionFragility.h) of one optimizer on one task.
SelectionFragility fragilityOf(const StudyPlan& plan, int task, int optimizer, const OptimizerResult& result) {
    const Study& study = plan.study();
    std::vector<SearchedKey> keys;  // with the values each can take (momentum in [0, 1), ...)
    for (const stats::SearchDimension& d : study.optimizers[optimizer].space) {
        const ParameterField& field = *findParameterField(d.key);
        keys.emplace_back(d.key, field.minimum, field.maximumExclusive ? INFINITY : field.maximum);
    }
    std::vector<TuningScore> scores;
    for (const TrialOutcome& x : result.tuning)
        scores.push_back({fullPoint(study, task, optimizer, x.point), plan.trial(x.trial).seed,
                          selectionScore(study, x), x.diverged()});
    FragilityOptions options;
    options.statistic = study.tuningStatistic == TuningStatistic::Mean ? SeedStatistic::Mean : SeedStatistic::Median;
    return assessSelection(keys, scores, fullPoint(study, task, optimizer, result.selection->point), options);
}

QJsonValue neighbourJson(const NeighbourScore& n) {
    if (std::isnan(n.value)) return QJsonValue::Null;
    return QJsonObject{{"value", n.value}, {"score", jsonNumber(n.score)}};
}

QJsonObject fragilityJson(const SelectionFragility& f) {
    QJsonArray parameters;
    for (const ParameterFragility& p : f.parameters)
        parameters.append(QJsonObject{{"parameter", QString::fromStdString(p.key)},
                                      {"value", p.value},
                                      {"searched_low", p.searchedLow},
                                      {"searched_high", p.searchedHigh},
                                      {"below", QString::fromStdString(toString(p.below))},
                                      {"above", QString::fromStdString(toString(p.above))},
                                      {"on_edge", p.onEdge()},
                                      {"lower_neighbour", neighbourJson(p.lower)},
                                      {"upper_neighbour", neighbourJson(p.upper)}});
    QJsonObject json{{"score", jsonNumber(f.chosenScore)},
                     {"tuning_seeds", f.tuningSeeds},
                     {"stability", jsonNumber(f.stability)},
                     {"on_edge", f.onEdge()},
                     {"parameters", parameters}};
    if (f.measurable()) json["stability_resamples"] = f.resamples;
    else json["stability_note"] = "one tuning seed: stability not measurable";
    return json;
}

// "digits / sgd: lr = 1 is on the upper edge of what was searched (0.0001 to 1)".
QString edgeWarning(const std::string& task, const std::string& optimizer, const ParameterFragility& p) {
    return QString::fromStdString(task + " / " + optimizer + ": " + p.key + " = ") + QString::number(p.value, 'g', 6) +
           " is on the " + QString::fromStdString(p.edgeName()) + " of what was searched (" +
           QString::number(p.searchedLow, 'g', 6) + " to " + QString::number(p.searchedHigh, 'g', 6) +
           "); the best value may lie beyond it";
}

}  // namespace

stats::SeededValues finalTestLosses(const QJsonObject& entry) {
    stats::SeededValues result;
    const QJsonArray seeds = entry["final_seeds"].toArray(), losses = entry["final_test_loss"].toArray();
    if (seeds.size() != losses.size()) return result;
    for (qsizetype i = 0; i < seeds.size(); ++i) {
        const QJsonValue loss = losses[i];
        result.seeds.push_back(static_cast<std::uint64_t>(seeds[i].toInteger()));
        // "inf" (diverged) and null (no value, counted as diverged) both lose every comparison.
        result.values.push_back(loss.isDouble() ? loss.toDouble() : kInfinity);
    }
    return result;
}

// "lr=0.0316227766016838 momentum=0.9" -> "lr=0.03162 momentum=0.9": each value to 4 significant digits.
QString roundedConfiguration(const QString& configuration) {
    static const QRegularExpression number(QStringLiteral("=([-+0-9.eE]+)"));
    QString text;
    qsizetype from = 0;
    for (const QRegularExpressionMatch& m : number.globalMatch(configuration)) {
        bool ok = false;
        const double value = m.captured(1).toDouble(&ok);
        text +=
            configuration.mid(from, m.capturedStart(1) - from) + (ok ? QString::number(value, 'g', 4) : m.captured(1));
        from = m.capturedEnd(1);
    }
    return text + configuration.mid(from);
}

int defaultBaseline(const Study& study) {
    for (std::size_t o = 0; o < study.optimizers.size(); ++o)
        if (study.optimizers[o].label == "momentum") return static_cast<int>(o);
    return 0;
}

AggregateReport aggregateStudy(const StudyLayout& layout, const AggregateOptions& options) {
    const StudyPlan& plan = layout.plan();
    const Study& study = plan.study();
    AggregateReport report;
    report.totalTrials = plan.trialCount();
    const int tasks = static_cast<int>(study.tasks.size());
    const int optimizers = static_cast<int>(study.optimizers.size());

    // Read everything that finished.
    std::vector<std::vector<OptimizerResult>> results(tasks, std::vector<OptimizerResult>(optimizers));
    for (int k = 0; k < plan.trialCount(); ++k) {
        std::optional<TrialOutcome> outcome = readTrialOutcome(layout, k);
        if (!outcome) continue;
        ++report.finishedTrials;
        const StudyTrial& trial = plan.trial(k);
        OptimizerResult& result = results[trial.task][trial.optimizer];
        if (trial.phase == StudyPhase::Tuning) result.tuning.push_back(std::move(*outcome));
        else result.finals.bySeed.emplace(trial.seed, std::move(*outcome));
    }
    for (int t = 0; t < tasks; ++t)
        for (int o = 0; o < optimizers; ++o)
            if (static_cast<int>(results[t][o].tuning.size()) == study.budget)
                results[t][o].selection = selectConfiguration(plan, layout, t, o);

    ResultsWriter out(layout.resultsDirectory(), report);
    const auto label = [&](int o) { return study.optimizers[o].label; };
    const auto configuration = [&](int t, int o, const stats::TrialPoint& point) {
        return describePoint(study.optimizers[o], study.tasks[t].experiment.runs[o], point);
    };

    // trials.csv and sensitivity.csv: every finished trial.
    QByteArray trials =
        "trial,phase,task,optimizer,number,seed,configuration,evaluated_on,status,final_loss,final_accuracy,best_accuracy,score";
    // A study with refining rounds or several tuning seeds says which each tuning trial is.
    trials += study.recordsRounds() ? ",round,candidate,tuning_seed\n" : "\n";
    QByteArray sensitivity = "task,optimizer,trial,parameter,value,score\n";
    for (int t = 0; t < tasks; ++t)
        for (int o = 0; o < optimizers; ++o) {
            std::vector<const TrialOutcome*> all;
            for (const TrialOutcome& x : results[t][o].tuning) all.push_back(&x);
            for (const auto& [seed, x] : results[t][o].finals.bySeed) all.push_back(&x);
            for (const TrialOutcome* x : all) {
                const StudyTrial& trial = plan.trial(x->trial);
                const bool tuning = trial.phase == StudyPhase::Tuning;
                const stats::TrialPoint point = x->point.empty() ? stats::TrialPoint{} : x->point;
                const double score = tuning ? selectionScore(study, *x) : NAN;
                trials += QByteArray::number(x->trial) + "," + (tuning ? "tuning" : "final") + "," +
                          field(study.tasks[t].name) + "," + field(label(o)) + "," + QByteArray::number(trial.number) +
                          "," + QByteArray::number(trial.seed) + "," + field(configuration(t, o, point)) + "," +
                          (tuning ? "validation" : "test") + "," + field(x->status) + "," +
                          num(finalEvaluatedLoss(x->metrics)) + "," + num(finalEvaluatedAccuracy(x->metrics)) + "," +
                          num(bestEvaluatedAccuracy(x->metrics)) + "," + num(score);
                if (study.recordsRounds() && tuning)
                    trials += "," + QByteArray::number(trial.round) + "," + QByteArray::number(trial.candidate) + "," +
                              QByteArray::number(trial.tuningSeed);
                else if (study.recordsRounds())  // a final run: the candidate it re-runs
                    trials += ",," +
                              QByteArray::number(results[t][o].selection ? results[t][o].selection->candidate : 0) +
                              ",";
                trials += "\n";
                if (!tuning) continue;
                const StudyOptimizer& optimizer = study.optimizers[o];
                for (std::size_t d = 0; d < optimizer.space.size(); ++d) {
                    const ParameterField& f = *findParameterField(optimizer.space[d].key);
                    const double value = d < point.size() ? point[d] : f.getReal(study.tasks[t].experiment.runs[o].hp);
                    sensitivity += field(study.tasks[t].name) + "," + field(label(o)) + "," +
                                   QByteArray::number(trial.number) + "," + field(f.key) + "," + num(value) + "," +
                                   num(score) + "\n";
                }
            }
        }
    out.write("trials.csv", trials);
    out.write("sensitivity.csv", sensitivity);

    // selected.csv and expected-best.csv: phase 1's choice and how it depends on the budget.
    QByteArray selected = "task,optimizer,trial,number,configuration,score\n";
    QByteArray expected = "task,optimizer,k,expected_best_score\n";
    for (int t = 0; t < tasks; ++t)
        for (int o = 0; o < optimizers; ++o) {
            const OptimizerResult& r = results[t][o];
            if (!r.selection) continue;
            selected += field(study.tasks[t].name) + "," + field(label(o)) + "," +
                        QByteArray::number(r.selection->tuningTrial) + "," + QByteArray::number(r.selection->number) +
                        "," + field(configuration(t, o, r.selection->point)) + "," + num(r.selection->score) + "\n";
            std::vector<double> scores;
            for (const TrialOutcome& x : r.tuning) scores.push_back(selectionScore(study, x));
            const std::vector<double> curve = stats::expectedBestCurve(scores, study.budget);
            for (std::size_t k = 0; k < curve.size(); ++k)
                expected += field(study.tasks[t].name) + "," + field(label(o)) + "," + QByteArray::number(k + 1) + "," +
                            num(curve[k]) + "\n";
        }
    out.write("selected.csv", selected);
    out.write("expected-best.csv", expected);

    // summary.csv, time-to-target.csv, bands.csv and the band figures: the final runs.
    QByteArray summary =
        "task,optimizer,seeds,test_loss_median,test_loss_q1,test_loss_q3,test_loss_mean,test_loss_ci_low,"
        "test_loss_ci_high,test_accuracy_median,test_accuracy_q1,test_accuracy_q3,test_accuracy_mean,"
        "test_accuracy_ci_low,test_accuracy_ci_high,target,steps_to_target_median,reached_target\n";
    QByteArray ttt = "task,optimizer,seed,target,steps,wall_ms\n";
    QByteArray bands = "task,optimizer,series,step,seeds,median,q1,q3,mean,mean_ci_low,mean_ci_high\n";
    QJsonArray taskJson, warnings;
    std::vector<std::vector<double>> profileCosts(tasks, std::vector<double>(optimizers, kInfinity));
    for (int t = 0; t < tasks; ++t) {
        QJsonArray optimizerJson;
        std::vector<std::pair<std::string, std::vector<stats::BandPoint>>> figureCurves;
        bool positiveLosses = true;
        for (int o = 0; o < optimizers; ++o) {
            const FinalRuns& finals = results[t][o].finals;
            QJsonObject entry;
            entry["optimizer"] = QString::fromStdString(label(o));
            if (results[t][o].selection) {
                entry["configuration"] = QString::fromStdString(configuration(t, o, results[t][o].selection->point));
                entry["chosen_trial"] = results[t][o].selection->number;  // 0: the untuned defaults
                const SelectionFragility fragility = fragilityOf(plan, t, o, results[t][o]);
                entry["fragility"] = fragilityJson(fragility);
                for (const ParameterFragility& p : fragility.parameters)
                    if (p.onEdge()) warnings.append(edgeWarning(study.tasks[t].name, label(o), p));
            }
            entry["seeds"] = static_cast<int>(finals.bySeed.size());
            if (finals.bySeed.empty()) {
                optimizerJson.append(entry);
                continue;
            }
            const std::vector<std::uint64_t> seeds = seedsOf(finals);
            const std::vector<double> losses = perSeed(finals, seeds, finalTestLoss);
            const std::vector<double> accuracies = perSeed(finals, seeds, finalTestAccuracy);
            const stats::Spread lossSpread = spreadWithInfinity(losses);
            const stats::Interval lossMean = stats::bootstrapMean(losses);
            const stats::Spread accSpread = stats::spreadOf(accuracies);
            const stats::Interval accMean = stats::bootstrapMean(accuracies);
            std::vector<double> steps;
            for (const std::uint64_t seed : seeds) {
                if (!study.hasTarget()) break;
                const stats::TimeToTarget time = finals.bySeed.at(seed).metrics.timeToTarget();
                steps.push_back(time.steps);
                ttt += field(study.tasks[t].name) + "," + field(label(o)) + "," + QByteArray::number(seed) + "," +
                       num(study.target) + "," + num(time.steps) + "," + num(time.wallMs) + "\n";
            }
            const double stepsMedian = study.hasTarget() ? spreadWithInfinity(steps).median : NAN;
            const int reached =
                static_cast<int>(std::count_if(steps.begin(), steps.end(), [](double s) { return std::isfinite(s); }));
            summary += field(study.tasks[t].name) + "," + field(label(o)) + "," + QByteArray::number(seeds.size()) +
                       "," + num(lossSpread.median) + "," + num(lossSpread.lowerQuartile) + "," +
                       num(lossSpread.upperQuartile) + "," + num(lossMean.estimate) + "," + num(lossMean.low) + "," +
                       num(lossMean.high) + "," + num(accSpread.median) + "," + num(accSpread.lowerQuartile) + "," +
                       num(accSpread.upperQuartile) + "," + num(accMean.estimate) + "," + num(accMean.low) + "," +
                       num(accMean.high) + "," + (study.hasTarget() ? num(study.target) : "") + "," + num(stepsMedian) +
                       "," + (study.hasTarget() ? QByteArray::number(reached) : "") + "\n";
            // Per seed, for P(better than a baseline) (stats::probabilityBetter) in the CLI and the app.
            QJsonArray seedArray, lossArray;
            for (std::size_t i = 0; i < seeds.size(); ++i) {
                seedArray.append(static_cast<qint64>(seeds[i]));
                lossArray.append(jsonNumber(losses[i]));
            }
            entry["final_seeds"] = seedArray;
            entry["final_test_loss"] = lossArray;
            entry["test_loss"] =
                QJsonObject{{"median", jsonNumber(lossSpread.median)},    {"q1", jsonNumber(lossSpread.lowerQuartile)},
                            {"q3", jsonNumber(lossSpread.upperQuartile)}, {"mean", jsonNumber(lossMean.estimate)},
                            {"ci_low", jsonNumber(lossMean.low)},         {"ci_high", jsonNumber(lossMean.high)}};
            entry["test_accuracy"] =
                QJsonObject{{"median", jsonNumber(accSpread.median)},    {"q1", jsonNumber(accSpread.lowerQuartile)},
                            {"q3", jsonNumber(accSpread.upperQuartile)}, {"mean", jsonNumber(accMean.estimate)},
                            {"ci_low", jsonNumber(accMean.low)},         {"ci_high", jsonNumber(accMean.high)}};
            if (study.hasTarget()) {
                entry["steps_to_target_median"] = jsonNumber(stepsMedian);
                entry["reached_target"] = reached;  // seeds that reached it
            }
            optimizerJson.append(entry);
            // Performance-profile cost: steps to the target when there is one, else the final test loss.
            profileCosts[t][o] = study.hasTarget() ? stepsMedian : lossSpread.median;

            // Bands, aligned by step, for the three series of metrics.csv.
            // The kept curves (TrialMetrics): the test series from the evaluated rows.
            struct Series {
                const char* name;
                float StepMetrics::*value;
                const std::vector<StepMetrics>& (TrialMetrics::*rows)() const;
            };
            for (const Series series :
                 {Series{"train_loss", &StepMetrics::trainLoss, &TrialMetrics::rows},
                  Series{"test_loss", &StepMetrics::testLoss, &TrialMetrics::evaluations},
                  Series{"test_accuracy", &StepMetrics::testAccuracy, &TrialMetrics::evaluations}}) {
                std::vector<stats::Curve> curves;
                for (const std::uint64_t seed : seeds) {
                    stats::Curve curve;
                    for (const StepMetrics& m : (finals.bySeed.at(seed).metrics.*series.rows)())
                        if (!std::isnan(m.*series.value)) {
                            curve.steps.push_back(m.step);
                            curve.values.push_back(m.*series.value);
                        }
                    curves.push_back(std::move(curve));
                }
                const std::vector<stats::BandPoint> band = stats::seedBands(curves, 1, {0.95, 1000, 20240607});
                for (const stats::BandPoint& p : band) {
                    const QByteArray row = QByteArray::number(p.step) + "," + QByteArray::number(p.seeds) + "," +
                                           num(p.median) + "," + num(p.lowerQuartile) + "," + num(p.upperQuartile) +
                                           "," + num(p.mean.estimate) + "," + num(p.mean.low) + "," + num(p.mean.high) +
                                           "\n";
                    bands += field(study.tasks[t].name) + "," + field(label(o)) + "," + series.name + "," + row;
                    if (series.value == &StepMetrics::testLoss && !(p.lowerQuartile > 0)) positiveLosses = false;
                }
                if (series.value == &StepMetrics::testLoss) figureCurves.emplace_back(label(o), band);
            }
        }

        // Paired comparisons over the seeds both optimizers finished.
        QJsonArray pairs;
        for (int a = 0; a < optimizers; ++a)
            for (int b = a + 1; b < optimizers; ++b) {
                const std::vector<std::uint64_t> seeds = commonSeeds(results[t][a].finals, results[t][b].finals);
                if (seeds.empty()) continue;
                for (const auto& [metric, fn] :
                     {std::pair{"test_loss", &finalTestLoss}, std::pair{"test_error", &finalTestError}}) {
                    const std::vector<double> valuesA = perSeed(results[t][a].finals, seeds, fn),
                                              valuesB = perSeed(results[t][b].finals, seeds, fn);
                    const auto isNan = [](double v) { return std::isnan(v); };
                    // No test error where the task has no accuracy (regression).
                    if (std::any_of(valuesA.begin(), valuesA.end(), isNan) ||
                        std::any_of(valuesB.begin(), valuesB.end(), isNan))
                        continue;
                    const stats::PairedComparison c = stats::comparePaired(valuesA, valuesB);
                    pairs.append(QJsonObject{{"a", QString::fromStdString(label(a))},
                                             {"b", QString::fromStdString(label(b))},
                                             {"metric", metric},
                                             {"seeds", static_cast<int>(seeds.size())},
                                             {"mean_difference", jsonNumber(c.meanDifference.estimate)},
                                             {"ci_low", jsonNumber(c.meanDifference.low)},
                                             {"ci_high", jsonNumber(c.meanDifference.high)},
                                             {"p_a_better", c.probabilityABetter}});
                }
            }
        if (!figureCurves.empty()) writeBandFigure(out, study.tasks[t].name, figureCurves, options, positiveLosses);
        taskJson.append(QJsonObject{
            {"task", QString::fromStdString(study.tasks[t].name)}, {"optimizers", optimizerJson}, {"paired", pairs}});
    }
    out.write("summary.csv", summary);
    out.write("bands.csv", bands);
    if (study.hasTarget()) out.write("time-to-target.csv", ttt);

    // paired.csv from the JSON above (one source for both).
    QByteArray paired = "task,a,b,metric,seeds,mean_difference,ci_low,ci_high,p_a_better\n";
    for (const QJsonValue& task : taskJson)
        for (const QJsonValue& p : task["paired"].toArray()) {
            const QJsonObject c = p.toObject();
            const auto value = [&](const char* key) {
                return c[key].isString() ? c[key].toString().toUtf8()
                       : c[key].isNull() ? QByteArray()
                                         : num(c[key].toDouble());
            };
            paired += field(task["task"].toString().toStdString()) + "," + field(c["a"].toString().toStdString()) +
                      "," + field(c["b"].toString().toStdString()) + "," + c["metric"].toString().toUtf8() + "," +
                      QByteArray::number(c["seeds"].toInt()) + "," + value("mean_difference") + "," + value("ci_low") +
                      "," + value("ci_high") + "," + num(c["p_a_better"].toDouble()) + "\n";
        }
    out.write("paired.csv", paired);

    // Performance profiles across the tasks (Dolan–Moré), tau from 1 to 4.
    QJsonObject areas;
    QByteArray profile = "optimizer,tau,rho\n";
    bool profileOk = true;
    for (const auto& row : profileCosts)
        for (const double cost : row)
            if (!(cost > 0)) profileOk = false;
    if (profileOk) {
        const stats::PerformanceProfile performance(profileCosts);
        for (int o = 0; o < optimizers; ++o) {
            for (int i = 0; i <= 30; ++i) {
                const double tau = 1.0 + 0.1 * i;
                profile += field(label(o)) + "," + num(tau) + "," + num(performance.fractionWithin(o, tau)) + "\n";
            }
            areas[QString::fromStdString(label(o))] = performance.area(o, 4.0);
        }
        out.write("profile.csv", profile);
    }

    QJsonObject json;
    json["study"] = QString::fromStdString(study.name);
    json["trials_finished"] = report.finishedTrials;
    json["trials_total"] = report.totalTrials;
    json["selection"] = QString::fromStdString(toString(study.selection));
    json["baseline"] = QString::fromStdString(label(defaultBaseline(study)));
    if (study.hasTarget()) json["target"] = study.target;
    json["profile_cost"] = study.hasTarget() ? "median steps to target" : "median final test loss";
    json["tasks"] = taskJson;
    if (profileOk) json["profile_area_tau_4"] = areas;
    QJsonArray costRows;  // [task][optimizer], for views that draw the profile (stats::PerformanceProfile)
    for (const auto& row : profileCosts) {
        QJsonArray costs;
        for (const double cost : row) costs.append(jsonNumber(cost));
        costRows.append(costs);
    }
    json["profile_costs"] = costRows;
    json["warnings"] = warnings;  // each chosen value on an edge of what was searched
    out.write("results.json", QJsonDocument(json).toJson(QJsonDocument::Indented));
    return report;
}

}  // namespace ml
