#pragma once
// "Export report…": one folder with everything needed to look at or share a comparison:
//   index.html          title, experiment settings, summary table, all figures (PNG inline)
//   <figure>.png/.pdf/.svg   each figure in the three formats
//   <figure>.tex/.csv        each plot as pgfplots with the points it reads (export/PgfplotsFigure.h)
//   summary.csv, runs/<label>.csv (metrics.csv columns), experiment.json
// Every file is written atomically; the first failure throws std::runtime_error naming the path.
#include "export/Figure.h"

#include <QStringList>

#include <vector>

namespace ml {

class RunComparison;

struct NamedFigure {
    QString name;     // file stem: "convergence"
    QString caption;  // "Convergence of all runs"
    Figure figure;
};

// Writes `figure` as DIRECTORY/STEM.png, .pdf, .svg and, for a plot, .tex + .csv (pgfplots), STEM
// being figure.name; returns the file names written, relative to `directory`.
QStringList writeFigureFiles(const QString& directory, const NamedFigure& figure, FigureOptions options);

class ReportWriter {
public:
    ReportWriter(const RunComparison& runs, std::vector<NamedFigure> figures, FigureOptions options);
    // Returns the files written (relative to `directory`).
    QStringList write(const QString& directory) const;

private:
    QByteArray indexHtml(const QStringList& figureStems) const;

    const RunComparison& runs_;
    std::vector<NamedFigure> figures_;
    FigureOptions options_;
};

}  // namespace ml
