#pragma once
// "Export report…": one folder with everything needed to look at or share a comparison:
//   index.html          title, experiment settings, summary table, all figures (PNG inline)
//   <figure>.png/.pdf/.svg   each figure in the three formats
//   <figure>.tex/.csv        each plot as pgfplots with the points it reads (export/PgfplotsFigure.h)
//                       (a view with nothing to show is left out; the index names it and why)
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
    // Why the view has nothing to show ("no neuron chosen: click one in the network diagram");
    // empty when it has. A figure with a reason is not written; the report's index says why.
    QString leftOutBecause = {};
    bool shown() const { return leftOutBecause.isEmpty(); }
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
    QByteArray indexHtml() const;

    const RunComparison& runs_;
    std::vector<NamedFigure> figures_;
    FigureOptions options_;
};

}  // namespace ml
