#pragma once
// Any QCustomPlot of the app as a pgfplots/TikZ figure (tensorboard #32): NAME.tex, a standalone
// LaTeX document whose tikzpicture can also be pasted or \input into a paper, and NAME.csv beside
// it with every plotted point, which the .tex reads by name, so the numbers stay in one place. The
// size is given in millimetres. One exporter for every plot: it reads what the plot draws
// (graphs with their pens, markers, step styles and filled bands; colour maps with their colour
// scale and range; text items; log axes; text tick labels; one axis per axis rect, stacked).
#include "export/FigureOptions.h"

#include <QByteArray>
#include <QString>

class QCustomPlot;

namespace ml {

struct PgfplotsFiles {
    QByteArray tex;
    QByteArray csv;
};

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
    const QCustomPlot& plot_;
};

}  // namespace ml
