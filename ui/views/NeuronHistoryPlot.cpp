#include "views/NeuronHistoryPlot.h"

#include "model/RunPalette.h"
#include "optim/MomentumAggregation.h"
#include "views/NeuronNames.h"
#include "model/Quantity.h"
#include "views/SharingGroups.h"

#include <QRegularExpression>
#include <QScopedValueRollback>

#include <algorithm>
#include <optional>
#include <cmath>
#include <numeric>

namespace ml {

namespace {

// The thin connection lines: dark muted hues (CIELAB lightness 16-40, chroma at most 30), each at
// least 22 CIE76 units from every run colour of model/RunPalette.h and its lighter kept variant,
// so that no connection is read as a run; the runs' own lines (the bold means) keep runColor.
QColor connectionColor(int k) {
    static const QColor palette[] = {
        QColor(40, 40, 40),  QColor(41, 106, 77),  QColor(96, 88, 137), QColor(101, 76, 32),
        QColor(107, 45, 67), QColor(0, 91, 110),   QColor(30, 45, 0),   QColor(0, 40, 82),
        QColor(73, 24, 12),  QColor(72, 40, 81),   QColor(0, 60, 52),   QColor(84, 100, 51),
        QColor(52, 37, 9),   QColor(119, 83, 106), QColor(0, 49, 67),   QColor(65, 28, 40),
    };
    return palette[k % static_cast<int>(std::size(palette))];
}

// The p-quantile (0..1) of `values` (reordered); NaN when empty.
double quantile(std::vector<double>& values, double p) {
    if (values.empty()) return NAN;
    const auto at = values.begin() + static_cast<std::ptrdiff_t>(std::lround(p * double(values.size() - 1)));
    std::nth_element(values.begin(), at, values.end());
    return *at;
}

// Line style of the k-th overlaid run (solid, dashed, dotted, ...).
Qt::PenStyle runStyle(int k) {
    static const Qt::PenStyle styles[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine,
                                          Qt::DashDotDotLine};
    return styles[k % static_cast<int>(std::size(styles))];
}

// The value range of the graphs inside the key range `keys`. Robust: each graph's first point and
// the outer 1 % of the values at either end are left out (a first-step spike does not flatten
// the rest of the run).
bool valueRange(const std::vector<QCPGraph*>& graphs, const QCPRange& keys, bool robust, QCPRange& range) {
    std::vector<double> values;
    for (QCPGraph* graph : graphs) {
        if (!graph || !graph->visible()) continue;
        bool first = true;
        for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it) {
            const bool skip = robust && first && graph->data()->size() > 3;
            first = false;
            if (skip || !keys.contains(it->key) || !std::isfinite(it->value)) continue;
            values.push_back(it->value);
        }
    }
    if (values.empty()) return false;
    std::sort(values.begin(), values.end());
    const std::size_t cut = robust && values.size() >= 200 ? values.size() / 100 : 0;
    range = QCPRange(values[cut], values[values.size() - 1 - cut]);
    return true;
}

}  // namespace

QString connectionName(int layer, int column, int inputs, ImageShape shape, int columnsPerInput) {
    if (column == inputs) return QStringLiteral("bias");
    const int kernel = static_cast<int>(std::lround(std::sqrt(double(columnsPerInput))));
    if (columnsPerInput > 1 && kernel * kernel == columnsPerInput) {
        const int within = column % columnsPerInput;
        return QStringLiteral("in channel %1, (%2, %3)")
            .arg(column / columnsPerInput)
            .arg(within / kernel)
            .arg(within % kernel);
    }
    if (layer == 0 && shape.valid() && inputs == shape.height * shape.width)
        return QStringLiteral("pixel (%1, %2)").arg(column / shape.width).arg(column % shape.width);
    return neuronName(layer, column);
}

bool hasNeuron(const Snapshot& snapshot, int layer, int neuron) {
    return layer >= 0 && layer < static_cast<int>(snapshot.layers.size()) && neuron >= 0 &&
           neuron < snapshot.layers[static_cast<std::size_t>(layer)].parameters.rows();
}

NeuronHistoryPlot::NeuronHistoryPlot(QWidget* parent) : QCustomPlot(parent) {
    buildPanels();
    updateTitle(nullptr);
    showStrips(false);
}

