#include "views/LayerBlockList.h"

#include <QFontMetrics>
#include <QSignalBlocker>

#include <algorithm>

namespace ml {

LayerBlockList::LayerBlockList(QWidget* parent) : QListWidget(parent) {
    setObjectName(QStringLiteral("layerBlocks"));
    // Blocks left to right, wrapping into rows: a model of many layers scrolls rather than widens the dock.
    setViewMode(QListView::IconMode);
    setFlow(QListView::LeftToRight);
    setWrapping(true);
    setResizeMode(QListView::Adjust);
    setMovement(QListView::Static);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setSpacing(2);
    setUniformItemSizes(false);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setToolTip(tr("The recorded layers: pick one to draw it"));
    connect(this, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row >= 0) Q_EMIT layerPicked(row);
    });
    hide();
}

void LayerBlockList::showLayers(const RecordedModel& model) {
    const QSignalBlocker quiet(this);
    clear();
    setVisible(model.asBlocks && !model.empty());
    if (!isVisible()) return;
    for (const RecordedLayer& layer : model.layers) {
        const QString name = QString::fromStdString(layer.name);
        const QString shape = QString::fromStdString(layer.kind + " " + layer.shapeText());
        auto* item = new QListWidgetItem(name + "\n" + shape);
        item->setData(Qt::UserRole, name);
        item->setTextAlignment(Qt::AlignCenter);
        // Each block as wide as its longer line (no wrapping inside a shape), two lines high.
        const QFontMetrics metrics = fontMetrics();
        item->setSizeHint(QSize(std::max(metrics.horizontalAdvance(name), metrics.horizontalAdvance(shape)) + 12,
                                2 * metrics.height() + 8));
        item->setToolTip(layer.follows.empty()
                             ? tr("%1: reads what the model gives it (no recorded layer before it)")
                                   .arg(QString::fromStdString(layer.text()))
                             : tr("%1: reads the output of %2")
                                   .arg(QString::fromStdString(layer.text()), QString::fromStdString(layer.follows)));
        addItem(item);
    }
    setFixedHeight(sizeHint().height());
    setCurrentRow(0);
}

void LayerBlockList::setCurrentLayer(int layer) {
    if (layer >= 0 && layer < count() && layer != currentRow()) setCurrentRow(layer);
}

QString LayerBlockList::layerName(int layer) const {
    const QListWidgetItem* block = item(layer);
    return block ? block->data(Qt::UserRole).toString() : QString();
}

// Two lines of blocks at most; more scroll.
QSize LayerBlockList::sizeHint() const {
    const int line = fontMetrics().height();
    const int rows = count() > 4 ? 2 : 1;
    return {QListWidget::sizeHint().width(), rows * (2 * line + 12) + 2 * frameWidth() + 4};
}

}  // namespace ml
