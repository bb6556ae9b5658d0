#include "views/NeuronHistoryPlot.h"

#include "optim/MomentumAggregation.h"
#include "views/NeuronNames.h"
#include "views/SharingGroups.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ml {

namespace {

// Distinct thin-line colours (Tableau 10 + 6 darker variants), one per plotted connection.
QColor connectionColor(int k) {
    static const QColor palette[] = {
        QColor(0x4e, 0x79, 0xa7), QColor(0xf2, 0x8e, 0x2b), QColor(0xe1, 0x57, 0x59), QColor(0x76, 0xb7, 0xb2),
        QColor(0x59, 0xa1, 0x4f), QColor(0xed, 0xc9, 0x48), QColor(0xb0, 0x7a, 0xa1), QColor(0xff, 0x9d, 0xa7),
        QColor(0x9c, 0x75, 0x5f), QColor(0xba, 0xb0, 0xac), QColor(0x2f, 0x4b, 0x7c), QColor(0xa0, 0x51, 0x95),
        QColor(0x1b, 0x9e, 0x77), QColor(0x8c, 0x6d, 0x31), QColor(0x66, 0x66, 0x66), QColor(0xd6, 0x27, 0x28),
    };
    return palette[k % static_cast<int>(std::size(palette))];
}

// Where a connection of a parameter-layer-`layer` neuron comes from: "layer 0, neuron 3" or "bias".
QString connectionName(int layer, int column, int inputs) {
    if (column == inputs) return QStringLiteral("bias");
    return neuronName(layer, column);
}

void fitValueAxis(QCPAxisRect* rect, const std::vector<QCPGraph*>& graphs, QCPGraph* mean) {
    bool found = false;
    QCPRange range;
    auto include = [&](QCPGraph* graph) {
        bool ok = false;
        const QCPRange r = graph->getValueRange(ok);
        if (!ok) return;
        range = found ? QCPRange(std::min(range.lower, r.lower), std::max(range.upper, r.upper)) : r;
        found = true;
    };
    for (QCPGraph* graph : graphs) include(graph);
    if (mean) include(mean);
    if (!found) return;
    const double pad = std::max(range.size() * 0.05, 1e-12);
    rect->axis(QCPAxis::atLeft)->setRange(range.lower - pad, range.upper + pad);
}

}  // namespace

bool hasNeuron(const Snapshot& snapshot, int layer, int neuron) {
    return layer >= 0 && layer < static_cast<int>(snapshot.layers.size()) && neuron >= 0 &&
           neuron < snapshot.layers[static_cast<std::size_t>(layer)].parameters.rows();
}

NeuronHistoryPlot::NeuronHistoryPlot(QWidget* parent) : QCustomPlot(parent), history_(0, capacity_) {
    buildPanels();
    updateTitle(nullptr);
}

void NeuronHistoryPlot::buildPanels() {
    plotLayout()->clear();
    setNoAntialiasingOnDrag(true);
    setAutoAddPlottableToLegend(false);  // only the momentum panel's graphs get entries
    title_ = new QCPTextElement(this, QString(), QFont(font().family(), font().pointSize(), QFont::Bold));
    plotLayout()->addElement(0, 0, title_);
    // Row 1: [the three stacked axis rects | the legend, top-aligned by a filler below it].
    auto* body = new QCPLayoutGrid;
    plotLayout()->addElement(1, 0, body);
    auto* stack = new QCPLayoutGrid;
    body->addElement(0, 0, stack);
    auto* side = new QCPLayoutGrid;
    body->addElement(0, 1, side);
    body->setColumnStretchFactor(1, 0.001);
    legend_ = new QCPLegend;
    side->addElement(0, 0, legend_);
    side->addElement(1, 0, new QCPLayoutElement(this));
    side->setRowStretchFactor(0, 0.001);
    legend_->setLayer(QStringLiteral("legend"));
    legend_->setFont(QFont(font().family(), font().pointSize() - 1));
    legend_->setRowSpacing(0);

    auto* margins = new QCPMarginGroup(this);
    int row = 0;
    for (Panel* panel : {&momentum_, &gradient_, &weight_}) {
        panel->rect = new QCPAxisRect(this);
        stack->addElement(row++, 0, panel->rect);
        panel->rect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
        panel->rect->setupFullAxesBox(true);
        connect(panel->rect->axis(QCPAxis::atBottom), qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
                [this](const QCPRange& range) {
                    for (Panel* other : {&momentum_, &gradient_, &weight_})
                        if (other->rect->axis(QCPAxis::atBottom)->range() != range)
                            other->rect->axis(QCPAxis::atBottom)->setRange(range);
                });
    }
    momentum_.name = tr("momentum");
    gradient_.name = tr("gradient");
    weight_.name = tr("weight");
    weight_.rect->axis(QCPAxis::atBottom)->setLabel(tr("step"));
    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
}