// Until the chosen neuron has a snapshot the title's hint stands alone: empty strips would show a
// made-up 0-5 step axis.
void NeuronHistoryPlot::showStrips(bool shown) {
    for (Panel* panel : {&momentum_, &gradient_, &weight_}) panel->rect->setVisible(shown);
}

void NeuronHistoryPlot::buildPanels() {
    plotLayout()->clear();
    setNoAntialiasingOnDrag(true);
    setAutoAddPlottableToLegend(false);  // only the momentum strip's graphs get entries
    title_ = new QCPTextElement(this, QString(), QFont(font().family(), font().pointSize(), QFont::Bold));
    plotLayout()->addElement(0, 0, title_);
    // Row 1: [the three stacked axis rects | the legend, top-aligned by a filler below it].
    auto* body = new QCPLayoutGrid;
    plotLayout()->addElement(1, 0, body);
    auto* stack = new QCPLayoutGrid;
    body->addElement(0, 0, stack);
    side_ = new QCPLayoutGrid;
    auto* side = side_;
    body->addElement(0, 1, side);
    body->setColumnStretchFactor(1, 0.001);
    legend_ = new QCPLegend;
    side->addElement(0, 0, legend_);
    side->addElement(1, 0, new QCPLayoutElement(this));
    side->setRowStretchFactor(0, 0.001);
    legend_->setLayer(QStringLiteral("legend"));
    legend_->setFont(QFont(font().family(), font().pointSize() - 1));
    legend_->setRowSpacing(0);
    legend_->setVisible(false);  // until it has entries

    auto* margins = new QCPMarginGroup(this);
    int row = 0;
    for (Panel* panel : {&momentum_, &gradient_, &weight_}) {
        panel->rect = new QCPAxisRect(this);
        stack->addElement(row++, 0, panel->rect);
        panel->rect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
        panel->rect->setupFullAxesBox(true);
        panel->rect->setRangeZoom(Qt::Horizontal);  // the wheel zooms steps; values follow
        panel->rect->setRangeDrag(Qt::Horizontal);
        connect(panel->rect->axis(QCPAxis::atBottom), qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
                [this](const QCPRange& range) {
                    for (Panel* other : {&momentum_, &gradient_, &weight_})
                        if (other->rect->axis(QCPAxis::atBottom)->range() != range)
                            other->rect->axis(QCPAxis::atBottom)->setRange(range);
                    if (!fitting_) fitVisible();
                });
    }
    momentum_.name = tr("momentum");
    gradient_.name = tr("gradient");
    weight_.name = tr("weight");
    weight_.rect->axis(QCPAxis::atBottom)->setLabel(tr("step"));
    // The strips share the step axis: only the bottom one labels it. Every strip keeps half a tick
    // label of room above and below its axis rect, where its outermost y tick labels reach.
    for (Panel* panel : {&momentum_, &gradient_}) panel->rect->axis(QCPAxis::atBottom)->setTickLabels(false);
    const int halfLabel = QFontMetrics(momentum_.rect->axis(QCPAxis::atLeft)->tickLabelFont()).height() / 2 + 3;
    for (Panel* panel : {&momentum_, &gradient_, &weight_})
        panel->rect->setMinimumMargins(QMargins(0, halfLabel, 0, halfLabel));
    notKept_ = new QCPItemText(this);
    notKept_->setClipAxisRect(momentum_.rect);
    notKept_->position->setType(QCPItemPosition::ptAxisRectRatio);
    notKept_->position->setAxisRect(momentum_.rect);
    notKept_->position->setCoords(0.5, 0.5);
    notKept_->setColor(QColor(90, 90, 90));
    notKept_->setVisible(false);
    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    connect(this, &QCustomPlot::mouseDoubleClick, this, [this] {
        if (!showAllRecordedSteps()) return;
        replot(QCustomPlot::rpQueuedReplot);
    });
}

// The step axis spans every track's recorded steps; false when nothing is recorded yet.
bool NeuronHistoryPlot::showAllRecordedSteps() {
    std::optional<QCPRange> steps;
    for (const Track& track : tracks_) {
        if (track.history.size() == 0) continue;
        const QCPRange own(track.history.steps().front(), track.history.steps().back());
        steps = steps ? QCPRange(std::min(steps->lower, own.lower), std::max(steps->upper, own.upper)) : own;
    }
    if (!steps) return false;
    momentum_.rect->axis(QCPAxis::atBottom)->setRange(steps->lower, std::max(steps->upper, steps->lower + 1.0));
    return true;
}

