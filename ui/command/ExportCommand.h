#pragma once
// `momentum-lab-cli export RUN_DIR --out DIR [--width W] [--height H] [--dpi D]` (W, H: 800, 800px, 12cm, 4.5in)
// Renders a finished CLI run folder headlessly with the desktop app's own plot and exporter
// (ConvergencePlot + ReportWriter): DIR/convergence.{png,pdf,svg} and convergence.tex + .csv (pgfplots), the first run's final
// weights as DIR/network-diagram.{png,pdf,svg}, summary.csv, runs/<label>.csv, experiment.json
// and index.html. The caller must have created a
// QApplication (the offscreen platform is enough). `arguments` are those after "export".
// Returns 0 on success, 2 on bad input (the message on stderr names the path or option),
// 1 when a file cannot be written.
#include <QStringList>

namespace ml {

int runExportCommand(const QStringList& arguments);

}  // namespace ml