// Connections chosen at the latest snapshot that has the neuron, one point per such snapshot.
const Snapshot* NeuronHistoryPlot::showNeuron(int layer, int neuron, const std::vector<Snapshot>& snapshots) {
    layer_ = layer;
    neuron_ = neuron;
    connections_.clear();
    history_ = DecimatingHistory(0, capacity_);
    const Snapshot* latest = nullptr;
    for (auto it = snapshots.rbegin(); it != snapshots.rend() && !latest; ++it)
        if (hasNeuron(*it, layer_, neuron_)) latest = &*it;
    if (latest) {
        chooseConnections(*latest);
        history_ = DecimatingHistory(3 * static_cast<int>(connections_.size()) + 1, capacity_);
    }
    rebuildGraphs();
    updateTitle(latest);
    if (latest) {
        for (const Snapshot& snapshot : snapshots)
            if (hasNeuron(snapshot, layer_, neuron_)) history_.append(static_cast<double>(snapshot.step), pointValues(snapshot));
        redrawAll();
        fitAxes();
    }
    replot(QCustomPlot::rpQueuedReplot);
    return latest;
}

void NeuronHistoryPlot::chooseConnections(const Snapshot& snapshot) {
    const LayerSnapshot& layer = snapshot.layers[static_cast<std::size_t>(layer_)];
    inputCount_ = static_cast<int>(layer.parameters.cols()) - 1;
    hasMomentum_ = layer.firstMoment.size() > 0;
    chosenAtStep_ = snapshot.step;
    const Matrix& ranking = hasMomentum_ ? layer.firstMoment : layer.gradient;
    std::vector<int> columns(static_cast<std::size_t>(layer.parameters.cols()));
    std::iota(columns.begin(), columns.end(), 0);
    if (static_cast<int>(columns.size()) > kMaxPlottedConnections && ranking.size() > 0) {
        std::partial_sort(columns.begin(), columns.begin() + kMaxPlottedConnections, columns.end(), [&](int a, int b) {
            return std::abs(ranking(neuron_, a)) > std::abs(ranking(neuron_, b));
        });
        columns.resize(kMaxPlottedConnections);
        std::sort(columns.begin(), columns.end());
    } else if (static_cast<int>(columns.size()) > kMaxPlottedConnections) {
        columns.resize(kMaxPlottedConnections);
    }
    connections_ = columns;
}

void NeuronHistoryPlot::rebuildGraphs() {
    clearGraphs();
    for (Panel* panel : {&momentum_, &gradient_, &weight_}) {
        panel->graphs.clear();
        panel->mean = nullptr;
        QCPAxis* keys = panel->rect->axis(QCPAxis::atBottom);
        QCPAxis* values = panel->rect->axis(QCPAxis::atLeft);
        for (std::size_t k = 0; k < connections_.size(); ++k) {
            QCPGraph* graph = addGraph(keys, values);
            graph->setPen(QPen(connectionColor(static_cast<int>(k)), 1.0));
            graph->setName(connectionName(layer_, connections_[k], inputCount_));
            if (panel == &momentum_) graph->addToLegend(legend_);  // one entry per colour
            panel->graphs.push_back(graph);
        }
        values->setLabel(panel->name);
    }
    legend_->setVisible(!connections_.empty());  // an empty legend is a stray little box
    if (!connections_.empty()) {
        momentum_.mean = addGraph(momentum_.rect->axis(QCPAxis::atBottom), momentum_.rect->axis(QCPAxis::atLeft));
        momentum_.mean->setPen(QPen(Qt::black, 3.0));
        momentum_.mean->setName(tr("neuron mean"));
        momentum_.mean->addToLegend(legend_);
        if (!hasMomentum_) momentum_.rect->axis(QCPAxis::atLeft)->setLabel(tr("momentum: not kept by this optimizer"));
    }
}