std::vector<int> NeuronHistoryPlot::plottedRuns() const {
    std::vector<int> runs;
    for (const Track& track : tracks_) runs.push_back(track.source.run);
    return runs;
}

const Snapshot* NeuronHistoryPlot::showNeuron(int layer, int neuron, int column, const std::vector<RunSource>& runs) {
    layer_ = layer;
    neuron_ = neuron;
    column_ = column;
    connections_.clear();
    tracks_.clear();
    const Snapshot* latest = nullptr;
    if (!runs.empty() && runs.front().archive) {
        const Snapshot* newest = runs.front().archive->latest();
        if (newest && hasNeuron(*newest, layer_, neuron_)) latest = newest;
    }
    others_.clear();
    if (latest) chooseConnections(*latest);
    const int series = 3 * static_cast<int>(connections_.size()) + 1 + (others_.empty() ? 0 : 6);  // + the bands' edges
    for (const RunSource& source : runs)
        if (source.archive) tracks_.push_back({source, DecimatingHistory(series, capacity_), -1, {}, nullptr, {}});
    rebuildGraphs();
    updateTitle(latest);
    showStrips(latest != nullptr);
    if (latest) {
        for (Track& track : tracks_) {
            for (const SharedSnapshot& snapshot : track.source.archive->snapshots()) appendTo(track, *snapshot);
            if (const Snapshot* newest = track.source.archive->latest()) appendTo(track, *newest);
            redraw(track);
        }
        showAllRecordedSteps();
        fitVisible();
    }
    replot(QCustomPlot::rpQueuedReplot);
    return latest;
}

void NeuronHistoryPlot::chooseConnections(const Snapshot& snapshot) {
    const LayerSnapshot& layer = snapshot.layers[static_cast<std::size_t>(layer_)];
    inputCount_ = static_cast<int>(layer.parameters.cols()) - 1;
    columnsPerInput_ = static_cast<int>(layer.columnsPerInput);
    hasMomentum_ = layer.firstMoment.size() > 0;
    missingMomentum_ = missingQuantityReason(snapshot);
    chosenAtStep_ = snapshot.step;
    if (column_ >= 0 && column_ <= inputCount_) {
        connections_ = {column_};
        return;
    }
    const Matrix& ranking = hasMomentum_ ? layer.firstMoment : layer.gradient;
    std::vector<int> columns(static_cast<std::size_t>(layer.parameters.cols()));
    std::iota(columns.begin(), columns.end(), 0);
    if (static_cast<int>(columns.size()) > kMaxPlottedConnections && ranking.size() > 0) {
        std::partial_sort(columns.begin(), columns.begin() + kMaxPlottedConnections, columns.end(),
                          [&](int a, int b) { return std::abs(ranking(neuron_, a)) > std::abs(ranking(neuron_, b)); });
        std::sort(columns.begin() + kMaxPlottedConnections, columns.end());
        others_.assign(columns.begin() + kMaxPlottedConnections, columns.end());
        columns.resize(kMaxPlottedConnections);
        std::sort(columns.begin(), columns.end());
    } else if (static_cast<int>(columns.size()) > kMaxPlottedConnections) {
        others_.assign(columns.begin() + kMaxPlottedConnections, columns.end());
        columns.resize(kMaxPlottedConnections);
    }
    connections_ = columns;
}

