#pragma once
// Phase 3 of a study: the statistics of whatever trial folders exist (core/stats), written to
// DIR/results/ (the files and their columns: docs/study.md). Deterministic: the same trial folders
// give the same files, whether the trials ran locally or on a cluster (wall-clock times, which
// differ, appear only in time-to-target.csv).
#include "study/StudyLayout.h"

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

// Throws FileError (a file cannot be written) or InputError (a finished trial's files are unreadable).
AggregateReport aggregateStudy(const StudyLayout& layout, const AggregateOptions& options = {});

}  // namespace ml
