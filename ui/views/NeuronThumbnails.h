#pragma once
// The network diagram's neuron thumbnails (views/NetworkDiagramView.h): for a dense network with
// one or two inputs, what each neuron computes over the input range, drawn inside the neuron: an
// image over the plane (two inputs) or a curve over the line (one input). The values come from
// core's nn/NeuronFunctions.h (the network's own forward pass on the snapshot's weights, one
// batched product per layer over the grid that spans the training inputs with a margin).
//
// Public API
//   NeuronThumbnails           what one canvas draws inside its neurons: per column (the inputs
//                              first, then each parameter layer) every neuron's values over the
//                              grid, and the column's colour limit, shared by every canvas
//     columnCount(), limit(column), hasNeuron(column, neuron)
//     paint(painter, column, neuron, rect)  the neuron's image (2 inputs: the grid's cells on the
//                              diverging scale, views/DivergingColorScale.h) or curve (1 input:
//                              the value against the input, the column's ±limit top to bottom)
//   ThumbnailSource            computes them for the selection's panels
//     setExperiment(e)         the network and the data whose range the grid spans (the data are
//                              loaded the first time thumbnails are asked for); forgets the cache
//     setSamples(n)            samples per input: n × n over the plane (default 64)
//     unsupportedReason()      "" when the experiment's network has thumbnails, else why not
//     thumbnailsFor(panels)    one per panel (null where the panel is not ready or its run has
//                              another network), every column on one limit over all of them (the
//                              largest |value| of that column in any panel). A panel's values are
//                              cached per run × step (a difference panel's come from its two
//                              runs' entries); asked again for the same panels, the same
//                              thumbnails come back without any work
#include "experiment/Experiment.h"
#include "model/RunSelection.h"
#include "nn/NeuronFunctions.h"

#include <QImage>
#include <QRectF>
#include <QString>

#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

class QPainter;

namespace ml {

class NeuronThumbnails {
public:
    // `columns`: [points x neurons] per column (shared, not copied); `limits`: one per column.
    NeuronThumbnails(int inputs, int samples, std::shared_ptr<const std::vector<BatchMatrix>> columns,
                     std::vector<double> limits);

    int columnCount() const { return static_cast<int>(columns_->size()); }
    double limit(int column) const { return limits_[static_cast<std::size_t>(column)]; }
    bool hasNeuron(int column, int neuron) const {
        return column >= 0 && column < columnCount() && neuron >= 0 &&
               neuron < (*columns_)[static_cast<std::size_t>(column)].cols();
    }
    const BatchMatrix& values(int column) const { return (*columns_)[static_cast<std::size_t>(column)]; }
    void paint(QPainter& painter, int column, int neuron, const QRectF& rect) const;

private:
    QImage imageOf(int column, int neuron) const;

    int inputs_;
    int samples_;
    std::shared_ptr<const std::vector<BatchMatrix>> columns_;
    std::vector<double> limits_;
    std::vector<std::vector<QImage>> images_;  // two inputs: per column, per neuron
};

class ThumbnailSource {
public:
    void setExperiment(const Experiment& experiment);
    void setSamples(int samples);
    int samples() const { return samples_; }
    QString unsupportedReason() const { return unsupported_; }
    std::vector<std::shared_ptr<const NeuronThumbnails>> thumbnailsFor(const std::vector<RunSelection::Panel>& panels);

private:
    using Columns = std::vector<BatchMatrix>;  // the inputs, then every parameter layer
    struct Entry {
        SharedSnapshot snapshot;  // the values' weights (a run's step can be delivered again)
        std::shared_ptr<const Columns> columns;
        long lastUse = 0;
    };
    bool ready();
    std::shared_ptr<const Columns> columnsOf(int run, const SharedSnapshot& snapshot);
    std::shared_ptr<const Columns> columnsOf(const RunSelection::Panel& panel);
    void forgetOldest();

    std::optional<Experiment> experiment_;
    QString unsupported_;
    int samples_ = 64;
    std::unique_ptr<NeuronFunctions> functions_;  // made on first use (the data loaded then)
    bool triedLoading_ = false;
    std::map<std::pair<int, long>, Entry> cache_;  // run, step
    long uses_ = 0;
    // The last answer and what it was for (the panels' snapshots): the same panels again, no work.
    std::vector<std::pair<SharedSnapshot, SharedSnapshot>> lastPanels_;
    std::vector<std::shared_ptr<const NeuronThumbnails>> last_;
};

}  // namespace ml