void NeuronHistoryPlot::rebuildGraphs() {
    clearGraphs();
    legend_->clearItems();
    const bool following = column_ >= 0;
    const bool overlay = tracks_.size() > 1;
    for (std::size_t t = 0; t < tracks_.size(); ++t) {
        Track& track = tracks_[t];
        for (Panel* panel : {&momentum_, &gradient_, &weight_}) {
            QCPAxis* keys = panel->rect->axis(QCPAxis::atBottom);
            QCPAxis* values = panel->rect->axis(QCPAxis::atLeft);
            for (std::size_t k = 0; k < connections_.size(); ++k) {
                QCPGraph* graph = addGraph(keys, values);
                const QColor color = following ? runColor(track.source.look) : connectionColor(static_cast<int>(k));
                graph->setPen(
                    QPen(color, following ? 2.0 : 1.0, following ? Qt::SolidLine : runStyle(static_cast<int>(t))));
                graph->setName(following
                                   ? track.source.label
                                   : connectionName(layer_, connections_[k], inputCount_, shape_, columnsPerInput_));
                // Legend: the connection colours once (first run), or the runs when following one connection.
                if (panel == &momentum_ && (following || t == 0)) graph->addToLegend(legend_);
                track.graphs.push_back(graph);
            }
            values->setLabel(panel->name);
        }
        if (!following && !connections_.empty()) {
            track.mean = addGraph(momentum_.rect->axis(QCPAxis::atBottom), momentum_.rect->axis(QCPAxis::atLeft));
            track.mean->setPen(QPen(runColor(track.source.look), 3.0, runStyle(static_cast<int>(t))));
            track.mean->setName(overlay ? tr("%1: neuron mean").arg(track.source.label) : tr("neuron mean"));
            track.mean->addToLegend(legend_);
            if (!others_.empty()) addBand(track);
        }
    }
    legend_->setVisible(legend_->itemCount() > 0);  // an empty legend is a stray little box
    relayout();
    // Said inside the strip: as the y-label it ran into the next strip.
    notKept_->setText(missingMomentum_);
    notKept_->setVisible(!connections_.empty() && !hasMomentum_);
}

// The middle half of the connections that are not plotted, as a band in the run's colour under
// the lines of every strip (not in the legend: the title names it).
void NeuronHistoryPlot::addBand(Track& track) {
    QColor fill = runColor(track.source.look);
    fill.setAlpha(50);
    QColor edge = fill;
    edge.setAlpha(110);
    int strip = 0;
    for (Panel* panel : {&momentum_, &gradient_, &weight_}) {
        QCPGraph* lower = addGraph(panel->rect->axis(QCPAxis::atBottom), panel->rect->axis(QCPAxis::atLeft));
        QCPGraph* upper = addGraph(panel->rect->axis(QCPAxis::atBottom), panel->rect->axis(QCPAxis::atLeft));
        for (QCPGraph* graph : {lower, upper}) {
            graph->setLayer(QStringLiteral("grid"));  // under the connection lines
            graph->setPen(QPen(edge, 1.0));
            graph->setName(tr("%1: middle half of the other %2").arg(track.source.label).arg(others_.size()));
        }
        upper->setBrush(fill);
        upper->setChannelFillGraph(lower);
        track.band[static_cast<std::size_t>(2 * strip)] = lower;
        track.band[static_cast<std::size_t>(2 * strip + 1)] = upper;
        ++strip;
    }
}

std::pair<QCPGraph*, QCPGraph*> NeuronHistoryPlot::band(std::size_t track, int strip) const {
    if (track >= tracks_.size() || strip < 0 || strip > 2) return {nullptr, nullptr};
    const auto& edges = tracks_[track].band;
    return {edges[static_cast<std::size_t>(2 * strip)], edges[static_cast<std::size_t>(2 * strip + 1)]};
}

std::vector<double> NeuronHistoryPlot::pointValues(const Snapshot& snapshot) const {
    const LayerSnapshot& layer = snapshot.layers[static_cast<std::size_t>(layer_)];
    const std::size_t n = connections_.size();
    std::vector<double> values(3 * n + 1 + (others_.empty() ? 0 : 6), NAN);  // connections, mean, band edges
    auto entry = [this](const Matrix& m, int column) {
        return m.size() == 0 || column >= m.cols() ? NAN : double(m(neuron_, column));
    };
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
    if (!others_.empty()) {
        const Matrix* strips[] = {&layer.firstMoment, &layer.gradient, &layer.parameters};
        std::vector<double> rest;
        for (std::size_t s = 0; s < 3; ++s) {
            rest.clear();
            if (strips[s]->size() > 0)
                for (const int column : others_) rest.push_back(entry(*strips[s], column));
            values[3 * n + 1 + 2 * s] = quantile(rest, 0.25);
            values[3 * n + 2 + 2 * s] = quantile(rest, 0.75);
        }
    }
    return values;
}

// Adds the snapshot's point to the track's history (not its graphs); true when it was stored.
bool NeuronHistoryPlot::appendTo(Track& track, const Snapshot& snapshot) {
    if (connections_.empty() || snapshot.step <= track.lastStep || !hasNeuron(snapshot, layer_, neuron_)) return false;
    track.lastStep = snapshot.step;
    return track.history.append(static_cast<double>(snapshot.step), pointValues(snapshot)) !=
           DecimatingHistory::Change::Skipped;
}

