#pragma once
// The symmetric diverging colour scale shared by every view: blue (-limit) - white (0) - red
// (+limit), linear in RGB between the stops. The limit is max|value| of what is shown, or a
// value the user fixed. The diagram paints with colorAt(); the heat-maps use gradient(), built
// from the same stops, with a QCPColorMap data range of range().
//
// Public API
//   setFixedLimit(l)        l > 0: the scale always spans [-l, l]; l <= 0: automatic
//   fitTo(matrix)           automatic mode: limit = max|finite entry| (1 when all are zero)
//   fitToMaximum(m)         automatic mode: limit = m, for callers that know max|value|
//   limit(), range()        the current half-width, and [-limit, limit] as a QCPRange
//   colorAt(value)          clamped to the ends; NaN gives grey
//   gradient()              the matching QCPColorGradient (static)
//   paintLegend(painter, rect, title)  a vertical bar with numbers at -limit, 0, +limit
//   applyDivergingScale(colorScale, scale)  gradient + range for a QCPColorScale and its maps
//   useIntegerTicks(axis)   ticks at cell indices only, for colour-map axes
#include "Tensor.h"

#include <QColor>
#include <QRectF>
#include <QString>
#include <qcustomplot.h>

class QPainter;

namespace ml {

class DivergingColorScale {
public:
    void setFixedLimit(double limit) { fixedLimit_ = limit; }
    bool isFixed() const { return fixedLimit_ > 0.0; }
    void fitTo(const Matrix& values);
    void fitToMaximum(double maxAbs);  // automatic mode: limit = maxAbs (1 when it is 0 or not finite)

    double limit() const { return isFixed() ? fixedLimit_ : automaticLimit_; }
    QCPRange range() const { return QCPRange(-limit(), limit()); }
    // 0..1 along the scale: -limit -> 0, 0 -> 0.5, +limit -> 1 (clamped).
    double position(double value) const;
    QColor colorAt(double value) const;

    static QCPColorGradient gradient();
    static QColor colorAtPosition(double position);  // 0 blue, 0.5 white, 1 red

    // Vertical colour bar in `rect` (bar on the left, numbers to its right, title above it).
    void paintLegend(QPainter& painter, const QRectF& rect, const QString& title) const;

private:
    double fixedLimit_ = 0.0;
    double automaticLimit_ = 1.0;
};

// Gives a QCPColorScale (and through it every QCPColorMap attached to it) the diverging gradient
// and the scale's symmetric range. Attach the maps first: attaching copies the scale's gradient
// and range to the map.
void applyDivergingScale(QCPColorScale* colorScale, const DivergingColorScale& scale);

// Integer-only ticks (cells are indices): steps of 1, 2, 5, 10, ... as the axis needs.
void useIntegerTicks(QCPAxis* axis);
// A logarithmic (log ticks) or linear axis: the scale type and its ticker switched together.
void setLogarithmic(QCPAxis* axis, bool logarithmic);

// Square cells whatever the axis rect's shape: both axes get the same pixels per cell and the
// map's data is centred (call after each layout, e.g. on QCustomPlot::afterLayout).
void keepPixelsSquare(QCPColorMap* map);

// Shortest readable text for a value on a scale: "0.0123", "-1.5e-05".
QString formatValue(double value);

}  // namespace ml
