#pragma once
// One whole layer as a heat-map: cell (i, j) = the chosen quantity of the connection from input i
// to neuron j (x: "input i", y: "neuron j", neuron 0 at the top); the last column is the bias,
// marked by a line and the label "bias", or hidden with the "bias" check box. Colours: the shared
// diverging scale (blue - white - red, symmetric ±max|value| unless fixed), with a QCPColorScale.
// Fast enough for 784-128-10 while training (see the test for the measured redraw time).
//
// Like the diagram, a canvas and a panel around it:
//   LayerHeatmapView (the canvas)
//     showSnapshot(s)        stores the snapshot and redraws
//     setLayer(l) (clamped to the snapshot's layers), setQuantity(q), setShowBias(bool),
//     setColorLimit(l) (0 = automatic), clear()
//     plot(), colorMap()     the QCustomPlot (export: savePng/savePdf) and its colour map
//   LayerHeatmapPanel (canvas + control bar: run, layer, quantity, colour range, bias column)
//     setRuns(labels)        run labels for the run combo (a SnapshotView: reports the chosen run)
//     showSnapshot(s)        shown when s.run is the chosen run, otherwise ignored; the layer
//                            combo follows the snapshot's layers
//     setLayer(l), setQuantity(q), setShowBias(bool), setColorLimit(l): through the controls
//     clear(), view()
#include "views/DivergingColorScale.h"
#include "views/Quantity.h"
#include "views/SnapshotView.h"

#include <QWidget>


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
class RunSelector;

// "layer 1: 784 → 128" (parameter layer `layer` of the snapshot).
QString layerTitle(const Snapshot& snapshot, int layer);

class LayerHeatmapView : public QWidget {
    Q_OBJECT
public:
    explicit LayerHeatmapView(QWidget* parent = nullptr);

    void showSnapshot(const SharedSnapshot& snapshot);
    void setLayer(int layer);
    void setQuantity(Quantity quantity);
    void setShowBias(bool show);
    void setColorLimit(double limit);
    void clear();

    QCustomPlot* plot() const { return plot_; }
    QCPColorMap* colorMap() const { return map_; }

private:
    void buildPlot();
    void redraw();
    void showMessage(const QString& message);

    QCustomPlot* plot_ = nullptr;
    QCPColorMap* map_ = nullptr;
    QCPColorScale* colorScale_ = nullptr;
    QCPTextElement* title_ = nullptr;
    QCPItemStraightLine* biasLine_ = nullptr;
    QCPItemText* biasLabel_ = nullptr;
    QCPItemText* message_ = nullptr;
    DivergingColorScale scale_;
    SharedSnapshot snapshot_;
    int layer_ = 0;
    Quantity quantity_ = Quantity::FirstMoment;
    bool showBias_ = true;
};

class LayerHeatmapPanel : public QWidget, public SnapshotView {
    Q_OBJECT
public:
    explicit LayerHeatmapPanel(QWidget* parent = nullptr);

    void setRuns(const QStringList& labels) override;
    void showSnapshot(const SharedSnapshot& snapshot) override;
    void setLayer(int layer);
    void setQuantity(Quantity quantity);
    void setShowBias(bool show);
    void setColorLimit(double limit);
    void clear() override;
    LayerHeatmapView* view() const { return view_; }

private:
    void syncLayerChoices(const Snapshot& snapshot);

    RunSelector* runs_;
    QComboBox* layers_;
    QuantitySelector* quantities_;
    ColorLimitSpinBox* limit_;
    QCheckBox* showBias_;
    LayerHeatmapView* view_;
};

}  // namespace ml