void NeuronHistoryPlot::appendNew() {
    bool changed = false;
    for (Track& track : tracks_) {
        bool added = false;
        for (const SharedSnapshot& snapshot : track.source.archive->snapshots())
            if (snapshot->step > track.lastStep) added = appendTo(track, *snapshot) || added;
        if (const Snapshot* newest = track.source.archive->latest()) added = appendTo(track, *newest) || added;
        if (added) redraw(track);
        changed = changed || added;
    }
    if (!changed) return;
    // Follow the run while the view shows its end (a zoomed-in view stays where it is).
    QCPAxis* steps = momentum_.rect->axis(QCPAxis::atBottom);
    double last = 0.0, first = steps->range().lower;
    for (const Track& track : tracks_)
        if (track.history.size() > 0)
            last = std::max(last, track.history.steps().back()), first = std::min(first, track.history.steps().front());
    steps->setRange(first, std::max(last, first + 1.0));
    fitVisible();
    replot(QCustomPlot::rpQueuedReplot);
}

void NeuronHistoryPlot::redraw(Track& track) {
    int k = 0;
    for (QCPGraph* graph : track.graphs) graph->setData(track.history.steps(), track.history.series(k++), true);
    const int n = static_cast<int>(connections_.size());
    if (track.mean) track.mean->setData(track.history.steps(), track.history.series(3 * n), true);
    for (std::size_t e = 0; e < track.band.size(); ++e)
        if (track.band[e])
            track.band[e]->setData(track.history.steps(), track.history.series(3 * n + 1 + static_cast<int>(e)), true);
}

void NeuronHistoryPlot::setRobustRange(bool robust) {
    robust_ = robust;
    fitVisible();
    replot(QCustomPlot::rpQueuedReplot);
}

// Each strip's value axis fits the data inside the visible steps.
void NeuronHistoryPlot::fitVisible() {
    fitting_ = true;
    const QCPRange keys = momentum_.rect->axis(QCPAxis::atBottom)->range();
    const std::size_t n = connections_.size();
    int strip = 0;
    for (Panel* panel : {&momentum_, &gradient_, &weight_}) {
        std::vector<QCPGraph*> graphs;
        for (const Track& track : tracks_) {
            for (std::size_t k = 0; k < n; ++k) graphs.push_back(track.graphs[strip * n + k]);
            if (panel == &momentum_) graphs.push_back(track.mean);
            for (std::size_t e = 0; e < 2; ++e) graphs.push_back(track.band[2 * strip + e]);
        }
        ++strip;
        QCPRange range;
        if (!valueRange(graphs, keys, robust_, range)) continue;
        const double pad = std::max(range.size() * 0.05, std::max(1e-12, std::abs(range.center()) * 1e-3));
        panel->rect->axis(QCPAxis::atLeft)->setRange(range.lower - pad, range.upper + pad);
    }
    updateMarkers();
    fitting_ = false;
}

// Markers on every point while few points are visible (sparse samples, or a deep zoom).
void NeuronHistoryPlot::updateMarkers() {
    const QCPRange keys = momentum_.rect->axis(QCPAxis::atBottom)->range();
    int visible = 0;
    if (!tracks_.empty()) {
        const QVector<double>& steps = tracks_.front().history.steps();
        visible =
            static_cast<int>(std::count_if(steps.begin(), steps.end(), [&keys](double s) { return keys.contains(s); }));
    }
    // Many overlaid lines (nine runs x 16 connections x 3 strips) get squares: a disc is drawn as a
    // Bézier ellipse, and thousands of them were most of a click's replot.
    const QCPScatterStyle::ScatterShape shape =
        graphCount() > kManyGraphs ? QCPScatterStyle::ssSquare : QCPScatterStyle::ssDisc;
    const QCPScatterStyle style = visible > 0 && visible < kMarkerThreshold
                                      ? QCPScatterStyle(shape, shape == QCPScatterStyle::ssDisc ? 4.0 : 3.0)
                                      : QCPScatterStyle(QCPScatterStyle::ssNone);
    for (int g = 0; g < graphCount(); ++g) graph(g)->setScatterStyle(style);
    for (const Track& track : tracks_)
        for (QCPGraph* edge : track.band)
            if (edge) edge->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssNone));
}

