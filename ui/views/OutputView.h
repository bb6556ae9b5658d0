#pragma once
// The output view: what the networks compute, at the scrubber's step, for every panel of the
// RunSelection (runs side by side, or A − B). For two inputs, the decision regions over the input
// plane (classification: the predicted class, lighter where the network is less sure; regression:
// the predicted value) with the training points (filled) and test points (hollow) on top and the
// misclassified ones crossed out; for one input, the fitted curve over the data points. A − B
// draws the difference on a diverging scale: of the probability of A's predicted class, or of the
// predicted values. The outputs come from each snapshot's weights by the core's forward pass over
// a grid of kGridSize × kGridSize points (views/OutputGrid.h), one batch per panel. The data are
// loaded (loadExperimentData) the first time the view is drawn; a network of more than two inputs
// is not drawn, and message() says why.
//
// Public API
//   setExperiment(e)     the network and the data of the comparison on screen
//   refresh()            draws the selection now (the view redraws itself when shown)
//   message()            why nothing is drawn (empty when drawn); cannotDraw(): why never
//   plot(), columnCount(), map(column), curve(column), wrongTrain/Test(column)  for the export and tests
//   setGridSize(n)       points per side (default kGridSize)
#include "experiment/Experiment.h"
#include "model/RunSelection.h"
#include "views/OutputGrid.h"

#include <QWidget>

#include <memory>

class QCustomPlot;
class QCPAxisRect;
class QCPColorMap;
class QCPColorScale;
class QCPGraph;
class QCPTextElement;

namespace ml {

class OutputView : public QWidget {
    Q_OBJECT
public:
    static constexpr int kGridSize = 200;
    // The data points drawn per split (the first ones): a large 2-column CSV stays quick to redraw.
    static constexpr Eigen::Index kMaxPointsShown = 1000;

    explicit OutputView(RunSelection* selection, QWidget* parent = nullptr);

    void setExperiment(const Experiment& experiment);
    void setGridSize(int size);
    void refresh();
    QString message() const { return message_; }
    // Why the experiment's network or data cannot be drawn at all (more than two inputs, data that
    // do not load); empty when they can. Loads the data the first time.
    QString cannotDraw();

    QCustomPlot* plot() const { return plot_; }
    int columnCount() const { return static_cast<int>(panels_.size()); }
    QCPColorMap* map(int column) const { return panels_[static_cast<std::size_t>(column)].map; }
    QCPGraph* curve(int column) const { return panels_[static_cast<std::size_t>(column)].curve; }
    // Misclassified points of the column's run, training and test (0 in A − B).
    int wrongTrain(int column) const { return panels_[static_cast<std::size_t>(column)].wrongTrain; }
    int wrongTest(int column) const { return panels_[static_cast<std::size_t>(column)].wrongTest; }

private:
    // One panel's plottables, built when the number of panels or the kind of drawing changes.
    struct PanelPlots {
        QCPAxisRect* rect = nullptr;
        QCPColorMap* map = nullptr;          // two inputs
        QCPGraph* curve = nullptr;           // one input
        std::vector<QCPGraph*> train, test;  // per class (one for regression)
        QCPGraph* crosses = nullptr;         // misclassified points
        int wrongTrain = 0, wrongTest = 0;
    };
    // The data points one split shows.
    struct Points {
        Batch samples;
        Eigen::Index first = 0;  // their first row in the grid's outputs
    };
    bool prepare();
    void rebuild(int columns, bool difference);
    void drawPanel(PanelPlots& plots, const RunSelection::Panel& panel, double& largest);
    void drawPoints(PanelPlots& plots, const Eigen::VectorXi* predictedTrain, const Eigen::VectorXi* predictedTest);
    void showMessage(const QString& text);
    int classCount() const;

    RunSelection* selection_;
    QCustomPlot* plot_;
    QCPTextElement* title_ = nullptr;
    QCPColorScale* scale_ = nullptr;
    std::vector<PanelPlots> panels_;
    bool drawnAsDifference_ = false;
    int gridSize_ = kGridSize;

    Experiment experiment_;
    bool prepared_ = false;
    QString failure_;  // why the experiment cannot be drawn (prepare)
    std::unique_ptr<OutputGrid> grid_;
    Points train_, test_;
    BatchMatrix outputs_, minusOutputs_;  // the grid's (and the data points') outputs of A and B
    QString message_;
};

}  // namespace ml
