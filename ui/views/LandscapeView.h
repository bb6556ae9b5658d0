#pragma once
// The "Loss landscape" dock: for the runs the RunSelection shows, "Compute" takes their recorded
// weights (the archived snapshots, plus the initial weights as step 0), builds the shared plane
// (principal directions or filter-normalised random ones) and the loss on a grid over it on a
// worker thread (LandscapeComputation: progress bar, Cancel), then draws it (LandscapePlot) with
// every run's trajectory and a marker at the scrubber's step, and below it the 1-D slice between
// the first two shown runs' final weights. The network and data are those of the experiment on
// screen (setExperiment); the loss is taken on its first kDefaultLandscapeExamples training
// examples. A change of runs or a new comparison leaves the picture until the next Compute.
#include "views/LandscapeComputation.h"
#include "views/LandscapePlot.h"
#include "views/RunSelection.h"

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

    LandscapePlot* landscapePlot() const { return plot_; }
    QCustomPlot* slicePlot() const { return slice_; }
    bool busy() const { return computation_->busy(); }
    QString statusText() const;  // what the line under the controls says

Q_SIGNALS:
    void computed();  // a landscape (or an error) arrived

private:
    void finished(const std::shared_ptr<const Landscape>& landscape, const QString& error);
    void showSlice(const Landscape& landscape);

    RunSelection* selection_;
    Experiment experiment_;
    LandscapeComputation* computation_;
    std::vector<int> computedRuns_;  // the selection's runs of the trajectories being computed
    std::vector<std::vector<long>> computedSteps_;  // their recorded steps at Compute
    QComboBox* directions_;
    QSpinBox* gridSize_;
    QPushButton* computeButton_;
    QPushButton* cancelButton_;
    QProgressBar* progress_;
    QLabel* status_;
    LandscapePlot* plot_;
    QCustomPlot* slice_;
    std::array<QCPItemStraightLine*, 2> ends_{};  // t = 0 and t = 1 on the slice
};

}  // namespace ml