void NeuronHistoryPlot::updateTitle(const Snapshot* snapshot) {
    if (layer_ < 0 || neuron_ < 0) {
        setTitle(tr("Click a neuron (or a connection)\nin the network diagram to inspect it."));
        return;
    }
    QString title = neuronOrChannelName(layer_ + 1, neuron_, columnsPerInput_ > 1);  // k*k columns: a conv channel
    if (snapshot && column_ >= 0 && column_ <= inputCount_) {
        title =
            tr("connection %1 → %2").arg(connectionName(layer_, column_, inputCount_, shape_, columnsPerInput_), title);
    }
    if (!snapshot) {
        setTitle(title + tr(" · waiting for a snapshot"));
        return;
    }
    QStringList runs;
    for (const Track& track : tracks_) runs << track.source.label;
    if (tracks_.size() == 1) title += tr(" · %1").arg(runs.front());
    if (const QString groups = sharingSummary(*snapshot, layer_); !groups.isEmpty())
        title += QStringLiteral(" · ") + groups;
    if (column_ >= 0) {
        title += tr("\none connection over the steps, one line per run");
    } else {
        const int incoming = inputCount_ + 1;
        if (incoming > static_cast<int>(connections_.size()))
            title += tr("\n%1 of %2 incoming connections (largest |%3| at step %4)\n+ neuron mean (bold), "
                        "middle half of the other %5 (shaded)")
                         .arg(connections_.size())
                         .arg(incoming)
                         .arg(hasMomentum_ ? tr("momentum") : tr("gradient"))
                         .arg(chosenAtStep_)
                         .arg(others_.size());
        else title += tr("\nall %1 incoming connections (bias included)\n+ neuron mean (bold)").arg(incoming);
        if (tracks_.size() > 1) {
            static const QString styles[] = {tr("solid"), tr("dashed"), tr("dotted"), tr("dash-dot"),
                                             tr("dash-dot-dot")};
            QStringList legend;
            for (std::size_t t = 0; t < tracks_.size(); ++t)
                legend << tr("%1 %2").arg(styles[t % 5], tracks_[t].source.label);
            title += QStringLiteral("\n") + legend.join(QStringLiteral(", "));
        }
    }
    setTitle(title);
}

void NeuronHistoryPlot::setStripHeight(int pixels) {
    stripHeight_ = pixels;
    relayout();
}

// Inside: four tick labels' height (three ticks and room between), or the longest y-label
// (drawn along the strip); outside: the half tick label kept above and below (buildPanels) and
// the step axis's ticks.
int NeuronHistoryPlot::minimumStripHeight() const {
    const QCPAxis* y = momentum_.rect->axis(QCPAxis::atLeft);
    const QFontMetrics ticks(y->tickLabelFont()), labels(y->labelFont());
    int longest = 0;
    for (const Panel* panel : {&momentum_, &gradient_, &weight_})
        longest = std::max(longest, labels.horizontalAdvance(panel->name));
    return std::max(4 * ticks.height(), longest + 8) + ticks.height() + 16;
}

// The y axes get as many ticks as their labels have room for (about one per 2.5 label heights of
// the strip's last laid-out height), at least three; the count is met closely rather than
// rounded to the nicest step (which could leave one label, or twice too many).
void NeuronHistoryPlot::fitTickCounts() {
    const int line = QFontMetrics(momentum_.rect->axis(QCPAxis::atLeft)->tickLabelFont()).height();
    for (Panel* panel : {&momentum_, &gradient_, &weight_}) {
        const int ticks = std::clamp(panel->rect->rect().height() * 2 / (5 * line), 3, 6);
        QCPAxisTicker* ticker = panel->rect->axis(QCPAxis::atLeft)->ticker().data();
        ticker->setTickStepStrategy(QCPAxisTicker::tssMeetTickCount);
        ticker->setTickCount(ticks);
    }
}

