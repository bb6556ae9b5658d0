#pragma once
// The "Loss landscape" dock: for the runs the RunSelection shows, "Compute" takes their recorded
// weights (the archived snapshots, plus the initial weights as step 0), builds the shared plane
// (principal directions or filter-normalised random ones) and the loss on a grid over it on a
// worker thread (LandscapeComputation: progress bar, Cancel), then draws it (LandscapePlot) with
// every run's trajectory and a marker at the scrubber's step, and below it the 1-D slice between
// the first two shown runs' final weights. The network and data are those of the experiment on
// screen (setExperiment); the loss is taken on its first kDefaultLandscapeExamples training
// examples. Once computed, a change of the shown runs (or a new comparison) recomputes it for the
// runs now shown, cancelling a computation under way. "Export…" exports the landscape as every
// figure is exported (exportRequested: the app's ExportController, PNG/PDF/SVG/pgfplots).
#include "views/LandscapeComputation.h"
#include "views/LandscapePlot.h"
#include "model/RunSelection.h"

#include <QWidget>

#include <array>

class QComboBox;
class QCPItemStraightLine;
class QCustomPlot;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace ml {

class LandscapeView : public QWidget {
    Q_OBJECT
public:
    explicit LandscapeView(RunSelection* selection, QWidget* parent = nullptr);

    void setExperiment(const Experiment& experiment) { experiment_ = experiment; }
    void setGridSize(int size);
    void setDirections(PlaneDirections directions);
    void compute();  // what the Compute button does
    void cancel();
    bool hasResult() const { return hasResult_; }  // a landscape is drawn

    LandscapePlot* landscapePlot() const { return plot_; }
    QCustomPlot* slicePlot() const { return slice_; }
    bool busy() const { return computation_->busy(); }
    QString statusText() const;  // what the line under the controls says

Q_SIGNALS:
    void computed();  // a landscape (or an error) arrived
    void exportRequested();

private:
    void finished(const std::shared_ptr<const Landscape>& landscape, const QString& error);
    void showSlice(const Landscape& landscape);
    void shownRunsChanged();
    QStringList shownLabels() const;

    RunSelection* selection_;
    Experiment experiment_;
    LandscapeComputation* computation_;
    std::vector<int> computedRuns_;                 // the selection's runs of the trajectories being computed
    std::vector<std::vector<long>> computedSteps_;  // their recorded steps at Compute
    QStringList computedLabels_;                    // the shown runs' labels at the last Compute
    bool requested_ = false;                        // Compute was pressed once: later run changes recompute
    bool restart_ = false;                          // a cancelled computation makes way for one for the runs now shown
    bool hasResult_ = false;
    QComboBox* directions_;
    QSpinBox* gridSize_;
    QPushButton* computeButton_;
    QPushButton* cancelButton_;
    QProgressBar* progress_;
    QLabel* status_;
    LandscapePlot* plot_;
    QCustomPlot* slice_;
    QPushButton* exportButton_;
    std::array<QCPItemStraightLine*, 2> ends_{};  // t = 0 and t = 1 on the slice
};

}  // namespace ml
