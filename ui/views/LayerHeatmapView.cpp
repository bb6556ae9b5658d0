#include "views/LayerHeatmapView.h"

#include "common/RedrawWhenShown.h"
#include "views/ChannelUnits.h"
#include "views/ViewControls.h"

#include <QCheckBox>
#include <QComboBox>
#include <QMouseEvent>
#include <QVBoxLayout>
#include <cmath>
#include <qcustomplot.h>

namespace ml {

namespace {

// `text` broken into lines of at most `width` pixels (at spaces; a word too long is elided), at
// most as many lines as fit in `height`, the last one elided when the text goes on.
QString wrapToBox(const QString& text, const QFontMetrics& metrics, int width, int height) {
    const int maxLines = std::max(1, height / std::max(1, metrics.lineSpacing()));
    QStringList lines;
    QString line;
    for (const QString& word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const QString longer = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
        if (line.isEmpty() || metrics.horizontalAdvance(longer) <= width) {
            line = longer;
            continue;
        }
        lines << line;
        line = word;
    }
    if (!line.isEmpty()) lines << line;
    if (lines.size() > maxLines) {
        lines = lines.mid(0, maxLines);
        lines.back() += QStringLiteral(" …");
    }
    for (QString& each : lines)
        if (metrics.horizontalAdvance(each) > width) each = metrics.elidedText(each, Qt::ElideRight, width);
    return lines.join(QLatin1Char('\n'));
}

int kernelOf(const Snapshot& snapshot, int layer) {
    const NetworkUnits units = networkUnits(snapshot, std::nullopt);
    return layer < static_cast<int>(units.layers.size()) ? units.layers[static_cast<std::size_t>(layer)].kernel : 0;
}

}  // namespace

QString layerTitle(const Snapshot& snapshot, int layer) {
    const NetworkUnits units = networkUnits(snapshot, std::nullopt);
    if (layer < static_cast<int>(units.layers.size()) && units.layers[static_cast<std::size_t>(layer)].isConv()) {
        const UnitLayer& conv = units.layers[static_cast<std::size_t>(layer)];
        return QStringLiteral("layer %1: conv %2×%2, %3 → %4 channels")
            .arg(layer + 1)
            .arg(conv.kernel)
            .arg(conv.inputs)
            .arg(conv.outputs);
    }
    const Matrix& parameters = snapshot.layers[static_cast<std::size_t>(layer)].parameters;
    return QStringLiteral("layer %1: %2 → %3").arg(layer + 1).arg(parameters.cols() - 1).arg(parameters.rows());
}

LayerHeatmapView::LayerHeatmapView(QWidget* parent) : QWidget(parent) {
    plot_ = new QCustomPlot(this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    connect(plot_, &QCustomPlot::mousePress, this, [this](QMouseEvent* event) {
        for (std::size_t k = 0; k < cells_.size(); ++k) {
            const Cell& cell = cells_[k];
            if (!cell.rect->rect().contains(event->position().toPoint()) || cell.map->data()->isEmpty()) continue;
            int column =
                static_cast<int>(std::lround(cell.rect->axis(QCPAxis::atBottom)->pixelToCoord(event->position().x())));
            int row =
                static_cast<int>(std::lround(cell.rect->axis(QCPAxis::atLeft)->pixelToCoord(event->position().y())));
            if (cell.grid) {  // a kernel pixel: its matrix entry (gaps are not clickable)
                const auto source = cell.grid->sourceOf(column, row);
                if (!source) continue;
                Q_EMIT cellClicked(static_cast<int>(k), source->first, source->second);
                continue;
            }
            if (row >= 0 && row < cell.map->data()->valueSize() && column >= 0 && column < cell.map->data()->keySize())
                Q_EMIT cellClicked(static_cast<int>(k), row, column);
        }
    });
    connect(plot_, &QCustomPlot::afterLayout, this, &LayerHeatmapView::fitMessages);
    ensureCells(1);
    redraw();
}

// After the layout (each panel's size known), before drawing: the messages fit their panels.
void LayerHeatmapView::fitMessages() {
    for (Cell& cell : cells_) {
        if (!cell.message->visible()) continue;
        // The hidden axes leave their margins free: the message may use the panel's outer rectangle.
        const QRect box = cell.rect->outerRect().adjusted(4, 4, -4, -4);
        cell.message->position->setCoords(box.center());
        const QFontMetrics metrics(cell.message->font());
        QString text = wrapToBox(cell.messageText, metrics, box.width(), box.height());
        // The title names the quantity: a panel too small for the whole message shows the reason.
        if (text.contains(QChar(0x2026)) && !cell.messageReason.isEmpty())
            text = wrapToBox(cell.messageReason, metrics, box.width(), box.height());
        cell.message->setText(text);
    }
}

std::vector<QCPColorMap*> LayerHeatmapView::colorMaps() const {
    std::vector<QCPColorMap*> maps;
    for (const Cell& cell : cells_) maps.push_back(cell.map);
    return maps;
}

// The plot's layout for `count` panels: title; [panels in a grid | the one colour scale].
void LayerHeatmapView::ensureCells(int count) {
    count = std::max(1, count);
    if (static_cast<int>(cells_.size()) == count) return;
    plot_->clearPlottables();
    plot_->clearItems();
    plot_->plotLayout()->clear();
    cells_.clear();
    title_ = new QCPTextElement(plot_, QString(), QFont(font().family(), font().pointSize(), QFont::Bold));
    plot_->plotLayout()->addElement(0, 0, title_);
    auto* body = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(1, 0, body);
    grid_ = new QCPLayoutGrid;
    body->addElement(0, 0, grid_);
    colorScale_ = new QCPColorScale(plot_);
    body->addElement(0, 1, colorScale_);
    body->setColumnStretchFactor(1, 0.001);
    margins_ = new QCPMarginGroup(plot_);
    // Squarish beyond three maps (4: 2 x 2, 6: 3 x 2, 9: 3 x 3): a row of six once made the
    // docked heat-map's minimum wider than a 1366 px window could give it.
    const int columns = count <= 3 ? count : static_cast<int>(std::ceil(std::sqrt(double(count))));
    for (int k = 0; k < count; ++k) {
        Cell cell;
        auto* box = new QCPLayoutGrid;
        grid_->addElement(k / columns, k % columns, box);
        cell.caption = new QCPTextElement(plot_, QString(), font());
        box->addElement(0, 0, cell.caption);
        cell.rect = new QCPAxisRect(plot_);
        box->addElement(1, 0, cell.rect);
        cell.rect->axis(QCPAxis::atBottom)->setLabel(tr("input i"));
        cell.rect->axis(QCPAxis::atLeft)->setLabel(tr("neuron j"));
        cell.rect->axis(QCPAxis::atLeft)->setRangeReversed(true);  // neuron 0 at the top, like the matrix
        cell.rect->setMarginGroup(QCP::msLeft | QCP::msRight | QCP::msTop | QCP::msBottom, margins_);
        cell.map = new QCPColorMap(cell.rect->axis(QCPAxis::atBottom), cell.rect->axis(QCPAxis::atLeft));
        cell.map->setInterpolate(false);
        cell.map->setTightBoundary(false);
        cell.map->setColorScale(colorScale_);  // one scale for every panel
        useIntegerTicks(cell.rect->axis(QCPAxis::atBottom));
        useIntegerTicks(cell.rect->axis(QCPAxis::atLeft));
        cell.biasLine = new QCPItemStraightLine(plot_);
        cell.biasLine->setClipAxisRect(cell.rect);
        cell.biasLine->setPen(QPen(Qt::black, 1.5, Qt::DashLine));
        cell.biasLabel = new QCPItemText(plot_);
        cell.biasLabel->setClipToAxisRect(false);
        cell.biasLabel->setText(tr("bias"));
        cell.biasLabel->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        cell.message = new QCPItemText(plot_);
        cell.message->setClipToAxisRect(false);
        cell.message->position->setType(QCPItemPosition::ptAbsolute);  // placed by fitMessages()
        cell.message->position->setAxisRect(cell.rect);
        cell.message->setFont(QFont(font().family(), font().pointSize() + 1));
        for (QCPItemPosition* position : {cell.biasLine->point1, cell.biasLine->point2, cell.biasLabel->position})
            position->setAxes(cell.rect->axis(QCPAxis::atBottom), cell.rect->axis(QCPAxis::atLeft));
        cells_.push_back(cell);
    }
    colorScale_->setMarginGroup(QCP::msTop | QCP::msBottom, margins_);
    applyDivergingScale(colorScale_, scale_);
}

void LayerHeatmapView::setLayer(int layer) {
    if (layer == layer_) return;
    layer_ = layer;
    if (snapshot_) showSnapshot(snapshot_);
}

void LayerHeatmapView::setQuantity(Quantity quantity) {
    quantity_ = quantity;
    if (snapshot_) showSnapshot(snapshot_);
}

void LayerHeatmapView::setShowBias(bool show) {
    showBias_ = show;
    redraw();
}

void LayerHeatmapView::setColorLimit(double limit) {
    scale_.setFixedLimit(limit);
    redraw();
}

void LayerHeatmapView::clear() {
    snapshot_.reset();
    maps_.clear();
    redraw();
}

void LayerHeatmapView::showSnapshot(SharedSnapshot shared) {
    snapshot_ = std::move(shared);
    const Snapshot& snapshot = *snapshot_;
    const int l = std::clamp(layer_, 0, std::max(0, static_cast<int>(snapshot.layers.size()) - 1));
    maps_ = {{QStringLiteral("%1 · step %2").arg(QString::fromStdString(snapshot.label)).arg(snapshot.step),
              snapshot.layers.empty() ? Matrix() : extractQuantity(snapshot, l, quantity_), QString(),
              kernelOf(snapshot, l)}};
    layerText_ = snapshot.layers.empty() ? QString() : layerTitle(snapshot, l);
    redraw();
}

void LayerHeatmapView::showMatrices(std::vector<Map> maps, const QString& layerText) {
    snapshot_.reset();
    maps_ = std::move(maps);
    layerText_ = layerText;
    redraw();
}

void LayerHeatmapView::drawCell(Cell& cell, const Map& map) {
    cell.caption->setText(map.caption);
    const Matrix& values = map.values;
    const bool empty = values.size() == 0;
    cell.biasLine->setVisible(!empty && showBias_);
    cell.biasLabel->setVisible(!empty && showBias_);
    cell.message->setVisible(empty);
    for (QCPAxis* axis : {cell.rect->axis(QCPAxis::atBottom), cell.rect->axis(QCPAxis::atLeft)})
        axis->setVisible(!empty);  // no empty ticks under the message
    if (empty) {
        cell.map->data()->clear();
        cell.messageReason = maps_.empty()           ? QString()
                             : map.missing.isEmpty() ? tr("not kept by this optimizer")
                                                     : map.missing;
        cell.messageText = maps_.empty() ? tr("No snapshot yet: start a run.")
                                         : tr("%1: %2").arg(displayName(quantity_), cell.messageReason);
        cell.message->setText(cell.messageText);  // fitMessages() wraps it once the panel's size is known
        return;
    }
    cell.grid.reset();
    if (map.kernel > 0 && (values.cols() - 1) % (Eigen::Index{map.kernel} * map.kernel) == 0)
        return drawKernels(cell, map);
    cell.rect->axis(QCPAxis::atBottom)->setLabel(tr("input i"));
    cell.rect->axis(QCPAxis::atLeft)->setLabel(tr("neuron j"));
    useIntegerTicks(cell.rect->axis(QCPAxis::atBottom));
    useIntegerTicks(cell.rect->axis(QCPAxis::atLeft));
    const int inputs = static_cast<int>(values.cols()) - 1;
    const int columns = showBias_ ? inputs + 1 : inputs;
    const int rows = static_cast<int>(values.rows());
    QCPColorMapData* data = cell.map->data();
    data->setSize(columns, rows);
    data->setRange(QCPRange(0, columns - 1), QCPRange(0, rows - 1));
    for (int j = 0; j < rows; ++j)
        for (int i = 0; i < columns; ++i) data->setCell(i, j, values(j, i));
    cell.rect->axis(QCPAxis::atBottom)->setRange(-0.5, columns - 0.5);
    cell.rect->axis(QCPAxis::atLeft)->setRange(-0.5, rows - 0.5);
    cell.biasLine->point1->setCoords(inputs - 0.5, 0);
    cell.biasLine->point2->setCoords(inputs - 0.5, 1);
    cell.biasLabel->position->setCoords(inputs, -0.5);
}

// A conv layer: the grid of kernels as one image, ticks naming the channels at kernel centres.
void LayerHeatmapView::drawKernels(Cell& cell, const Map& map) {
    const Matrix& values = map.values;
    const int inputs = static_cast<int>((values.cols() - 1) / (Eigen::Index{map.kernel} * map.kernel));
    cell.grid.emplace(static_cast<int>(values.rows()), inputs, map.kernel, showBias_);
    const KernelGrid& grid = *cell.grid;
    const Matrix pixels = grid.image(values);
    QCPColorMapData* data = cell.map->data();
    data->setSize(grid.width(), grid.height());
    data->setRange(QCPRange(0, grid.width() - 1), QCPRange(0, grid.height() - 1));
    for (int y = 0; y < grid.height(); ++y)
        for (int x = 0; x < grid.width(); ++x) data->setCell(x, y, pixels(y, x));
    auto channelTicks = [](QCPAxis* axis, int count, const KernelGrid& g, const QString& label) {
        QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
        const int step = std::max(1, count / 16);  // at most about 16 labels
        for (int c = 0; c < count; c += step) ticker->addTick(g.kernelCenter(c), QString::number(c));
        axis->setTicker(ticker);
        axis->setLabel(label);
    };
    channelTicks(cell.rect->axis(QCPAxis::atBottom), inputs, grid, tr("input channel (k×k kernels)"));
    channelTicks(cell.rect->axis(QCPAxis::atLeft), grid.outputs(), grid, tr("output channel"));
    cell.rect->axis(QCPAxis::atBottom)->setRange(-0.5, grid.width() - 0.5);
    cell.rect->axis(QCPAxis::atLeft)->setRange(-0.5, grid.height() - 0.5);
    cell.biasLine->point1->setCoords(grid.biasX() - 1, 0);
    cell.biasLine->point2->setCoords(grid.biasX() - 1, 1);
    cell.biasLabel->position->setCoords(grid.biasX(), -0.5);
}

void LayerHeatmapView::redraw() {
    ensureCells(static_cast<int>(maps_.size()));
    title_->setText(maps_.empty() ? tr("Layer heat-map")
                                  : QStringLiteral("%1 · %2").arg(displayName(quantity_), layerText_));
    double maximum = 0.0;
    for (std::size_t k = 0; k < cells_.size(); ++k) {
        const Map map = k < maps_.size() ? maps_[k] : Map{};
        drawCell(cells_[k], map);
        if (map.values.size() > 0) {
            const Eigen::Index shownColumns = showBias_ ? map.values.cols() : map.values.cols() - 1;
            maximum = std::max(maximum, maxAbs(map.values.leftCols(shownColumns)));
        }
    }
    scale_.fitToMaximum(maximum);  // one range over every panel
    applyDivergingScale(colorScale_, scale_);
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

// ---------------------------------------------------------------------------------------------
LayerHeatmapPanel::LayerHeatmapPanel(RunSelection* selection, QWidget* parent)
    : QWidget(parent), selection_(selection), layers_(new QComboBox(this)), quantities_(new QuantitySelector(this)),
      limit_(new ColorLimitSpinBox(this)), showBias_(new QCheckBox(tr("bias"), this)),
      view_(new LayerHeatmapView(this)) {
    layers_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    showBias_->setChecked(true);
    // A short label keeps the panel narrow enough to sit beside the summary at 1366 x 768.
    showBias_->setToolTip(tr("Show the bias column (the last column of each map)"));
    layOutPanel(this,
                {{tr("Layer"), layers_}, {tr("Colour"), quantities_}, {QString(), limit_}, {QString(), showBias_}},
                view_);

    view_->setQuantity(quantities_->quantity());
    connect(layers_, &QComboBox::currentIndexChanged, this, &LayerHeatmapPanel::refresh);
    connect(quantities_, &QuantitySelector::quantityChanged, this, &LayerHeatmapPanel::refresh);
    connect(limit_, &ColorLimitSpinBox::limitChanged, view_, &LayerHeatmapView::setColorLimit);
    connect(showBias_, &QCheckBox::toggled, view_, &LayerHeatmapView::setShowBias);
    connect(selection_, &RunSelection::selectionChanged, this, &LayerHeatmapPanel::refresh);
    connect(selection_, &RunSelection::stepChanged, this, &LayerHeatmapPanel::refresh);
    auto* redraw = new RedrawWhenShown(this, [this] { refresh(); });
    connect(selection_, &RunSelection::snapshotsArrived, this, [this, redraw] {
        if (selection_->step() < 0) redraw->request();
    });
    connect(view_, &LayerHeatmapView::cellClicked, this,
            [this](int, int row, int column) { Q_EMIT connectionClicked(layer(), row, column); });
}

void LayerHeatmapPanel::refresh() {
    const std::vector<RunSelection::Panel> panels = selection_->panels();
    quantities_->offer(selection_->availableQuantities());
    const Quantity quantity = quantities_->quantity();
    view_->setQuantity(quantity);
    const auto first =
        std::find_if(panels.begin(), panels.end(), [](const RunSelection::Panel& p) { return p.ready(); });
    if (first == panels.end()) return view_->clear();
    syncLayerChoices(*first->snapshot);
    const int l = layer();
    std::vector<LayerHeatmapView::Map> maps;
    for (const RunSelection::Panel& panel : panels)
        maps.push_back({panel.caption,
                        panel.ready() && l < static_cast<int>(panel.snapshot->layers.size())
                            ? RunSelection::values(panel, l, quantity)
                            : Matrix(),
                        panel.snapshot ? missingQuantityReason(*panel.snapshot) : QString(),
                        kernelOf(*first->snapshot, l)});
    view_->showMatrices(std::move(maps), layerTitle(*first->snapshot, l));
}

int LayerHeatmapPanel::layer() const { return std::max(0, layers_->currentIndex()); }

// The layer combo lists the snapshot's layers (rebuilt only when they change; the choice is kept).
void LayerHeatmapPanel::syncLayerChoices(const Snapshot& snapshot) {
    const int layerCount = static_cast<int>(snapshot.layers.size());
    bool same = layers_->count() == layerCount;
    for (int l = 0; same && l < layerCount; ++l) same = layers_->itemText(l) == layerTitle(snapshot, l);
    if (same) return;
    const QSignalBlocker blocker(layers_);
    const int previous = layers_->currentIndex();
    layers_->clear();
    for (int l = 0; l < layerCount; ++l) layers_->addItem(layerTitle(snapshot, l));
    layers_->setCurrentIndex(std::clamp(previous, 0, layerCount - 1));
}

void LayerHeatmapPanel::setLayer(int layer) {
    if (layer >= 0 && layer < layers_->count()) layers_->setCurrentIndex(layer);
}

void LayerHeatmapPanel::setQuantity(Quantity quantity) { quantities_->setQuantity(quantity); }
void LayerHeatmapPanel::setShowBias(bool show) { showBias_->setChecked(show); }
void LayerHeatmapPanel::setColorLimit(double limit) { limit_->setValue(std::max(0.0, limit)); }

}  // namespace ml
