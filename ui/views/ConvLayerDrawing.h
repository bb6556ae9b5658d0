#pragma once
// What the network diagram draws for convolutional networks and not for dense ones: a channel as
// a square box (a neuron is a circle), a pooling layer as a thin box beside the channels it pools,
// and the words of captions and tooltips for channels and kernels.
//
// Public API
//   isChannelColumn(units, c)           column c's units are channels (conv output, image input)
//   paintChannel(painter, centre, r, fill)  one channel box of half-side r
//   paintPool(painter, top, bottom, x, text)  a thin box from top to bottom at x, text above it (none when empty)
//   poolOffset(r)                       where the pooling box sits right of a channel column
//   channelCaption(units, c)            "layer 1: 4 channels\nconv 3×3 → 4×6×6, max 2×2"
//   unitName(units, c, n)               "layer 1, channel 0" in a channel column, else neuronName
//   kernelTooltip(layer, quantityName)  "mean of momentum over the 3×3 kernel" (or its group)
#include "views/ChannelUnits.h"

#include <QColor>
#include <QPointF>
#include <QString>

class QPainter;

namespace ml {

bool isChannelColumn(const NetworkUnits& units, int column);
void paintChannel(QPainter& painter, QPointF center, double radius, const QColor& fill);
void paintPool(QPainter& painter, double top, double bottom, double x, const QString& text);
double poolOffset(double radius);
QString channelCaption(const NetworkUnits& units, int column);
QString unitName(const NetworkUnits& units, int column, int unit);
QString kernelTooltip(const UnitLayer& layer, const QString& quantity);

}  // namespace ml
