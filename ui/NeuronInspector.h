#pragma once
// One neuron over time. After setNeuron(layer, j) (layer = parameter layer, j = its row), every
// snapshot of the chosen run adds a point to three stacked plots sharing the step axis:
//   momentum  each incoming connection's first moment (thin) and the neuron mean (bold: the mean
//             of the neuron's incoming first moments, bias included when the run joins biases,
//             i.e. the fan-in mean, shown for every run so runs stay comparable)
//   gradient  the same connections' gradients
//   weight    the same connections' weights
// The bias is connection "bias" (last column). With more than kMaxPlottedConnections incoming
// connections only the largest |momentum| ones (|gradient| when the optimizer keeps no momentum),
// chosen at the first snapshot after setNeuron, are plotted; the title says so.
// History: at most historyCapacity() points per series (default 20,000); when full, every second
// point is dropped and only every second new snapshot is kept (DecimatingHistory).
// Image data (setImageShape, first-layer neurons whose input count is height*width): a second
// tab shows the neuron's incoming weights and momentum as two images on diverging scales.
//
// Public API
//   setRun(run)              only snapshots of this run are used (default 0); clears history
//   setNeuron(layer, neuron) clears history; (-1, -1) = nothing selected
//   setImageShape(shape)     invalid shape: no image tab
//   addSnapshot(s)           ignored for other runs, when the neuron does not exist in it, or when
//                            s.step is not past the last added one (re-delivered snapshots)
//   clear()                  forgets the history (keeps run, neuron and image shape)
//   setHistoryCapacity(n), historySize(), plottedConnections() (columns, bias = in)
//   plot()                   the step plots (for export), imagePlot() the image tab's plot
#include "DecimatingHistory.h"
#include "data/Dataset.h"
#include "train/Snapshot.h"

#include <QWidget>

#include <vector>

class QCustomPlot;
class QCPAxisRect;
class QCPColorMap;
class QCPColorScale;
class QCPGraph;
class QCPLegend;
class QCPTextElement;
class QTabWidget;

namespace ml {

inline constexpr int kMaxPlottedConnections = 16;

class NeuronInspector : public QWidget {
    Q_OBJECT
public:
    explicit NeuronInspector(QWidget* parent = nullptr);

    void setRun(int run);
    int run() const { return run_; }
    void setNeuron(int layer, int neuron);
    int layer() const { return layer_; }
    int neuron() const { return neuron_; }
    void setImageShape(ImageShape shape);
    void addSnapshot(const Snapshot& snapshot);
    void clear();

    void setHistoryCapacity(int capacity);
    int historyCapacity() const { return capacity_; }
    int historySize() const { return history_.size(); }
    const std::vector<int>& plottedConnections() const { return connections_; }

    QCustomPlot* plot() const { return plot_; }
    QCustomPlot* imagePlot() const { return imagePlot_; }

private:
    // One stacked plot: thin lines per connection, optionally a bold mean line.
    struct Panel {
        QCPAxisRect* rect = nullptr;
        QCPTextElement* title = nullptr;
        std::vector<QCPGraph*> graphs;
        QCPGraph* mean = nullptr;
        QString name;
    };
    struct ImagePanel {
        QCPAxisRect* rect = nullptr;
        QCPColorMap* map = nullptr;
        QCPColorScale* scale = nullptr;
    };
    void buildPlots();
    void buildImagePlot();
    void resetHistory();
    void chooseConnections(const Snapshot& snapshot);
    void rebuildGraphs();
    void appendPoint(const Snapshot& snapshot);
    void redrawAll();
    void updateTitles(const Snapshot* snapshot);
    void updateImages(const Snapshot& snapshot);
    bool imageApplies(const Snapshot& snapshot) const;
    void keepPixelsSquare();
    void updateImageTab();

    QTabWidget* tabs_ = nullptr;
    QCustomPlot* plot_ = nullptr;
    QCustomPlot* imagePlot_ = nullptr;
    QCPTextElement* plotTitle_ = nullptr;
    QCPTextElement* imageTitle_ = nullptr;
    QCPLegend* legend_ = nullptr;  // names the connection colours (shared by the three plots)
    Panel momentum_, gradient_, weight_;
    ImagePanel weightImage_, momentumImage_;

    int run_ = 0;
    int layer_ = -1;
    int neuron_ = -1;
    int inputCount_ = 0;
    bool hasMomentum_ = true;
    ImageShape imageShape_;
    int capacity_ = 20000;
    std::vector<int> connections_;  // columns of the neuron's row that are plotted
    long chosenAtStep_ = 0;
    long lastStep_ = 0;             // snapshots must advance; repeats are ignored
    DecimatingHistory history_;     // per connection: momentum, gradient, weight; then the mean
};

}  // namespace ml
