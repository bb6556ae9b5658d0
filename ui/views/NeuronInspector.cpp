#include "views/NeuronInspector.h"

#include "views/DivergingColorScale.h"
#include "optim/MomentumAggregation.h"

#include <QTabWidget>
#include <QVBoxLayout>
#include <qcustomplot.h>

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

// Ticks only where the image has pixels (the axes extend beyond it to keep pixels square).
void useImageTicks(QCPAxis* axis, int cells) {
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    const int step = cells <= 10 ? 1 : cells <= 40 ? 5 : 10;
    for (int k = 0; k < cells; k += step) ticker->addTick(k, QString::number(k));
    axis->setTicker(ticker);
    axis->setSubTicks(false);
}

// Where a connection of a layer-`layer` neuron comes from: "input 3", "hidden 3" or "bias".
QString connectionName(int layer, int column, int inputs) {
    if (column == inputs) return QStringLiteral("bias");
    return (layer == 0 ? QStringLiteral("input %1") : QStringLiteral("hidden %1")).arg(column);
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

// What the archive keeps of a snapshot: everything the inspector plots, nothing else.
Snapshot archived(const Snapshot& snapshot) {
    Snapshot copy;
    copy.run = snapshot.run;
    copy.label = snapshot.label;
    copy.step = snapshot.step;
    copy.epoch = snapshot.epoch;
    copy.batchLoss = snapshot.batchLoss;
    copy.scope = snapshot.scope;
    copy.bias = snapshot.bias;
    copy.layers.reserve(snapshot.layers.size());
    for (const LayerSnapshot& layer : snapshot.layers) {
        LayerSnapshot kept;
        kept.parameters = layer.parameters;
        kept.gradient = layer.gradient;
        kept.firstMoment = layer.firstMoment;
        copy.layers.push_back(std::move(kept));
    }
    return copy;
}

// Bytes of a snapshot as archived (counts only the matrices archived() keeps).
std::size_t archivedBytes(const Snapshot& snapshot) {
    std::size_t bytes = sizeof(Snapshot) + snapshot.label.size();
    for (const LayerSnapshot& layer : snapshot.layers)
        bytes += sizeof(LayerSnapshot) +
                 sizeof(Matrix::Scalar) * std::size_t(layer.parameters.size() + layer.gradient.size() + layer.firstMoment.size());
    return bytes;
}

}  // namespace

NeuronInspector::NeuronInspector(QWidget* parent) : QWidget(parent), history_(0, capacity_) {
    tabs_ = new QTabWidget(this);
    plot_ = new QCustomPlot(tabs_);
    imagePlot_ = new QCustomPlot(tabs_);
    tabs_->addTab(plot_, tr("Over steps"));
    tabs_->addTab(imagePlot_, tr("As image"));
    tabs_->setTabEnabled(1, false);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(tabs_);
    buildPlots();
    buildImagePlot();
    updateTitles(nullptr);
}

