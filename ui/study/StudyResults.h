#pragma once
// A study folder (core/study/StudyLayout.h) as the desktop views read it: core's aggregation
// (study/StudyAggregate.h, the files of docs/guide/studies.md) parsed back into values. Opening a folder
// whose results are missing or older than its finished trials runs the aggregation first, so the
// views always show what `momentum-lab-cli aggregate DIR` would write. No widgets: Qt Core only.
#include "stats/Bootstrap.h"

#include <QString>
#include <QStringList>

#include <cmath>
#include <map>
#include <vector>

namespace ml {

// Median with interquartile range and mean with its 95 % bootstrap interval, over the final seeds.
struct SeedSummary {
    double median = 0, q1 = 0, q3 = 0, mean = 0, ciLow = 0, ciHigh = 0;  // NaN where none
};

// Where the chosen value of one searched hyper-parameter sits (results.json "fragility"; the
// words of study/SelectionFragility.h): "edge" beyond it on a side means nothing was searched there.
struct ChoiceParameter {
    QString parameter;
    double value = NAN;
    double searchedLow = NAN, searchedHigh = NAN;
    QString below, above;                       // "searched", "edge", "diverged" or "bound"
    double lowerValue = NAN, lowerScore = NAN;  // the next searched value below and its score (NaN: none)
    double upperValue = NAN, upperScore = NAN;
    bool onEdge() const { return below == "edge" || above == "edge"; }
};

// How far the choice of one optimizer on one task can be trusted; empty while phase 1 is unfinished.
struct ChoiceFragility {
    bool known = false;
    double score = NAN;  // the chosen point's validation score over its tuning seeds
    int tuningSeeds = 1;
    double stability = NAN;  // share of resampled tuning seeds in which it wins; NaN: one tuning seed
    std::vector<ChoiceParameter> parameters;
    bool onEdge() const;
    const ChoiceParameter* parameter(const QString& name) const;  // nullptr when not searched
};

struct StudyOptimizerResult {
    QString task, optimizer;
    QString configuration;  // the tuned configuration ("lr=0.03"); empty while phase 1 is unfinished
    int seeds = 0;          // final runs finished
    SeedSummary testLoss, testAccuracy;
    double stepsToTargetMedian = 0;     // NaN without a target; infinity when most seeds never reach it
    stats::SeededValues finalTestLoss;  // per final seed (infinity: diverged), for P(better than a baseline)
    ChoiceFragility fragility;
};

struct StudyBandPoint {
    long step = 0;
    int seeds = 0;
    SeedSummary value;
};

struct StudyBand {
    QString task, optimizer, series;  // series: train_loss, test_loss, test_accuracy (bands.csv)
    std::vector<StudyBandPoint> points;
};

// One tuning trial: the selection score (validation) against one searched hyper-parameter.
struct SensitivityPoint {
    QString task, optimizer, parameter;
    int trial = 0;                // the optimizer's trial number (0 = the untuned defaults)
    double value = 0, score = 0;  // score: infinity when the trial diverged
    QString folder;               // the trial's run folder (tune/TASK/LABEL/trial-N)
};

// One tuning trial with every searched value (sensitivity.csv has a row per trial and key).
struct TuningTrial {
    std::map<QString, double> values;  // by searched key
    double score = NAN;
    QString folder;
};

struct StudyResults {
    QString folder;
    QString name;
    QString selection;  // the selection metric ("final-validation-loss")
    double target = 0;  // NaN without one
    QString baseline;   // the default baseline of comparisons (study/StudyAggregate.h: defaultBaseline)
    int finishedTrials = 0, totalTrials = 0;
    bool aggregated = false;                             // the aggregation ran when the folder was opened
    QStringList tasks, optimizers, parameters;           // in the study's order
    std::vector<StudyOptimizerResult> optimizerResults;  // task-major, in the study's order
    std::vector<StudyBand> bands;
    std::vector<SensitivityPoint> sensitivity;
    QStringList warnings;  // each chosen value on an edge of what was searched (results.json)
    // The performance profile's cost per task and optimizer (results.json profile_costs; NaN where
    // an optimizer has no final run yet) and what it measures ("median steps to target").
    std::vector<std::vector<double>> profileCosts;
    QString profileCost;

    const StudyBand* band(const QString& task, const QString& optimizer, const QString& series) const;
    const StudyOptimizerResult* result(const QString& task, const QString& optimizer) const;  // nullptr: none
    // The tuning trials of one task and optimizer by trial number; `searched` (when given) gets
    // their keys in the order they first appear.
    std::map<int, TuningTrial> tuningTrials(const QString& task, const QString& optimizer,
                                            QStringList* searched = nullptr) const;
};

// Reads the study folder `directory`. Throws InputError with a message naming the folder or file
// and what was expected (not a folder, no study.json, an unreadable results file) and FileError
// when the aggregation cannot write its results.
StudyResults loadStudyResults(const QString& directory);

}  // namespace ml