std::vector<double> NeuronHistoryPlot::pointValues(const Snapshot& snapshot) const {
    const LayerSnapshot& layer = snapshot.layers[static_cast<std::size_t>(layer_)];
    const std::size_t n = connections_.size();
    std::vector<double> values(3 * n + 1, NAN);
    auto entry = [this](const Matrix& m, int column) { return m.size() == 0 ? NAN : double(m(neuron_, column)); };
    for (std::size_t k = 0; k < n; ++k) {
        values[k] = entry(layer.firstMoment, connections_[k]);
        values[n + k] = entry(layer.gradient, connections_[k]);
        values[2 * n + k] = entry(layer.parameters, connections_[k]);
    }
    if (layer.firstMoment.size() > 0) {
        Vector means;
        MomentumAggregation(MeanScope::FanIn, snapshot.bias).neuronMeans(layer.firstMoment, means);
        values[3 * n] = means(neuron_);
    }
    return values;
}

void NeuronHistoryPlot::append(const Snapshot& snapshot) {
    if (connections_.empty() || !hasNeuron(snapshot, layer_, neuron_)) return;
    const std::vector<double> values = pointValues(snapshot);
    const std::size_t n = connections_.size();
    const double step = static_cast<double>(snapshot.step);
    switch (history_.append(step, values)) {
    case DecimatingHistory::Change::Skipped: return;
    case DecimatingHistory::Change::Decimated: redrawAll(); break;
    case DecimatingHistory::Change::Appended: {
        int k = 0;
        for (Panel* panel : {&momentum_, &gradient_, &weight_})
            for (QCPGraph* graph : panel->graphs) graph->addData(step, values[static_cast<std::size_t>(k++)]);
        momentum_.mean->addData(step, values[3 * n]);
        break;
    }
    }
    fitAxes();
    replot(QCustomPlot::rpQueuedReplot);
}

void NeuronHistoryPlot::fitAxes() {
    const QVector<double>& steps = history_.steps();
    if (steps.isEmpty()) return;
    momentum_.rect->axis(QCPAxis::atBottom)->setRange(steps.front(), std::max(steps.back(), steps.front() + 1.0));
    for (Panel* panel : {&momentum_, &gradient_, &weight_}) fitValueAxis(panel->rect, panel->graphs, panel->mean);
}

void NeuronHistoryPlot::redrawAll() {
    if (!momentum_.mean) return;
    int k = 0;
    for (Panel* panel : {&momentum_, &gradient_, &weight_})
        for (QCPGraph* graph : panel->graphs) graph->setData(history_.steps(), history_.series(k++), true);
    momentum_.mean->setData(history_.steps(), history_.series(k), true);
}

void NeuronHistoryPlot::updateTitle(const Snapshot* snapshot) {
    if (layer_ < 0 || neuron_ < 0) {
        title_->setText(tr("Click a neuron in the network diagram to inspect it."));
        return;
    }
    QString title = neuronName(layer_ + 1, neuron_);
    if (snapshot) {
        title += tr(" · run %1").arg(QString::fromStdString(snapshot->label));
        const QString groups = sharingSummary(*snapshot, layer_);
        if (!groups.isEmpty()) title += QStringLiteral(" · ") + groups;
        const int incoming = inputCount_ + 1;
        if (incoming > static_cast<int>(connections_.size())) {
            title += tr("\n%1 of %2 incoming connections (largest |%3| at step %4) + neuron mean (bold)")
                         .arg(connections_.size())
                         .arg(incoming)
                         .arg(hasMomentum_ ? tr("momentum") : tr("gradient"))
                         .arg(chosenAtStep_);
        } else {
            title += tr("\nall %1 incoming connections (bias included) + neuron mean (bold)").arg(incoming);
        }
    } else {
        title += tr(" · waiting for a snapshot");
    }
    title_->setText(title);
}

}  // namespace ml
