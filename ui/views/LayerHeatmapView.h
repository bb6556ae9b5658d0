#pragma once
// One whole layer as a heat-map: cell (i, j) = the chosen quantity of the connection from input i
// to neuron j (x: "input i", y: "neuron j", neuron 0 at the top); the last column is the bias,
// marked by a line and the label "bias", or hidden with the "bias" check box. Colours: the shared
// diverging scale (blue - white - red, symmetric ±max|value| unless fixed), with a QCPColorScale.
// A conv layer (Map::kernel > 0) is a grid of its k×k kernels instead (views/KernelGrid.h): one
// row of kernels per output channel, one column per input channel, on the same one colour scale.
// Fast enough for 784-128-10 while training (see the test for the measured redraw time).
//
// Several runs are small multiples in ONE QCustomPlot: one map per panel of the shared
// RunSelection, all attached to one QCPColorScale (so one locked colour range by construction);
// the difference A − B is one map on its own symmetric range. A panel without values hides its
// axes and shows why ("momentum (first moment): not kept by this optimizer"), wrapped and elided
// to the panel's size after each layout, so that a small multiple's message stays inside it.
//
// Like the diagram, a canvas and a panel around it:
//   LayerHeatmapView (the canvas)
//     showSnapshot(s)        one map: s's layer coloured by the quantity (s shared, not copied)
//     showMatrices(maps, layerText)  one map per Matrix (caption, values [out x (in+1)]; empty
//                            values: "not kept"), on one shared colour range
//     setLayer(l) (clamped to the snapshot's layers), setQuantity(q), setShowBias(bool),
//     setColorLimit(l) (0 = automatic), clear()
//     plot(), colorMap() (the first), colorMaps(), colorScale()
//     signal cellClicked(panel, row, column): a click on a cell (the connection column -> row)
//   LayerHeatmapPanel (canvas + control bar: layer, quantity, colour range, bias column)
//     refresh()              redraws from the RunSelection (connected to its signals)
//     setLayer(l), setQuantity(q), setShowBias(bool), setColorLimit(l): through the controls
//     layer(), view(); signal connectionClicked(layer, neuron, input)
#include "views/DivergingColorScale.h"
#include "views/KernelGrid.h"
#include "model/Quantity.h"
#include "model/RunSelection.h"

#include <QWidget>

#include <optional>
#include <vector>

class QCheckBox;
class QComboBox;
class QCPColorMap;
class QCPColorScale;
class QCPItemStraightLine;
class QCPItemText;
class QCPTextElement;
class QCustomPlot;

namespace ml {

class ColorLimitSpinBox;
class QuantitySelector;

// "layer 1: 784 → 128" (parameter layer `layer` of the snapshot); "layer 1: conv 3×3, 1 → 4 channels".
QString layerTitle(const Snapshot& snapshot, int layer);

class LayerHeatmapView : public QWidget {
    Q_OBJECT
public:
    struct Map {
        QString caption;
        Matrix values;    // empty: not kept
        QString missing;  // why values is empty (model/Quantity.h: missingQuantityReason)
        int kernel = 0;   // a conv layer's kernel side: values drawn as a KernelGrid; 0: dense
    };
    explicit LayerHeatmapView(QWidget* parent = nullptr);

    void showSnapshot(SharedSnapshot snapshot);
    void showSnapshot(const Snapshot& snapshot) { showSnapshot(std::make_shared<const Snapshot>(snapshot)); }
    void showMatrices(std::vector<Map> maps, const QString& layerText);
    void setLayer(int layer);
    void setQuantity(Quantity quantity);
    void setShowBias(bool show);
    void setColorLimit(double limit);
    void clear();

    QCustomPlot* plot() const { return plot_; }
    QCPColorMap* colorMap() const { return cells_.front().map; }
    std::vector<QCPColorMap*> colorMaps() const;
    QCPColorScale* colorScale() const { return colorScale_; }

Q_SIGNALS:
    void cellClicked(int panel, int row, int column);

private:
    struct Cell {  // one panel: its axis rect, map, bias marks and message
        QCPAxisRect* rect = nullptr;
        QCPColorMap* map = nullptr;
        QCPTextElement* caption = nullptr;
        QCPItemStraightLine* biasLine = nullptr;
        QCPItemText* biasLabel = nullptr;
        QCPItemText* message = nullptr;
        QString messageText;             // unwrapped; fitMessages() breaks it to the panel's width
        QString messageReason;           // the same without the quantity's name, for a panel too small for it
        std::optional<KernelGrid> grid;  // a conv layer's layout (pixel -> matrix entry)
    };
    void buildPlot();
    void ensureCells(int count);
    void redraw();
    void drawCell(Cell& cell, const Map& map);
    void drawKernels(Cell& cell, const Map& map);
    void fitMessages();

    QCustomPlot* plot_ = nullptr;
    QCPLayoutGrid* grid_ = nullptr;
    QCPColorScale* colorScale_ = nullptr;
    QCPTextElement* title_ = nullptr;
    QCPMarginGroup* margins_ = nullptr;
    std::vector<Cell> cells_;
    DivergingColorScale scale_;
    SharedSnapshot snapshot_;  // showSnapshot's (re-extracted on setLayer/setQuantity)
    std::vector<Map> maps_;
    QString layerText_;
    int layer_ = 0;
    Quantity quantity_ = Quantity::FirstMoment;
    bool showBias_ = true;
};

class LayerHeatmapPanel : public QWidget {
    Q_OBJECT
public:
    explicit LayerHeatmapPanel(RunSelection* selection, QWidget* parent = nullptr);

    void refresh();
    void setLayer(int layer);
    int layer() const;
    void setQuantity(Quantity quantity);
    void setShowBias(bool show);
    void setColorLimit(double limit);
    LayerHeatmapView* view() const { return view_; }

Q_SIGNALS:
    void connectionClicked(int layer, int neuron, int input);

private:
    void syncLayerChoices(const Snapshot& snapshot);

    RunSelection* selection_;
    QComboBox* layers_;
    QuantitySelector* quantities_;
    ColorLimitSpinBox* limit_;
    QCheckBox* showBias_;
    LayerHeatmapView* view_;
};

}  // namespace ml