// The strips keep their chosen height under the (wrapped) title and a legend placed below them.
void NeuronHistoryPlot::updateMinimumHeight() {
    const int titleLines = static_cast<int>(title_->text().count(QLatin1Char('\n'))) + 1;
    const int legendBelow = legendBelow_ && legend_->visible() ? legend_->minimumOuterSizeHint().height() + 6 : 0;
    // The axis rects themselves never get lower either (their axes are outside): a plot that is
    // not given its minimum height is cut off at the bottom, never overprinted.
    const int inside =
        minimumStripHeight() - QFontMetrics(momentum_.rect->axis(QCPAxis::atLeft)->tickLabelFont()).height() - 16;
    for (Panel* panel : {&momentum_, &gradient_, &weight_}) panel->rect->setMinimumSize(0, inside);
    const int stepAxis =
        2 * QFontMetrics(weight_.rect->axis(QCPAxis::atBottom)->tickLabelFont()).height();  // its tick labels and label
    setMinimumHeight(3 * std::max(stripHeight_, minimumStripHeight()) + stepAxis +
                     titleLines * QFontMetrics(title_->font()).height() + legendBelow + 40);
}

// Each line of the title broken after its ", " and " · " separators and before " (" where it would be wider than
// the plot (a narrow dock at 1366 x 768 cut the run-style legend line off at both ends).
void NeuronHistoryPlot::setTitle(const QString& title) {
    fullTitle_ = title;
    relayout();
}

void NeuronHistoryPlot::wrapTitle() {
    const QString& title = fullTitle_;
    const QFontMetrics metrics(title_->font());
    const int available = std::max(120, width() - 12);
    QStringList lines;
    for (const QString& line : title.split(QLatin1Char('\n'))) {
        static const QRegularExpression separator(QStringLiteral("(?<=, )|(?<= · )|(?= \\()"));
        QString current;
        for (const QString& piece : line.split(separator)) {
            if (!current.isEmpty() && metrics.horizontalAdvance(current + piece) > available) {
                lines << current.trimmed();
                current.clear();
            }
            current += piece;
        }
        lines << current.trimmed();
    }
    title_->setText(lines.join(QLatin1Char('\n')));
}

// Beside the strips while the plot is wide; under them, in as many columns as fit, when it is
// narrow, so that sixteen connection names do not squeeze the strips to a sliver.
void NeuronHistoryPlot::placeLegend() {
    // An empty legend stays beside: under the strips its small maximum width would narrow the
    // whole column (QCPLayoutGrid takes a column's smallest maximum), title included.
    const bool below = width() < kLegendBesideMinWidth && legend_->itemCount() > 0;
    QCPLayoutGrid* from = legendBelow_ ? plotLayout() : side_;
    QCPLayoutGrid* to = below ? plotLayout() : side_;
    if (from != to) {
        from->take(legend_);
        if (from == plotLayout()) plotLayout()->simplify();  // side_ keeps its empty cell for the way back
        if (below) {
            plotLayout()->addElement(2, 0, legend_);
            plotLayout()->setRowStretchFactor(2, 0.001);  // the strips take the spare height
        } else {
            side_->addElement(0, 0, legend_);
        }
        legendBelow_ = below;
    }
    int columns = 1;
    if (below && legend_->itemCount() > 0) {
        int widest = 1;
        for (int i = 0; i < legend_->itemCount(); ++i)
            if (const QCPAbstractLegendItem* item = legend_->item(i))  // a wrapped grid has empty cells
                widest = std::max(widest, item->minimumOuterSizeHint().width());
        columns = std::max(1, (width() - 20) / (widest + legend_->columnSpacing()));
    }
    legend_->setFillOrder(QCPLayoutGrid::foColumnsFirst, false);
    legend_->setWrap(columns);
    legend_->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);  // re-flows the items into the columns
}

// The one entry to the layout code. Its last step, the minimum height, can resize the plot at
// once (resizeEvent inside setMinimumHeight): that nested call only asks for another round, so
// no layout step ever runs inside another (it once walked the legend while it was re-flowed).
void NeuronHistoryPlot::relayout() {
    if (arranging_) {
        arrangeAgain_ = true;
        return;
    }
    const QScopedValueRollback<bool> guard(arranging_, true);
    for (int round = 0; round < 3; ++round) {  // a width change re-wraps once; never a loop
        arrangeAgain_ = false;
        placeLegend();
        wrapTitle();
        updateMinimumHeight();
        fitTickCounts();
        if (!arrangeAgain_) break;
    }
}

void NeuronHistoryPlot::resizeEvent(QResizeEvent* event) {
    QCustomPlot::resizeEvent(event);
    relayout();
}

}  // namespace ml
