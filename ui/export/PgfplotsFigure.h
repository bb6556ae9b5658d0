#pragma once
// Any QCustomPlot of the app as a pgfplots/TikZ figure (.tex + .csv, written by core's
// io/PgfplotsDocument, the same writer as the study aggregation's band figures). This class only
// reads what the plot draws: graphs with their pens, markers, step styles and filled bands; colour
// maps with their colour scale and range; text items; log axes; text tick labels; one axis per
// axis rect, stacked. The size is given in millimetres.
// As the app draws them: log axes carry the plot's own ticks (0.01, 0.02, 0.05, not 10^{-1.7});
// the legend keeps the run order and sits outside the axis (right of the top one), followed by the
// plot's notes (text elements of its layout other than the title, e.g. "solid: training (batch)
// loss   dashed: test loss   smoothing: EMA 0.60", one legend line per part); the x range leaves
// room for markers at its ends (rangeWithRoomForMarkers, which the PNG/PDF/SVG export uses too).
#include "export/FigureOptions.h"
#include "io/PgfplotsDocument.h"

#include <QByteArray>
#include <QString>

class QCPAxisRect;
class QCPRange;
class QCustomPlot;

namespace ml {

class PgfplotsFigure {
public:
    explicit PgfplotsFigure(const QCustomPlot& plot) : plot_(plot) {}

    // `csvName`: the CSV file name as the .tex refers to it (beside the .tex).
    PgfplotsFiles render(const QString& csvName, double widthMm, double heightMm, const QString& title) const;
    // Writes TEX_PATH and the CSV beside it (same stem, .csv), both atomically. The size is the
    // options' pixel size at 96 per inch in millimetres (605 x 340 px = 160 x 90 mm).
    void save(const QString& texPath, const FigureOptions& options) const;

    static double millimetres(int pixels) { return pixels * 25.4 / 96.0; }

    // The rect's bottom-axis range widened by 2 % at an end where a visible graph with markers
    // has a point, so that the marker is drawn whole instead of cut in half by the axis.
    static QCPRange rangeWithRoomForMarkers(const QCPAxisRect& rect);

private:
    // The plot read into core's writer (the axes' heights share heightMm).
    PgfplotsDocument document(const QString& csvName, double widthMm, double heightMm) const;

    const QCustomPlot& plot_;
};

}  // namespace ml
