#pragma once
// The network as a diagram: neurons as circles in columns (input on the left), each connection a
// line coloured by the chosen quantity on the diverging scale (blue < 0 < red, white = 0), its
// width growing with |value|. Biases: each hidden/output neuron's FILL is its bias's value on
// the same scale (input neurons are grey); the colour legend with numbers sits on the right.
// Layers wider than kMaxDrawnNeurons show their 16 most informative neurons (largest summed
// |quantity| over their incoming and outgoing connections; the first 16 when the quantity is not
// kept), in index order, and a "+N more" note, plus a hint to use the heat-map view. Each neuron shows its index; names follow views/NeuronNames.h
// ("layer 1, neuron 0", the input column being layer 0). For a run that shares state
// (--momentum-mean, --second-moment-mean) each column's caption and each neuron's tooltip give the
// group size (views/SharingGroups.h).
// Convolutional networks (views/ChannelUnits.h, views/ConvLayerDrawing.h): a conv layer is a
// column of channel boxes, one line per (input channel, output channel) kernel coloured by the
// mean over its k×k weights; a dense layer after a conv has one line per channel (the mean over
// its flattened pixels); pooling layers (known from setNetwork) are thin boxes beside the channels.
// Neuron functions (views/NeuronThumbnails.h): with the panel's "Neuron functions" on, a dense
// network with one or two inputs draws every neuron (inputs too) as a square holding what it
// computes over the input range at the shown step: an image over the plane (2 inputs) or a curve
// (1 input), each column on its own colour limit shared by every canvas (written above the
// column), A − B in a difference panel. Other networks keep the circles (the toggle disabled,
// its tooltip says why).
//
// Layer convention (as everywhere): parameter layer l is a matrix [out x (in+1)]; neuron j of
// column l+1 is row j of parameter layer l. Input neurons belong to "layer" -1.
//
// Public API of NetworkDiagramView (the canvas: one panel of the small multiples)
//   showSnapshot(s)          keeps the snapshot (shared, not copied; a plain value is wrapped once),
//                            colours it by its own quantity and repaints
//   showPanel(s, values, caption)  draws shared snapshot s's network coloured by precomputed values
//                            (one matrix per parameter layer: a run's quantity or a difference A − B)
//   fittedLimit()            max |value| of what is drawn (the panel shares the largest)
//   setQuantity(q)
//   setColorLimit(l)         l > 0 fixes the colour range to ±l, 0 = automatic (max|value|)
//   clear()                  forgets the snapshot and the selection
//   render(painter, size)    paints the diagram (title, connections, neurons, legend) into any
//                            painter, e.g. for PNG/SVG/PDF export; the widget paints through it
//   setNetwork(spec)         the run's --network (names pooling layers; ignored when it does not
//                            fit the snapshot's matrices)
//   setSelectedNeuron(l, j)  highlights a neuron (l = -1 or j = -1: none)
//   setThumbnails(t)         draws the neurons as t's functions (null: circles, as before)
//   setColumnNames(names)    captions "NAME: size" under the first columns instead of "layer L: size"
//                            (a recorded layer drawn alone); takes effect at the next show
//   neuronCenter(l, j)       centre of a drawn neuron in widget coordinates (null when not drawn)
//   toolTipAt(point)         the text the tooltip shows there ("" when nothing is near)
//   signal neuronClicked(l, j)  a click on a hidden/output neuron (l = parameter layer, j = row;
//                            it is also highlighted); input neurons are not clickable
//   signal connectionClicked(l, j, i)  a click on the connection from input i to neuron j
//
// Public API of NetworkDiagramPanel (control bar: quantity, colour range; over one canvas per
// panel of the shared RunSelection, all on ONE colour limit: the largest fittedLimit, or the
// user's fixed one)
//   setNetwork(spec)         passed to every canvas
//   setExperiment(e)         setNetwork, and the network and data the neuron functions are
//                            computed for (the toggle is disabled for networks without them); a
//                            recorded model shown as blocks (e.recorded.asBlocks) lists its layers
//                            above the canvases (views/LayerBlockList.h) and draws the picked one
//                            alone, its inputs on the left; clicks and the selection still name
//                            the layer's index in the snapshots
//   pickedBlock()            the layer drawn in block mode (-1: not in block mode)
//   setThumbnailsShown(on), thumbnailsShown(), signal thumbnailsToggled(bool)  the toggle
//                            ("Neuron functions"); shown only where the network has them
//   thumbnailsUnavailable()  why the network has none ("" when it has)
//   setThumbnailSamples(n), thumbnailSamples()  samples per input (64: 64 × 64 per neuron)
//   setQuantity(q)           selects q in the quantity combo (and so in the canvases)
//   refresh()                redraws from the selection (connected to its signals)
//   setSelectedNeuron(l, j), selectedLayer(), selectedNeuron()  the ring on every canvas
//   canvases(), view() (the first canvas), renderAll(painter, size) (every canvas, tiled)
//   signals neuronClicked(int layer, int neuron), connectionClicked(layer, neuron, input)
#include "views/ChannelUnits.h"
#include "views/DivergingColorScale.h"
#include "views/NeuronThumbnails.h"
#include "model/Quantity.h"
#include "model/RunSelection.h"

