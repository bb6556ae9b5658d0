#pragma once
// One neuron over time, over the whole run. Every snapshot of the chosen run goes into a bounded
// archive, whether or not a neuron is selected, so a neuron clicked late in (or after) a run shows
// its history from the start. setNeuron(layer, j) (layer = parameter layer, j = its row) replays
// the archive into three stacked plots sharing the step axis; later snapshots add points:
//   momentum  each incoming connection's first moment (thin) and the neuron mean (bold: the mean
//             of the neuron's incoming first moments, bias included when the run joins biases,
//             i.e. the fan-in mean, shown for every run so runs stay comparable)
//   gradient  the same connections' gradients
//   weight    the same connections' weights
// The bias is connection "bias" (last column). With more than kMaxPlottedConnections incoming
// connections only the largest |momentum| ones (|gradient| when the optimizer keeps no momentum)
// in the latest archived snapshot when the neuron was selected are plotted; the title says so.
// Archive: copies of the snapshots (parameters, gradient and first moment only), at most
// archiveCapacity() = min(historyCapacity(), max(16, archive budget (64 MB) / bytes of one
// snapshot)); when full, every second snapshot is dropped and only every second new one is kept
// (DecimationStride, as DecimatingHistory), so it always spans the whole run. The plotted
// history holds exactly the archived snapshots (at most historyCapacity() points, default 20,000).
// Image data (setImageShape, first-layer neurons whose input count is height*width): a second
// tab shows the neuron's incoming weights and momentum as two images on diverging scales.
//
// Public API
//   setRun(run)              only snapshots of this run are used (default 0); forgets the archive
//                            and reports the run change (SnapshotView: the router re-sends its latest)
//   setNeuron(layer, neuron) replots from the archive; (-1, -1) = nothing selected
//   setImageShape(shape)     invalid shape: no image tab
//   showSnapshot(s)          archived (and plotted) unless of another run or s.step is not past
//                            the last added one (re-delivered snapshots)
//   clear()                  forgets the archive and history (keeps run, neuron and image shape)
//   setHistoryCapacity(n) (forgets the archive), historySize(), plottedConnections() (columns,
//   bias = in), setArchiveBudget(bytes) (forgets the archive), archiveSize(), archiveCapacity()
//   (0 before the first snapshot), archivedSteps()
//   plot()                   the step plots (for export), imagePlot() the image tab's plot
#include "model/DecimatingHistory.h"
#include "data/Dataset.h"
#include "train/Snapshot.h"
#include "views/SnapshotView.h"

#include <QWidget>

#include <cstddef>
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

class NeuronInspector : public QWidget, public SnapshotView {
    Q_OBJECT
public:
    explicit NeuronInspector(QWidget* parent = nullptr);

    void setRun(int run);
    int run() const { return run_; }
    void setNeuron(int layer, int neuron);
    int layer() const { return layer_; }
    int neuron() const { return neuron_; }
    void setImageShape(ImageShape shape);
    void setRuns(const QStringList&) override {}  // the run is chosen with setRun (MainWindow: the diagram's)
    void showSnapshot(const Snapshot& snapshot) override;
    void clear() override;
    bool wantsEverySnapshot() const override { return true; }

    static constexpr std::size_t kDefaultArchiveBudget = std::size_t(64) << 20;

    void setHistoryCapacity(int capacity);
    void setArchiveBudget(std::size_t bytes);
    int archiveSize() const { return static_cast<int>(archive_.size()); }
    int archiveCapacity() const { return archiveCapacity_; }
    std::vector<long> archivedSteps() const;
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
    bool shows(const Snapshot& snapshot) const;
    void replay();
    void chooseConnections(const Snapshot& snapshot);
    void rebuildGraphs();
    std::vector<double> pointValues(const Snapshot& snapshot) const;
    void appendPoint(const Snapshot& snapshot);
    void fitAxes();
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
    long lastStep_ = kNoStep;       // snapshots must advance; repeats are ignored
    static constexpr long kNoStep = -1;
    std::size_t archiveBudget_ = kDefaultArchiveBudget;
    int archiveCapacity_ = 0;       // set by the first archived snapshot
    DecimationStride archivePolicy_;
    std::vector<Snapshot> archive_; // the chosen run's snapshots, oldest first
    DecimatingHistory history_;     // per connection: momentum, gradient, weight; then the mean
};

}  // namespace ml