void NeuronInspector::buildPlots() {
    plot_->plotLayout()->clear();
    plot_->setNoAntialiasingOnDrag(true);
    plot_->setAutoAddPlottableToLegend(false);  // only the momentum panel's graphs get entries
    plotTitle_ = new QCPTextElement(plot_, QString(), QFont(font().family(), font().pointSize(), QFont::Bold));
    plot_->plotLayout()->addElement(0, 0, plotTitle_);
    // Row 1: [the three stacked axis rects | the legend, top-aligned by a filler below it].
    auto* body = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(1, 0, body);
    auto* stack = new QCPLayoutGrid;
    body->addElement(0, 0, stack);
    auto* side = new QCPLayoutGrid;
    body->addElement(0, 1, side);
    body->setColumnStretchFactor(1, 0.001);
    legend_ = new QCPLegend;
    side->addElement(0, 0, legend_);
    side->addElement(1, 0, new QCPLayoutElement(plot_));
    side->setRowStretchFactor(0, 0.001);
    legend_->setLayer(QStringLiteral("legend"));
    legend_->setFont(QFont(font().family(), font().pointSize() - 1));
    legend_->setRowSpacing(0);

    auto* margins = new QCPMarginGroup(plot_);
    int row = 0;
    for (Panel* panel : {&momentum_, &gradient_, &weight_}) {
        panel->rect = new QCPAxisRect(plot_);
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
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
}

void NeuronInspector::buildImagePlot() {
    imagePlot_->plotLayout()->clear();
    imageTitle_ = new QCPTextElement(imagePlot_, QString(), QFont(font().family(), font().pointSize(), QFont::Bold));
    imagePlot_->plotLayout()->addElement(0, 0, imageTitle_);
    auto* row = new QCPLayoutGrid;
    imagePlot_->plotLayout()->addElement(1, 0, row);
    int column = 0;
    for (auto [image, name] : {std::pair{&weightImage_, tr("incoming weights")}, std::pair{&momentumImage_, tr("incoming momentum")}}) {
        image->rect = new QCPAxisRect(imagePlot_);
        image->rect->axis(QCPAxis::atBottom)->setLabel(name);
        image->rect->axis(QCPAxis::atLeft)->setRangeReversed(true);  // image row 0 at the top
        for (QCPAxis* axis : image->rect->axes()) axis->grid()->setVisible(false);
        image->map = new QCPColorMap(image->rect->axis(QCPAxis::atBottom), image->rect->axis(QCPAxis::atLeft));
        image->map->setInterpolate(false);
        image->scale = new QCPColorScale(imagePlot_);
        image->map->setColorScale(image->scale);
        applyDivergingScale(image->scale, DivergingColorScale());
        auto* margins = new QCPMarginGroup(imagePlot_);
        image->rect->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
        image->scale->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
        row->addElement(0, column++, image->rect);
        row->addElement(0, column++, image->scale);
    }
    connect(imagePlot_, &QCustomPlot::afterLayout, this, &NeuronInspector::keepPixelsSquare);
}

// Square image pixels whatever the widget's shape: both axes get the same pixels per cell and the
// image is centred.
void NeuronInspector::keepPixelsSquare() {
    for (ImagePanel* image : {&weightImage_, &momentumImage_}) {
        const int w = image->map->data()->keySize(), h = image->map->data()->valueSize();
        const QRect area = image->rect->rect();
        if (w <= 0 || h <= 0 || area.width() <= 0 || area.height() <= 0) continue;
        const double pixelsPerCell = std::min(area.width() / double(w), area.height() / double(h));
        const double halfWidth = area.width() / pixelsPerCell / 2.0, halfHeight = area.height() / pixelsPerCell / 2.0;
        image->rect->axis(QCPAxis::atBottom)->setRange((w - 1) / 2.0 - halfWidth, (w - 1) / 2.0 + halfWidth);
        image->rect->axis(QCPAxis::atLeft)->setRange((h - 1) / 2.0 - halfHeight, (h - 1) / 2.0 + halfHeight);
    }
}

void NeuronInspector::setRun(int run) {
    if (run == run_) return;
    run_ = run;
    clear();
    reportRunChanged(run);
}

void NeuronInspector::setNeuron(int layer, int neuron) {
    layer_ = layer;
    neuron_ = neuron;
    updateImageTab();
    replay();
}

void NeuronInspector::setImageShape(ImageShape shape) {
    imageShape_ = shape;
    updateImageTab();
}

// The image tab is available for first-layer neurons of image data (sizes are checked per snapshot).
void NeuronInspector::updateImageTab() { tabs_->setTabEnabled(1, imageShape_.valid() && layer_ == 0 && neuron_ >= 0); }

void NeuronInspector::setHistoryCapacity(int capacity) {
    capacity_ = capacity;
    clear();
}

void NeuronInspector::setArchiveBudget(std::size_t bytes) {
    archiveBudget_ = bytes;
    clear();
}

std::vector<long> NeuronInspector::archivedSteps() const {
    std::vector<long> steps;
    steps.reserve(archive_.size());
    for (const Snapshot& snapshot : archive_) steps.push_back(snapshot.step);
    return steps;
}

void NeuronInspector::clear() {
    archive_.clear();
    archiveCapacity_ = 0;
    lastStep_ = kNoStep;
    replay();
}

bool NeuronInspector::shows(const Snapshot& snapshot) const {
    return layer_ >= 0 && layer_ < static_cast<int>(snapshot.layers.size()) && neuron_ >= 0 &&
           neuron_ < snapshot.layers[static_cast<std::size_t>(layer_)].parameters.rows();
}

void NeuronInspector::showSnapshot(const Snapshot& snapshot) {
    if (snapshot.run != run_ || snapshot.step <= lastStep_) return;  // another run or re-delivered
    lastStep_ = snapshot.step;
    if (shows(snapshot) && imageApplies(snapshot)) updateImages(snapshot);  // always the newest
    if (archiveCapacity_ == 0) {
        const std::size_t bytes = std::max<std::size_t>(1, archivedBytes(snapshot));
        const std::size_t fits = std::max<std::size_t>(16, archiveBudget_ / bytes);
        archiveCapacity_ = static_cast<int>(std::min<std::size_t>(fits, std::size_t(std::max(2, capacity_))));
        archiveCapacity_ += archiveCapacity_ % 2;  // as DecimationStride rounds it
        archivePolicy_ = DecimationStride(archiveCapacity_);
    }
    if (!archivePolicy_.offer()) return;
    archive_.push_back(archived(snapshot));
    if (archivePolicy_.full(static_cast<long>(archive_.size()))) {
        keepEverySecond(archive_);
        replay();
        return;
    }
    if (!shows(snapshot)) return;
    if (connections_.empty()) {
        replay();  // the first snapshot with the neuron: choose its connections
        return;
    }
    appendPoint(archive_.back());
}

// Rebuilds the plots from the archive: connections chosen at the latest archived snapshot, one
// point per archived snapshot.
void NeuronInspector::replay() {
    connections_.clear();
    history_ = DecimatingHistory(0, capacity_);
    const Snapshot* latest = nullptr;
    for (auto it = archive_.rbegin(); it != archive_.rend() && !latest; ++it)
        if (shows(*it)) latest = &*it;
    if (latest) {
        chooseConnections(*latest);
        history_ = DecimatingHistory(3 * static_cast<int>(connections_.size()) + 1, capacity_);
    }
    rebuildGraphs();
    updateTitles(latest);
    for (ImagePanel* image : {&weightImage_, &momentumImage_}) image->map->data()->clear();
    if (latest) {
        for (const Snapshot& snapshot : archive_)
            if (shows(snapshot)) history_.append(static_cast<double>(snapshot.step), pointValues(snapshot));
        redrawAll();
        fitAxes();
        if (imageApplies(*latest)) updateImages(*latest);
    }
    plot_->replot(QCustomPlot::rpQueuedReplot);
    imagePlot_->replot(QCustomPlot::rpQueuedReplot);
}

void NeuronInspector::chooseConnections(const Snapshot& snapshot) {
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

void NeuronInspector::rebuildGraphs() {
    plot_->clearGraphs();
    for (Panel* panel : {&momentum_, &gradient_, &weight_}) {
        panel->graphs.clear();
        panel->mean = nullptr;
        QCPAxis* keys = panel->rect->axis(QCPAxis::atBottom);
        QCPAxis* values = panel->rect->axis(QCPAxis::atLeft);
        for (std::size_t k = 0; k < connections_.size(); ++k) {
            QCPGraph* graph = plot_->addGraph(keys, values);
            graph->setPen(QPen(connectionColor(static_cast<int>(k)), 1.0));
            graph->setName(connectionName(layer_, connections_[k], inputCount_));
            if (panel == &momentum_) graph->addToLegend(legend_);  // one entry per colour
            panel->graphs.push_back(graph);
        }
        values->setLabel(panel->name);
    }
    legend_->setVisible(!connections_.empty());  // an empty legend is a stray little box
    if (!connections_.empty()) {
        momentum_.mean = plot_->addGraph(momentum_.rect->axis(QCPAxis::atBottom), momentum_.rect->axis(QCPAxis::atLeft));
        momentum_.mean->setPen(QPen(Qt::black, 3.0));
        momentum_.mean->setName(tr("neuron mean"));
        momentum_.mean->addToLegend(legend_);
        if (!hasMomentum_) momentum_.rect->axis(QCPAxis::atLeft)->setLabel(tr("momentum: not kept by this optimizer"));
    }
}

std::vector<double> NeuronInspector::pointValues(const Snapshot& snapshot) const {
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

void NeuronInspector::appendPoint(const Snapshot& snapshot) {
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
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void NeuronInspector::fitAxes() {
    const QVector<double>& steps = history_.steps();
    if (steps.isEmpty()) return;
    momentum_.rect->axis(QCPAxis::atBottom)->setRange(steps.front(), std::max(steps.back(), steps.front() + 1.0));
    for (Panel* panel : {&momentum_, &gradient_, &weight_}) fitValueAxis(panel->rect, panel->graphs, panel->mean);
}

void NeuronInspector::redrawAll() {
    if (!momentum_.mean) return;
    int k = 0;
    for (Panel* panel : {&momentum_, &gradient_, &weight_})
        for (QCPGraph* graph : panel->graphs) graph->setData(history_.steps(), history_.series(k++), true);
    momentum_.mean->setData(history_.steps(), history_.series(k), true);
}

void NeuronInspector::updateTitles(const Snapshot* snapshot) {
    if (layer_ < 0 || neuron_ < 0) {
        plotTitle_->setText(tr("Click a neuron in the network diagram to inspect it."));
        imageTitle_->setText(tr("Click a first-layer neuron of an image data set."));
        return;
    }
    QString title = tr("neuron %1 of layer %2").arg(neuron_).arg(layer_ + 1);
    if (snapshot) {
        title += tr(" · run %1").arg(QString::fromStdString(snapshot->label));
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
    plotTitle_->setText(title);
    imageTitle_->setText(tr("neuron %1 of layer %2: incoming connections as an image").arg(neuron_).arg(layer_ + 1));
}

bool NeuronInspector::imageApplies(const Snapshot& snapshot) const {
    return imageShape_.valid() && layer_ == 0 &&
           snapshot.layers.front().parameters.cols() - 1 == imageShape_.height * imageShape_.width;
}

void NeuronInspector::updateImages(const Snapshot& snapshot) {
    const LayerSnapshot& layer = snapshot.layers.front();
    const int w = imageShape_.width, h = imageShape_.height;
    for (auto [image, matrix] : {std::pair{&weightImage_, &layer.parameters}, std::pair{&momentumImage_, &layer.firstMoment}}) {
        QCPColorMapData* data = image->map->data();
        data->setSize(w, h);
        data->setRange(QCPRange(0, w - 1), QCPRange(0, h - 1));
        DivergingColorScale scale;
        if (matrix->size() == 0) {
            data->fill(NAN);
        } else {
            const auto pixels = matrix->row(neuron_).head(w * h);
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) data->setCell(x, y, pixels(y * w + x));
            scale.fitTo(Matrix(pixels));
        }
        applyDivergingScale(image->scale, scale);
        useImageTicks(image->rect->axis(QCPAxis::atBottom), w);
        useImageTicks(image->rect->axis(QCPAxis::atLeft), h);
    }
    momentumImage_.rect->axis(QCPAxis::atBottom)->setLabel(
        layer.firstMoment.size() == 0 ? tr("momentum: not kept by this optimizer") : tr("incoming momentum"));
    imagePlot_->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace ml
