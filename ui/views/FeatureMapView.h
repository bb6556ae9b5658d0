#pragma once
// The neuron inspector's "Feature maps" tab: for one output channel of a conv layer, what it
// makes of one test image — its map after the layer's activation and, when a pooling layer
// follows, after the pooling — for every panel of the RunSelection (runs side by side, or A − B)
// at the selection's step. The maps are computed from each snapshot's weights by core's forward
// pass (Network::layerOutputs), never by a copy of it. A spin box chooses the test example; the
// input image itself is drawn at the left. Every map shares one colour scale, so runs compare.
// The test data are loaded (loadExperimentData) the first time the maps are drawn.
//
// Public API
//   setExperiment(e)           the network and the data of the comparison on screen (forgets
//                              the loaded test data)
//   setChannel(layer, channel) layer: index among the layers with parameters (as snapshots)
//   refresh()                  draws the current selection (the inspector calls it while shown)
//   example(), setExample(i)   the test example shown (the spin box)
//   message()                  why nothing is drawn (empty when maps are shown)
//   columnCount(), hasPooling(), inputMap(), map(row, column) (row 0 activation, 1 pooling), scale()
#include "experiment/Experiment.h"
#include "model/RunSelection.h"

#include <QWidget>
#include <qcustomplot.h>

#include <memory>
#include <optional>

class QLabel;
class QSpinBox;

namespace ml {

class FeatureMapView : public QWidget {
    Q_OBJECT
public:
    explicit FeatureMapView(RunSelection* selection, QWidget* parent = nullptr);

    void setExperiment(const Experiment& experiment);
    void setChannel(int layer, int channel);
    void refresh();
    int example() const;
    void setExample(int index);
    QString message() const { return message_; }

    QCustomPlot* plot() const { return plot_; }
    int columnCount() const { return columns_; }
    bool hasPooling() const { return pooled_; }
    QCPColorMap* inputMap() const { return inputMap_; }
    QCPColorMap* map(int row, int column) const { return maps_[static_cast<std::size_t>(column * 2 + row)]; }
    QCPColorScale* scale() const { return scale_; }

private:
    // One layer's maps of the chosen channel: its output after the activation and after pooling.
    struct ChannelMaps {
        Matrix activation;  // H' x W'; empty: not computable (another network)
        Matrix pooled;      // empty without pooling
    };
    // Where the chosen channel lives in the network spec (nullopt: not a conv channel).
    struct Place {
        std::size_t convLayer = 0;  // index into spec.layers
        bool pooled = false;
        SampleShape convShape, poolShape;
        QString activationName, poolName;
    };
    std::optional<Place> place() const;
    bool loadTestData();
    ChannelMaps mapsOf(const Snapshot& snapshot, const Place& place, const BatchMatrix& sample) const;
    void rebuild(int columns, bool pooled);
    void showMessage(const QString& text);

    RunSelection* selection_;
    QSpinBox* example_ = nullptr;
    QLabel* exampleText_ = nullptr;
    QCustomPlot* plot_ = nullptr;
    QCPTextElement* title_ = nullptr;
    QCPColorMap* inputMap_ = nullptr;
    QCPColorScale* scale_ = nullptr;
    std::vector<QCPColorMap*> maps_;  // column-major: column * 2 + row
    int columns_ = 0;
    bool pooled_ = false;

    Experiment experiment_;
    std::shared_ptr<const Dataset> test_;
    bool triedLoading_ = false;
    QString loadError_;
    int layer_ = -1;
    int channel_ = -1;
    QString message_;
};

}  // namespace ml