#include <QImage>
#include <QStringList>
#include <QPointF>
#include <QWidget>

#include <optional>
#include <vector>

class QCheckBox;
class QPainter;

namespace ml {

class ColorLimitSpinBox;
class LayerBlockList;
class QuantitySelector;

inline constexpr int kMaxDrawnNeurons = 16;

// Where each drawn neuron sits for a given canvas size. One job: geometry.
class DiagramLayout {
public:
    DiagramLayout() = default;
    // sizes: neurons per column (inputs first); shown: per column, the indices of the neurons
    // drawn (ascending, at most kMaxDrawnNeurons); area: where the network may be drawn;
    // thumbnails: neurons are squares holding an image, given more room than circles.
    DiagramLayout(const std::vector<int>& sizes, const std::vector<std::vector<int>>& shown, const QRectF& area,
                  bool thumbnails = false);

    int columnCount() const { return static_cast<int>(shown_.size()); }
    int drawnNeurons(int column) const { return static_cast<int>(shown_[static_cast<std::size_t>(column)].size()); }
    int hiddenNeurons(int column) const { return hidden_[static_cast<std::size_t>(column)]; }
    int neuronAt(int column, int slot) const {
        return shown_[static_cast<std::size_t>(column)][static_cast<std::size_t>(slot)];
    }
    int slotOf(int column, int neuron) const;  // -1: not drawn
    QPointF center(int column, int slot) const;
    double radius() const { return radius_; }
    // Below the last drawn neuron of a truncated column: where "+N more" goes.
    QPointF ellipsisPosition(int column) const;

private:
    std::vector<std::vector<int>> shown_;
    std::vector<int> hidden_;
    std::vector<double> x_;
    std::vector<double> top_;
    double spacing_ = 0.0;
    double radius_ = 0.0;
};

class NetworkDiagramView : public QWidget {
    Q_OBJECT
public:
    explicit NetworkDiagramView(QWidget* parent = nullptr);

    void showSnapshot(SharedSnapshot snapshot);
    void showSnapshot(const Snapshot& snapshot) { showSnapshot(std::make_shared<const Snapshot>(snapshot)); }
    void showPanel(SharedSnapshot snapshot, std::vector<Matrix> values, const QString& caption);
    void setQuantity(Quantity quantity);
    void setNetwork(const NetworkSpec& network);
    const NetworkUnits& units() const { return units_; }
    // What the lines and boxes show: per parameter layer [out x (input units + 1)].
    const std::vector<Matrix>& drawnValues() const { return values_; }
    void setColorLimit(double limit);
    double fittedLimit() const { return fittedLimit_; }
    double colorLimit() const { return scale_.limit(); }
    void clear();
    bool hasSnapshot() const { return snapshot_ != nullptr; }
    void setCompact(bool compact) {
        compact_ = compact;
        updateGeometry();
    }

    using QWidget::render;  // the base overloads stay usable
    void render(QPainter& painter, QSize size) const;

    void setSelectedNeuron(int layer, int neuron);
    void setThumbnails(std::shared_ptr<const NeuronThumbnails> thumbnails);
    void setColumnNames(const QStringList& names) { columnNames_ = names; }
    const NeuronThumbnails* thumbnails() const { return thumbnails_.get(); }  // null: circles
    QPointF neuronCenter(int layer, int neuron) const;
    QString toolTipAt(QPointF point) const;

    QSize sizeHint() const override { return {640, 420}; }
    QSize minimumSizeHint() const override { return compact_ ? QSize(120, 90) : QSize(240, 140); }

Q_SIGNALS:
    void neuronClicked(int layer, int neuron);
    void connectionClicked(int layer, int neuron, int input);

protected:
    bool event(QEvent* event) override;
    // Paints the cached drawing (drawn first when missing or of another size).
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    struct Hit {
        enum class Kind { None, Neuron, Connection } kind = Kind::None;
        int layer = -1;   // parameter layer (-1: input neuron)
        int row = -1;     // neuron j
        int column = -1;  // input i (connections only)
    };
    // Everything paint and hit-tests need for one canvas size.
    struct Frame {
        QRectF titleArea, networkArea, legendArea;
        DiagramLayout layout;
        int captionLines = 2;
    };
    Frame frameFor(QSize size) const;
    // A change queues a fresh drawing on the RenderQueue (one per event-loop turn, so several
    // canvases changed by one delivery do not all draw in one frame); paint copies it.
    void redraw();
    void drawCache() const;
    Hit hitAt(const Frame& frame, QPointF point) const;
    void recomputeValues();
    void fitToDrawn();
    void chooseShownNeurons();
    float valueAt(int layer, int row, int column) const;
    QString title() const;

