#pragma once
// Any QCustomPlot of the app as a pgfplots/TikZ figure (.tex + .csv, written by core's
// io/PgfplotsDocument, the same writer as the study aggregation's band figures). This class only
// reads what the plot draws: graphs with their pens, markers, step styles and filled bands; colour
// maps with their colour scale and range; text items; log axes; text tick labels; one axis per
// axis rect, stacked. The size is given in millimetres.
#include "export/FigureOptions.h"
#include "io/PgfplotsDocument.h"

#include <QByteArray>
#include <QString>

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

private:
    // The plot read into core's writer (the axes' heights share heightMm).
    PgfplotsDocument document(const QString& csvName, double widthMm, double heightMm) const;

    const QCustomPlot& plot_;
};

}  // namespace ml
