#include "views/DivergingColorScale.h"

#include <QPainter>

#include <algorithm>
#include <array>
#include <cmath>

namespace ml {

namespace {

struct ColorStop {
    double position;
    QColor color;
};

// ColorBrewer RdBu ends with a pure white centre: zero is white, small values stay pale.
const std::array<ColorStop, 5>& colorStops() {
    static const std::array<ColorStop, 5> stops{{
        {0.0, QColor(0x21, 0x66, 0xac)},
        {0.25, QColor(0x67, 0xa9, 0xcf)},
        {0.5, QColor(0xff, 0xff, 0xff)},
        {0.75, QColor(0xef, 0x8a, 0x62)},
        {1.0, QColor(0xb2, 0x18, 0x2b)},
    }};
    return stops;
}

const QColor kNanColor(0x9e, 0x9e, 0x9e);

int mix(int a, int b, double t) { return static_cast<int>(std::lround(a + (b - a) * t)); }

}  // namespace

void DivergingColorScale::fitTo(const Matrix& values) {
    double maximum = 0.0;
    for (Eigen::Index k = 0; k < values.size(); ++k) {
        const double v = std::abs(static_cast<double>(values.data()[k]));
        if (std::isfinite(v)) maximum = std::max(maximum, v);
    }
    fitToMaximum(maximum);
}

void DivergingColorScale::fitToMaximum(double maxAbs) {
    automaticLimit_ = std::isfinite(maxAbs) && maxAbs > 0.0 ? maxAbs : 1.0;
}

double DivergingColorScale::position(double value) const { return std::clamp(0.5 + 0.5 * value / limit(), 0.0, 1.0); }

QColor DivergingColorScale::colorAt(double value) const {
    if (std::isnan(value)) return kNanColor;
    return colorAtPosition(position(value));
}

QColor DivergingColorScale::colorAtPosition(double position) {
    const auto& stops = colorStops();
    position = std::clamp(position, 0.0, 1.0);
    for (std::size_t k = 1; k < stops.size(); ++k) {
        if (position > stops[k].position) continue;
        const ColorStop& low = stops[k - 1];
        const ColorStop& high = stops[k];
        const double t = (position - low.position) / (high.position - low.position);
        return QColor(mix(low.color.red(), high.color.red(), t), mix(low.color.green(), high.color.green(), t),
                      mix(low.color.blue(), high.color.blue(), t));
    }
    return stops.back().color;
}

QCPColorGradient DivergingColorScale::gradient() {
    QCPColorGradient gradient;
    QMap<double, QColor> stops;
    for (const ColorStop& stop : colorStops()) stops.insert(stop.position, stop.color);
    gradient.setColorStops(stops);
    gradient.setColorInterpolation(QCPColorGradient::ciRGB);
    gradient.setLevelCount(513);  // odd: the middle level is exactly 0 (white)
    gradient.setNanHandling(QCPColorGradient::nhNanColor);
    gradient.setNanColor(kNanColor);
    return gradient;
}

void DivergingColorScale::paintLegend(QPainter& painter, const QRectF& rect, const QString& title) const {
    painter.save();
    const QFontMetricsF metrics(painter.font());
    const double lineHeight = metrics.height();
    const QRectF titleRect(rect.left(), rect.top(), rect.width(), lineHeight * 2.2);
    painter.setPen(Qt::black);
    painter.setBrush(Qt::NoBrush);
    painter.drawText(titleRect, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, title);

    const double barWidth = 14.0;
    const QRectF bar(rect.left(), titleRect.bottom() + lineHeight * 0.5, barWidth,
                     std::max(20.0, rect.bottom() - titleRect.bottom() - lineHeight));
    QLinearGradient fill(bar.bottomLeft(), bar.topLeft());
    for (const ColorStop& stop : colorStops()) fill.setColorAt(stop.position, stop.color);
    painter.fillRect(bar, QBrush(fill));
    painter.setPen(QPen(Qt::darkGray, 1.0));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(bar);
    painter.setPen(Qt::black);

    const double ticks[] = {-1.0, -0.5, 0.0, 0.5, 1.0};
    for (double tick : ticks) {
        const double y = bar.bottom() - (tick + 1.0) * 0.5 * bar.height();
        painter.drawLine(QPointF(bar.right(), y), QPointF(bar.right() + 4.0, y));
        const QString text = formatValue(tick * limit());
        painter.drawText(QRectF(bar.right() + 6.0, y - lineHeight / 2, rect.right() - bar.right() - 6.0, lineHeight),
                         Qt::AlignLeft | Qt::AlignVCenter, text);
    }
    painter.restore();
}

void applyDivergingScale(QCPColorScale* colorScale, const DivergingColorScale& scale) {
    colorScale->setGradient(DivergingColorScale::gradient());
    colorScale->setDataRange(scale.range());
}

void useIntegerTicks(QCPAxis* axis) {
    QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    axis->setTicker(ticker);
}

void keepPixelsSquare(QCPColorMap* map) {
    const int w = map->data()->keySize(), h = map->data()->valueSize();
    const QRect area = map->keyAxis()->axisRect()->rect();
    if (w <= 0 || h <= 0 || area.width() <= 0 || area.height() <= 0) return;
    const double pixelsPerCell = std::min(area.width() / double(w), area.height() / double(h));
    const double halfWidth = area.width() / pixelsPerCell / 2.0, halfHeight = area.height() / pixelsPerCell / 2.0;
    map->keyAxis()->setRange((w - 1) / 2.0 - halfWidth, (w - 1) / 2.0 + halfWidth);
    map->valueAxis()->setRange((h - 1) / 2.0 - halfHeight, (h - 1) / 2.0 + halfHeight);
}

QString formatValue(double value) {
    if (value == 0.0) return QStringLiteral("0");
    if (std::isnan(value)) return QStringLiteral("NaN");
    return QString::number(value, 'g', 3);
}

namespace {

// QCPAxisTickerLog falls back to linear ticks (0.1, 0.2, 0.3, ...) when the range spans less than
// 1.6 decades, so a log axis from 0.02 to 0.45 (a study's lr grid 0.03, 0.1, 0.3) had no label
// below 0.1. Such ranges get 1, 2, 3 and 5 x 10^k instead, without linear sub-ticks between them.
class ShortRangeLogTicker : public QCPAxisTickerLog {
protected:
    QVector<double> createTickVector(double tickStep, const QCPRange& range) override {
        shortRange_ = linear_ = false;
        if (!(range.lower > 0) || !(range.upper > range.lower) || std::log10(range.upper / range.lower) >= 1.6)
            return QCPAxisTickerLog::createTickVector(tickStep, range);
        linear_ = true;         // until the 1-2-3-5 ticks below are found to serve
        QVector<double> ticks;  // those in the range and one beyond each end (QCustomPlot trims them)
        int inside = 0;
        for (int power = static_cast<int>(std::floor(std::log10(range.lower))) - 1;
             power <= std::ceil(std::log10(range.upper)); ++power)
            for (const double mantissa : {1.0, 2.0, 3.0, 5.0}) {
                const double tick = mantissa * std::pow(10.0, power);
                if (tick < range.lower) ticks = {tick};
                else if (tick <= range.upper) ticks.append(tick), ++inside;
                else if (ticks.isEmpty() || ticks.back() <= range.upper) ticks.append(tick);
            }
        if (inside < 2)
            return QCPAxisTickerLog::createTickVector(tickStep, range);  // under a factor of ~2: linear ticks serve
        shortRange_ = true;
        linear_ = false;
        return ticks;
    }
    // The axis' power-of-ten format (precision 0) would print linear ticks 2, 2.5, 3 as "2 2 3".
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) override {
        return linear_ ? formatValue(tick) : QCPAxisTickerLog::getTickLabel(tick, locale, formatChar, precision);
    }
    QVector<double> createSubTickVector(int subTickCount, const QVector<double>& ticks) override {
        return shortRange_ ? QVector<double>{} : QCPAxisTickerLog::createSubTickVector(subTickCount, ticks);
    }

private:
    bool shortRange_ = false;
    bool linear_ = false;  // the base class' linear fallback for a range under a factor of ~2
};

}  // namespace

void setLogarithmic(QCPAxis* axis, bool logarithmic) {
    axis->setScaleType(logarithmic ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    axis->setTicker(logarithmic ? QSharedPointer<QCPAxisTicker>(new ShortRangeLogTicker)
                                : QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
}

}  // namespace ml
