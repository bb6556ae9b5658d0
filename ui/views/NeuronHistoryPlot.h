#pragma once
// The neuron inspector's "Over steps" tab: one neuron's incoming connections over the run, for
// every run shown (overlaid), as three stacked strips sharing the step axis:
//   momentum  each incoming connection's first moment (thin) and the neuron mean (bold: the mean
//             of the neuron's incoming first moments, bias included when the run joins biases,
//             i.e. the fan-in mean, shown for every run so runs stay comparable)
//   gradient  the same connections' gradients
//   weight    the same connections' weights
// The bias is connection "bias" (last column); inputs of image data are named "pixel (row, col)".
// With more than kMaxPlottedConnections incoming connections only the largest |momentum| ones
// (|gradient| when the optimizer keeps no momentum) of the first run's latest snapshot are
// plotted, and per run a shaded band (in the run's colour) spans the middle half of the other
// connections (their 25 % to 75 % quantiles at each step); the title says so. Following ONE connection (column >= 0) plots just it, one line per
// run in the run's colour. Otherwise colour = connection (a muted palette that no run colour
// resembles, named by the legend), line style = run, and each run's bold neuron mean in the run's
// colour. A strip is never lower than its tick labels and y-label need (minimumStripHeight), only
// the bottom strip labels the shared step axis, and a quantity the optimizer does not keep is said
// inside its strip, not in the y-label. Each run's points are a DecimatingHistory of at most historyCapacity() steps.
// Reading: the y-ranges ignore each series' first point and the outer 1 % of values by default
// (robust: the first-step spike does not flatten the rest) and follow the visible steps; the
// wheel zooms the step axis only; sparse data (< kMarkerThreshold visible points) get markers.
// The title names, for a run that shares state, its group sizes (views/SharingGroups.h).
//
// Public API
//   showNeuron(layer, neuron, column, runs)  replots from the runs' archives (column -1: the
//                            neuron's connections); returns the snapshot the connections were
//                            chosen at (or null)
//   appendNew()              adds each run's archived snapshots past its last plotted step
//   setImageShape(shape)     names pixel inputs of first-layer neurons
//   setRobustRange(bool), robustRange(), fitVisible(), setStripHeight(pixels)
//   setHistoryCapacity(n) (used by the next showNeuron), historySize() (first run),
//   plottedConnections() (columns, bias = inputs), plottedRuns()
//   band(track, strip)       a wide neuron's band of the other connections: {lower, upper} graphs
//                            of the track-th run in strip 0 momentum, 1 gradient, 2 weight (null: none)
//   minimumStripHeight()     what one strip's tick labels and y-label need, axes included
#include "data/Dataset.h"
#include "model/DecimatingHistory.h"
#include "model/RunPalette.h"
#include "model/SnapshotArchive.h"

#include <qcustomplot.h>

#include <array>
#include <utility>
#include <vector>

namespace ml {

inline constexpr int kMaxPlottedConnections = 16;
inline constexpr int kMarkerThreshold = 60;
inline constexpr int kManyGraphs = 120;            // beyond it, square markers (cheap to draw) instead of discs
inline constexpr int kLegendBesideMinWidth = 640;  // narrower plots get the legend under the strips

// Whether the snapshot's network has neuron `neuron` in parameter layer `layer`.
bool hasNeuron(const Snapshot& snapshot, int layer, int neuron);
// "layer 0, neuron 3", "pixel (2, 5)" for image inputs, or "bias"; a conv kernel's weight
// (columnsPerInput = k*k > 1): "in channel 0, (1, 2)".
QString connectionName(int layer, int column, int inputs, ImageShape shape, int columnsPerInput = 1);

class NeuronHistoryPlot : public QCustomPlot {
    Q_OBJECT
public:
    struct RunSource {
        int run = 0;  // index of the run (its colour)
        QString label;
        const SnapshotArchive* archive = nullptr;
        RunLook look = {};  // its colour (an overlaid run's is lighter)
    };
    explicit NeuronHistoryPlot(QWidget* parent = nullptr);

    const Snapshot* showNeuron(int layer, int neuron, int column, const std::vector<RunSource>& runs);
    void appendNew();

    void setImageShape(ImageShape shape) { shape_ = shape; }
    void setRobustRange(bool robust);
    bool robustRange() const { return robust_; }
    void fitVisible();
    void setHistoryCapacity(int capacity) { capacity_ = capacity; }
    int historySize() const { return tracks_.empty() ? 0 : tracks_.front().history.size(); }
    const std::vector<int>& plottedConnections() const { return connections_; }
    std::vector<int> plottedRuns() const;
    void setStripHeight(int pixels);  // each strip's minimum height (at least minimumStripHeight())
    int minimumStripHeight() const;
    std::pair<QCPGraph*, QCPGraph*> band(std::size_t track, int strip) const;
    bool legendBelow() const { return legendBelow_; }

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    bool showAllRecordedSteps();  // the step axis over every track's recorded steps; false: none yet
    struct Panel {
        QCPAxisRect* rect = nullptr;
        QString name;
    };
    // One run's series: per connection momentum, gradient, weight graphs; then its mean.
    struct Track {
        RunSource source;
        DecimatingHistory history;
        long lastStep = -1;
        std::vector<QCPGraph*> graphs;  // 3 * connections: momentum..., gradient..., weight...
        QCPGraph* mean = nullptr;
        std::array<QCPGraph*, 6> band{};  // lower, upper per strip (momentum, gradient, weight)
    };
    void buildPanels();
    void showStrips(bool shown);
    void chooseConnections(const Snapshot& snapshot);
    void rebuildGraphs();
    std::vector<double> pointValues(const Snapshot& snapshot) const;
    bool appendTo(Track& track, const Snapshot& snapshot);
    void redraw(Track& track);
    void updateMarkers();
    void updateTitle(const Snapshot* snapshot);
    void setTitle(const QString& title);
    void relayout();  // legend, title and minimum height; the only caller of the three below
    void placeLegend();
    void wrapTitle();
    void updateMinimumHeight();
    void fitTickCounts();
    void addBand(Track& track);
    bool arranging_ = false;
    bool arrangeAgain_ = false;  // the plot was resized while arranging: one more round

    QCPTextElement* title_ = nullptr;
    QCPLegend* legend_ = nullptr;    // names the connection colours and the runs (shared by the strips)
    QCPLayoutGrid* side_ = nullptr;  // right of the strips: the legend's place in a wide plot
    bool legendBelow_ = false;
    QString fullTitle_;  // before wrapping to the width
    int stripHeight_ = 80;
    Panel momentum_, gradient_, weight_;
    std::vector<Track> tracks_;

    int layer_ = -1;
    int neuron_ = -1;
    int column_ = -1;
    int inputCount_ = 0;
    int columnsPerInput_ = 1;
    bool hasMomentum_ = true;
    bool robust_ = true;
    bool fitting_ = false;     // fitVisible() is moving axes: no feedback
    QString missingMomentum_;  // why there is none (model/Quantity.h)
    int capacity_ = 20000;
    ImageShape shape_;
    std::vector<int> connections_;    // columns of the neuron's row that are plotted
    std::vector<int> others_;         // the neuron's other columns, summarized by the band (wide neurons)
    QCPItemText* notKept_ = nullptr;  // "not kept by this optimizer" inside the momentum strip
    long chosenAtStep_ = 0;
};

}  // namespace ml
