#pragma once
// The neuron inspector's "Over steps" tab: one neuron's incoming connections over the run, as
// three stacked plots sharing the step axis:
//   momentum  each incoming connection's first moment (thin) and the neuron mean (bold: the mean
//             of the neuron's incoming first moments, bias included when the run joins biases,
//             i.e. the fan-in mean, shown for every run so runs stay comparable)
//   gradient  the same connections' gradients
//   weight    the same connections' weights
// The bias is connection "bias" (last column). With more than kMaxPlottedConnections incoming
// connections only the largest |momentum| ones (|gradient| when the optimizer keeps no momentum)
// at the latest snapshot given to showNeuron are plotted; the title says so. The points are a
// DecimatingHistory of at most historyCapacity() steps. The title names the neuron and the run,
// and for a run that shares state its group sizes (views/SharingGroups.h).
//
// Public API
//   showNeuron(layer, neuron, snapshots)  replots from the snapshots (oldest first) that have
//                            the neuron; returns the one the connections were chosen at (or null)
//   append(s)                adds a later snapshot's point (after showNeuron chose connections)
//   setHistoryCapacity(n) (used by the next showNeuron), historySize(),
//   plottedConnections() (columns, bias = inputs)
#include "model/DecimatingHistory.h"
#include "train/Snapshot.h"

#include <qcustomplot.h>

#include <vector>

namespace ml {

inline constexpr int kMaxPlottedConnections = 16;

// Whether the snapshot's network has neuron `neuron` in parameter layer `layer`.
bool hasNeuron(const Snapshot& snapshot, int layer, int neuron);

class NeuronHistoryPlot : public QCustomPlot {
    Q_OBJECT
public:
    explicit NeuronHistoryPlot(QWidget* parent = nullptr);

    const Snapshot* showNeuron(int layer, int neuron, const std::vector<Snapshot>& snapshots);
    void append(const Snapshot& snapshot);

    void setHistoryCapacity(int capacity) { capacity_ = capacity; }
    int historySize() const { return history_.size(); }
    const std::vector<int>& plottedConnections() const { return connections_; }

private:
    // One stacked plot: thin lines per connection, optionally a bold mean line.
    struct Panel {
        QCPAxisRect* rect = nullptr;
        std::vector<QCPGraph*> graphs;
        QCPGraph* mean = nullptr;
        QString name;
    };
    void buildPanels();
    void chooseConnections(const Snapshot& snapshot);
    void rebuildGraphs();
    std::vector<double> pointValues(const Snapshot& snapshot) const;
    void fitAxes();
    void redrawAll();
    void updateTitle(const Snapshot* snapshot);

    QCPTextElement* title_ = nullptr;
    QCPLegend* legend_ = nullptr;  // names the connection colours (shared by the three plots)
    Panel momentum_, gradient_, weight_;

    int layer_ = -1;
    int neuron_ = -1;
    int inputCount_ = 0;
    bool hasMomentum_ = true;
    int capacity_ = 20000;
    std::vector<int> connections_;  // columns of the neuron's row that are plotted
    long chosenAtStep_ = 0;
    DecimatingHistory history_;     // per connection: momentum, gradient, weight; then the mean
};

}  // namespace ml