    void paintTitle(QPainter& painter, const Frame& frame) const;
    void paintConnections(QPainter& painter, const Frame& frame) const;
    void paintNeurons(QPainter& painter, const Frame& frame) const;
    void paintNotes(QPainter& painter, const Frame& frame) const;
    void paintPools(QPainter& painter, const Frame& frame) const;
    void paintIndex(QPainter& painter, QPointF center, double radius, int neuron, const QColor& fill) const;
    void paintThumbnail(QPainter& painter, QPointF center, double radius, int column, int neuron) const;
    void paintThumbnailLimits(QPainter& painter, const Frame& frame) const;
    QString thumbnailLegend() const;
    QString captionOf(int column, int columnCount, int size) const;

    SharedSnapshot snapshot_;  // shared with the archive: ~2 MB per 784-128-10 snapshot never copied
    std::optional<NetworkSpec> network_;
    NetworkUnits units_;          // snapshot_ as columns of neurons or channels
    std::vector<Matrix> values_;  // the quantity per parameter layer, one column per input unit (empty: not kept)
    QStringList columnNames_;     // captions of the first columns (empty: "layer L")
    bool ownValues_ = true;       // values_ come from snapshot_ and quantity_ (not showPanel)
    QString caption_;
    double fittedLimit_ = 0.0;
    bool compact_ = false;
    std::vector<std::vector<int>> shown_;  // per column, the neurons drawn
    Quantity quantity_ = Quantity::FirstMoment;
    DivergingColorScale scale_;
    int selectedLayer_ = -2;
    int selectedNeuron_ = -1;
    std::shared_ptr<const NeuronThumbnails> thumbnails_;  // null: circles
    mutable QImage cache_;
    mutable bool cacheValid_ = false;
};

// The one colour legend beside several canvases (they share its limit).
class ColourLegend : public QWidget {
    Q_OBJECT
public:
    explicit ColourLegend(QWidget* parent = nullptr);
    void setScale(double limit, const QString& title);
    void paint(QPainter& painter, const QRectF& rect) const;
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    DivergingColorScale scale_;
    QString title_;
};

class NetworkDiagramPanel : public QWidget {
    Q_OBJECT
public:
    explicit NetworkDiagramPanel(RunSelection* selection, QWidget* parent = nullptr);

    void setQuantity(Quantity quantity);  // through the combo, so both stay in step
    void setNetwork(const NetworkSpec& network);
    void setExperiment(const Experiment& experiment);
    int pickedBlock() const;
    bool thumbnailsShown() const;
    void setThumbnailsShown(bool shown);
    QString thumbnailsUnavailable() const { return thumbnails_.unsupportedReason(); }
    void setThumbnailSamples(int samples);
    int thumbnailSamples() const { return thumbnails_.samples(); }
    Quantity quantity() const;
    void refresh();
    void setSelectedNeuron(int layer, int neuron);
    int selectedLayer() const { return selectedLayer_; }
    int selectedNeuron() const { return selectedNeuron_; }
    const std::vector<NetworkDiagramView*>& canvases() const { return canvases_; }
    NetworkDiagramView* view() const { return canvases_.front(); }
    void renderAll(QPainter& painter, QSize size) const;

Q_SIGNALS:
    void neuronClicked(int layer, int neuron);
    void connectionClicked(int layer, int neuron, int input);
    void thumbnailsToggled(bool shown);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void ensureCanvases(int count);
    void arrangeCanvases();
    int gridColumns(QSize area) const;
    void offerThumbnails();
    bool inBlockMode() const;
    int canvasLayer(int layer) const;  // the snapshot's layer as the canvas draws it (block mode: 0 or -1)
    SharedSnapshot blockOf(const SharedSnapshot& snapshot, int layer);

    RunSelection* selection_;
    // Block mode: the picked layer of the snapshots shown last, so that a redraw of the same step (a
    // quantity, a colour limit) copies no layer again.
    struct Block {
        SharedSnapshot whole;
        int layer = -1;
        SharedSnapshot alone;
    };
    std::vector<Block> shownBlocks_;
    QuantitySelector* quantities_;
    ColorLimitSpinBox* limit_;
    QCheckBox* thumbnailToggle_;
    ThumbnailSource thumbnails_;
    LayerBlockList* blocks_;
    QWidget* grid_;
    ColourLegend* legend_;
    std::vector<NetworkDiagramView*> canvases_;
    std::optional<NetworkSpec> network_;
    int selectedLayer_ = -1;
    int selectedNeuron_ = -1;
};

}  // namespace ml
