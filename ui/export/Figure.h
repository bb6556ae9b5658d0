#pragma once
// One exportable picture (a QCustomPlot or a view that paints itself into any QPainter) and the ONE way to write it as PNG, PDF or SVG. The file is rendered in memory first
// (QImage / QPdfWriter / QSvgGenerator on a QBuffer) and then written atomically, so a failed
// export never leaves a half-written file. Size and resolution: see FigureOptions.h.
#include "export/FigureOptions.h"

#include <QByteArray>
#include <QSize>
#include <QString>

#include <functional>

class QCPPainter;
class QCustomPlot;
class QPainter;

namespace ml {

enum class FigureFormat { Png, Pdf, Svg };

class Figure {
public:
    // Paints the figure at `size` into an active painter (vector or raster).
    using Painter = std::function<void(QCPPainter& painter, QSize size, bool vector)>;

    explicit Figure(Painter painter) : painter_(std::move(painter)) {}
    // A plot's figure also exports as pgfplots (.tex + .csv, export/PgfplotsFigure.h).
    static Figure ofPlot(QCustomPlot* plot);
    static Figure ofRenderer(std::function<void(QPainter&, QSize)> render);

    QByteArray render(FigureFormat format, const FigureOptions& options) const;
    // Format from the suffix (.png .pdf .svg; .tex for a plot: the pgfplots file and its CSV).
    // Throws InputError for another suffix or bad size, std::runtime_error naming the path when the
    // file cannot be written.
    void save(const QString& path, const FigureOptions& options) const;
    // The plot behind the figure (pgfplots export), or nullptr for a view that only paints.
    QCustomPlot* plot() const { return plot_; }

private:
    Painter painter_;
    QCustomPlot* plot_ = nullptr;
};

// .png / .pdf / .svg (case-insensitive); throws InputError naming the path otherwise.
FigureFormat figureFormatOf(const QString& path);
QString suffixOf(FigureFormat format);

}  // namespace ml
