#include "views/LayerHeatmapView.h"

#include "views/ViewControls.h"

#include <QCheckBox>
#include <QComboBox>
#include <QVBoxLayout>
#include <qcustomplot.h>

namespace ml {

QString layerTitle(const Snapshot& snapshot, int layer) {
    const Matrix& parameters = snapshot.layers[static_cast<std::size_t>(layer)].parameters;
    return QStringLiteral("layer %1: %2 → %3").arg(layer + 1).arg(parameters.cols() - 1).arg(parameters.rows());
}

LayerHeatmapView::LayerHeatmapView(QWidget* parent) : QWidget(parent) {
    buildPlot();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    redraw();
}

void LayerHeatmapView::buildPlot() {
    plot_ = new QCustomPlot(this);
    plot_->plotLayout()->clear();
    title_ = new QCPTextElement(plot_, QString(), QFont(font().family(), font().pointSize(), QFont::Bold));
    plot_->plotLayout()->addElement(0, 0, title_);
    auto* row = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(1, 0, row);
    auto* rect = new QCPAxisRect(plot_);
    rect->axis(QCPAxis::atBottom)->setLabel(tr("input i"));
    rect->axis(QCPAxis::atLeft)->setLabel(tr("neuron j"));
    rect->axis(QCPAxis::atLeft)->setRangeReversed(true);  // neuron 0 at the top, like the matrix
    row->addElement(0, 0, rect);
    colorScale_ = new QCPColorScale(plot_);
    row->addElement(0, 1, colorScale_);
    auto* margins = new QCPMarginGroup(plot_);
    rect->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    colorScale_->setMarginGroup(QCP::msTop | QCP::msBottom, margins);

    map_ = new QCPColorMap(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    map_->setInterpolate(false);
    map_->setTightBoundary(false);
    map_->setColorScale(colorScale_);
    applyDivergingScale(colorScale_, scale_);
    useIntegerTicks(rect->axis(QCPAxis::atBottom));
    useIntegerTicks(rect->axis(QCPAxis::atLeft));

    biasLine_ = new QCPItemStraightLine(plot_);
    biasLine_->setClipAxisRect(rect);
    biasLine_->setPen(QPen(Qt::black, 1.5, Qt::DashLine));
    biasLabel_ = new QCPItemText(plot_);
    biasLabel_->setClipToAxisRect(false);
    biasLabel_->setText(tr("bias"));
    biasLabel_->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
    message_ = new QCPItemText(plot_);
    message_->position->setType(QCPItemPosition::ptAxisRectRatio);
    message_->position->setAxisRect(rect);
    message_->position->setCoords(0.5, 0.5);
    message_->setFont(QFont(font().family(), font().pointSize() + 1));
    for (QCPItemPosition* position : {biasLine_->point1, biasLine_->point2, biasLabel_->position}) {
        position->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    }
}

void LayerHeatmapView::setLayer(int layer) {
    if (layer == layer_) return;
    layer_ = layer;
    redraw();
}

void LayerHeatmapView::setQuantity(Quantity quantity) {
    quantity_ = quantity;
    redraw();
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
    redraw();
}

void LayerHeatmapView::showSnapshot(const Snapshot& snapshot) {
    snapshot_ = snapshot;
    redraw();
}

void LayerHeatmapView::showMessage(const QString& message) {
    map_->data()->clear();
    biasLine_->setVisible(false);
    biasLabel_->setVisible(false);
    message_->setText(message);
    message_->setVisible(true);
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void LayerHeatmapView::redraw() {
    if (!snapshot_) {
        title_->setText(tr("Layer heat-map"));
        return showMessage(tr("No snapshot yet: start a run."));
    }
    const int l = std::clamp(layer_, 0, std::max(0, static_cast<int>(snapshot_->layers.size()) - 1));
    const Matrix values = extractQuantity(*snapshot_, l, quantity_);
    title_->setText(QStringLiteral("%1 · step %2 · %3 · %4")
                        .arg(QString::fromStdString(snapshot_->label))
                        .arg(snapshot_->step)
                        .arg(displayName(quantity_))
                        .arg(layerTitle(*snapshot_, l)));
    if (values.size() == 0) return showMessage(tr("%1: not kept by this optimizer").arg(displayName(quantity_)));
    message_->setVisible(false);

    const bool bias = showBias_;
    const int inputs = static_cast<int>(values.cols()) - 1;
    const int columns = bias ? inputs + 1 : inputs;
    const int rows = static_cast<int>(values.rows());
    QCPColorMapData* data = map_->data();
    data->setSize(columns, rows);
    data->setRange(QCPRange(0, columns - 1), QCPRange(0, rows - 1));
    for (int j = 0; j < rows; ++j)
        for (int i = 0; i < columns; ++i) data->setCell(i, j, values(j, i));
    scale_.fitTo(bias ? values : Matrix(values.leftCols(inputs)));
    applyDivergingScale(colorScale_, scale_);

    QCPAxisRect* rect = map_->keyAxis()->axisRect();
    rect->axis(QCPAxis::atBottom)->setRange(-0.5, columns - 0.5);
    rect->axis(QCPAxis::atLeft)->setRange(-0.5, rows - 0.5);
    biasLine_->setVisible(bias);
    biasLabel_->setVisible(bias);
    biasLine_->point1->setCoords(inputs - 0.5, 0);
    biasLine_->point2->setCoords(inputs - 0.5, 1);
    biasLabel_->position->setCoords(inputs, -0.5);
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

// ---------------------------------------------------------------------------------------------
LayerHeatmapPanel::LayerHeatmapPanel(QWidget* parent)
    : QWidget(parent),
      runs_(new RunSelector(this)),
      layers_(new QComboBox(this)),
      quantities_(new QuantitySelector(this)),
      limit_(new ColorLimitSpinBox(this)),
      showBias_(new QCheckBox(tr("bias column"), this)),
      view_(new LayerHeatmapView(this)) {
    layers_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    showBias_->setChecked(true);
    layOutPanel(this,
                {{tr("Run"), runs_}, {tr("Layer"), layers_}, {tr("Colour"), quantities_}, {QString(), limit_}, {QString(), showBias_}},
                view_);

    view_->setQuantity(quantities_->quantity());
    connect(runs_, &RunSelector::runChanged, this, [this](int run) {
        view_->clear();
        reportRunChanged(run);
    });
    connect(layers_, &QComboBox::currentIndexChanged, this, [this](int layer) { view_->setLayer(std::max(0, layer)); });
    connect(quantities_, &QuantitySelector::quantityChanged, view_, &LayerHeatmapView::setQuantity);
    connect(limit_, &ColorLimitSpinBox::limitChanged, view_, &LayerHeatmapView::setColorLimit);
    connect(showBias_, &QCheckBox::toggled, view_, &LayerHeatmapView::setShowBias);
}

void LayerHeatmapPanel::setRuns(const QStringList& labels) { runs_->setRuns(labels); }

void LayerHeatmapPanel::showSnapshot(const Snapshot& snapshot) {
    if (snapshot.run != runs_->currentRun()) return;
    syncLayerChoices(snapshot);
    quantities_->offer(offeredQuantities(snapshot));
    view_->setLayer(std::max(0, layers_->currentIndex()));
    view_->showSnapshot(snapshot);
}

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
void LayerHeatmapPanel::clear() { view_->clear(); }

}  // namespace ml
