#pragma once
// The export menu's flows: ask where (and at what size), write, tell the user what happened.
// Figures come from a provider so the controller does not know the views: each NamedFigure is
// one picture (convergence plot, diagram, heat-map, neuron inspector).
#include "export/ReportWriter.h"

#include <QObject>

#include <functional>
#include <vector>

class QAction;
class QMenu;
class QWidget;

namespace ml {

class RunComparison;

class ExportController : public QObject {
    Q_OBJECT
public:
    using FigureProvider = std::function<std::vector<NamedFigure>()>;
    using ExperimentProvider = std::function<QJsonObject()>;  // throws InputError when the form is invalid

    ExportController(QWidget* window, const RunComparison& runs, FigureProvider figures, ExperimentProvider experiment);

    // Fills `menu` with one entry per figure, the CSV and JSON exports and the report (again each
    // time it opens: the figures on offer may change).
    void populate(QMenu* menu);

    void exportFigure(const NamedFigure& figure);
    // Writes the report (every figure that has something to show) into `directory`, with no
    // dialog; returns the files written. Throws std::runtime_error naming a path that failed.
    QStringList writeReport(const QString& directory, const FigureOptions& options) const;
    void exportRunData();
    void exportExperiment();
    void exportReport();

Q_SIGNALS:
    void message(const QString& text);  // for the status bar

private:
    void fill(QMenu* menu);
    bool run(const QString& what, const std::function<void()>& action);
    // Where a save dialog opens: the last export's folder, else the run folder on screen, else
    // the last folder a dialog chose.
    QString startDirectory() const;
    void rememberExportDirectory(const QString& directory) const;

    QWidget* window_;
    const RunComparison& runs_;
    FigureProvider figures_;
    ExperimentProvider experiment_;
};

}  // namespace ml
