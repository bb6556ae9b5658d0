#pragma once
// A study in a report folder (momentum-lab-cli export --study): the study window's figures,
// rendered headlessly, for every task — the band plot (test loss, median + IQR), the sensitivity
// plot to each searched hyper-parameter, with two of them each optimizer's heat-map and parallel
// coordinates — and, with
// several tasks, the performance profile; each as PNG, PDF, SVG and pgfplots (.tex + .csv),
// beside a copy of the study's results files (summary.csv, paired.csv, results.json, ...).
#include "export/FigureOptions.h"
#include "study/StudyResults.h"

#include <QStringList>

namespace ml {

// Writes into `directory` (created); returns the files written, relative to it. Throws
// std::runtime_error naming a file that cannot be written.
QStringList writeStudyReport(const StudyResults& results, const QString& directory, const FigureOptions& options);

}  // namespace ml
