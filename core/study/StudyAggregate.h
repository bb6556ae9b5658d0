#pragma once
// Phase 3 of a study: the statistics of whatever trial folders exist (core/stats), written to
// DIR/results/ (the files and their columns: docs/guide/studies.md). Deterministic: the same trial folders
// give the same files, whether the trials ran locally or on a cluster (wall-clock times, which
// differ, appear only in time-to-target.csv).
#include "study/StudyLayout.h"

#include "stats/Bootstrap.h"

#include <QJsonObject>
#include <QString>

#include <vector>

namespace ml {

struct AggregateOptions {
    double figureWidthMm = 120.0;  // the pgfplots band figure
    double figureHeightMm = 80.0;
};

struct AggregateReport {
    int finishedTrials = 0;
    int totalTrials = 0;
    std::vector<QString> files;  // written, in order
};

// The optimizer the others are compared with unless the user picks another: the one labelled
// "momentum" (the rule this app studies), else the first. results.json names it as "baseline".
int defaultBaseline(const Study& study);

// The final test loss per seed of one optimizer entry of results.json (tasks[].optimizers[]);
// empty when the entry has none (no final run finished, or a results.json from before they were written).
stats::SeededValues finalTestLosses(const QJsonObject& optimizerEntry);

// A configuration as describePoint writes it, each value to 4 significant digits, for tables
// ("lr=0.0316227766016838 momentum=0.9" -> "lr=0.03162 momentum=0.9"); the files keep every digit.
QString roundedConfiguration(const QString& configuration);

// Throws FileError (a file cannot be written) or InputError (a finished trial's files are unreadable).
AggregateReport aggregateStudy(const StudyLayout& layout, const AggregateOptions& options = {});

}  // namespace ml
