#include "views/ConvLayerDrawing.h"

#include "views/NeuronNames.h"

#include <QPainter>

namespace ml {

bool isChannelColumn(const NetworkUnits& units, int column) {
    if (column == 0) return units.inputChannels;
    const auto l = static_cast<std::size_t>(column - 1);
    return l < units.layers.size() && units.layers[l].isConv();
}

void paintChannel(QPainter& painter, QPointF center, double radius, const QColor& fill) {
    painter.setPen(QPen(QColor(0x30, 0x30, 0x30), 1.2));
    painter.setBrush(fill);
    painter.drawRoundedRect(QRectF(center.x() - radius, center.y() - radius, 2 * radius, 2 * radius), 2.0, 2.0);
}

double poolOffset(double radius) { return radius + 7.0; }

void paintPool(QPainter& painter, double top, double bottom, double x, const QString& text) {
    constexpr double kWidth = 6.0;
    painter.save();
    painter.setPen(QPen(QColor(0x50, 0x50, 0x50), 1.0));
    painter.setBrush(QColor(0xd8, 0xd8, 0xd8, 200));  // the kernel lines show through
    painter.drawRect(QRectF(x - kWidth / 2, top, kWidth, bottom - top));
    if (text.isEmpty()) return painter.restore();
    const QFontMetricsF metrics(painter.font());
    painter.setPen(Qt::darkGray);
    painter.drawText(QRectF(x - 50, top - metrics.height() * 1.5, 100, metrics.height()), Qt::AlignCenter,
                     text);  // clear of the selection ring
    painter.restore();
}

QString channelCaption(const NetworkUnits& units, int column) {
    QStringList lines;
    if (column == 0) {
        lines << QStringLiteral("layer 0: %1 input channel%2")
                     .arg(units.layers.front().inputs)
                     .arg(units.layers.front().inputs == 1 ? "" : "s");
        if (!units.inputShape.isEmpty()) lines << units.inputShape;
        return lines.join(QLatin1Char('\n'));
    }
    const UnitLayer& layer = units.layers[static_cast<std::size_t>(column - 1)];
    lines << QStringLiteral("layer %1: %2 channels").arg(column).arg(layer.outputs);
    QString conv = QStringLiteral("conv %1×%1").arg(layer.kernel);
    if (!layer.outputShape.isEmpty()) conv += QStringLiteral(" → ") + layer.outputShape;
    if (!layer.poolAfter.isEmpty()) conv += QStringLiteral(", ") + layer.poolAfter;
    lines << conv;
    return lines.join(QLatin1Char('\n'));
}

QString unitName(const NetworkUnits& units, int column, int unit) {
    if (!isChannelColumn(units, column)) return neuronName(column, unit);
    return QStringLiteral("layer %1, channel %2").arg(column).arg(unit);
}

QString kernelTooltip(const UnitLayer& layer, const QString& quantity) {
    if (layer.isConv()) return QStringLiteral("mean of %1 over the %2×%2 kernel").arg(quantity).arg(layer.kernel);
    return QStringLiteral("mean of %1 over the channel's %2 flattened weights")
        .arg(quantity)
        .arg(layer.columnsPerInput);
}

}  // namespace ml
