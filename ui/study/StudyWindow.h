#pragma once
// A finished (or partly finished) study folder in its own window: the results table on top, the
// band plot (and, with several tasks, the performance profile) and the tuning views below (the
// sensitivity plot, the 2-D heat-map and the parallel coordinates of every searched
// hyper-parameter), with their choices (task, series, median + IQR or
// mean + CI, log axis, searched hyper-parameter) and the export of both figures through the app's
// one figure export (ExportController::exportFigure: PNG, PDF, SVG at the remembered size).
#include "export/ReportWriter.h"
#include "study/StudyResults.h"

#include <QWidget>

#include <functional>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;

namespace ml {

// What a study window asks of the app: the one figure export, and showing a run folder (a trial)
// in the main window's views. Either may be empty (tests).
struct StudyWindowHooks {
    std::function<void(const NamedFigure&)> exportFigure;
    std::function<void(const QString& runFolder)> openRunFolder;
};

class HyperParameterHeatmap;
class ParallelCoordinatesPlot;
class PerformanceProfilePlot;
class SensitivityPlot;
class StudyBandPlot;
class StudyResultsTable;

class StudyWindow : public QWidget {
    Q_OBJECT
public:
    StudyWindow(StudyResults results, StudyWindowHooks hooks, QWidget* parent = nullptr);

    // Asks for a study folder and opens it in a new window (a message box names what is wrong with
    // a folder that is not a readable study). Returns the window, or nullptr.
    static StudyWindow* chooseAndOpen(QWidget* parent, const StudyWindowHooks& hooks);
    // Opens `directory`; on failure shows the message under `parent` and returns nullptr.
    static StudyWindow* open(const QString& directory, QWidget* parent, const StudyWindowHooks& hooks);
    // "Run study…": the run dialog (study/StudyRunDialog.h); its finished study opens in a window.
    static void runStudy(QWidget* parent, const StudyWindowHooks& hooks);

    const StudyResults& results() const { return results_; }
    StudyResultsTable* table() const { return table_; }
    QComboBox* baselineChooser() const { return baseline_; }
    StudyBandPlot* bandPlot() const { return bands_; }
    SensitivityPlot* sensitivityPlot() const { return sensitivity_; }
    HyperParameterHeatmap* heatmap() const { return heatmap_; }
    ParallelCoordinatesPlot* parallelCoordinates() const { return parallel_; }
    PerformanceProfilePlot* profilePlot() const { return profile_; }  // shown with several tasks
    // The band plot, the sensitivity plot, the heat-map, the parallel coordinates and (several
    // tasks) the performance profile, as shown.
    std::vector<NamedFigure> figures() const;

public Q_SLOTS:
    void refresh();  // redraws both plots from the controls

private:
    StudyResults results_;
    StudyWindowHooks hooks_;
    QLabel* header_;
    QComboBox* task_;
    QComboBox* baseline_;  // the results table's P(better than it)
    QComboBox* series_;
    QComboBox* statistic_;
    QCheckBox* logY_;
    QComboBox* parameter_;
    QCheckBox* sensitivityLogY_;
    StudyResultsTable* table_;
    StudyBandPlot* bands_;
    SensitivityPlot* sensitivity_;
    QComboBox* heatOptimizer_;
    QComboBox* heatX_;
    QComboBox* heatY_;
    HyperParameterHeatmap* heatmap_;
    QComboBox* parallelOptimizer_;
    ParallelCoordinatesPlot* parallel_;
    PerformanceProfilePlot* profile_;
};

}  // namespace ml
