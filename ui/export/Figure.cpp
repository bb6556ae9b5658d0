#include "export/Figure.h"

#include "InputError.h"
#include "io/Files.h"
#include "io/MemoryBudget.h"
#include "export/PgfplotsFigure.h"

#include <QBuffer>
#include <QFileInfo>
#include <QImage>
#include <QPageSize>
#include <QPdfWriter>
#include <QSignalBlocker>
#include <QSvgGenerator>
#include <qcustomplot.h>

#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace ml {

namespace {

constexpr double kScreenDpi = 96.0;

void checkOptions(const FigureOptions& options) {
    if (options.width < 16 || options.height < 16 || options.width > 20000 || options.height > 20000)
        throw InputError("figure size " + std::to_string(options.width) + "x" + std::to_string(options.height) +
                         ": expected 16..20000 pixels per side");
    if (options.dpi < 24 || options.dpi > 1200)
        throw InputError("dpi " + std::to_string(options.dpi) + ": expected 24..1200");
}

// While alive, every axis rect's x range leaves room for markers at its ends (as the pgfplots
// export does); the plot on screen gets its ranges back, unchanged, afterwards.
class RoomForMarkers {
public:
    explicit RoomForMarkers(QCustomPlot* plot) {
        std::vector<std::pair<QCPAxis*, QCPRange>> wider;
        for (QCPAxisRect* rect : plot->axisRects())
            wider.emplace_back(rect->axis(QCPAxis::atBottom), PgfplotsFigure::rangeWithRoomForMarkers(*rect));
        for (auto& [axis, range] : wider) {
            if (range == axis->range()) continue;
            saved_.emplace_back(axis, axis->range());
            setQuietly(axis, range);
        }
    }
    ~RoomForMarkers() {
        for (auto& [axis, range] : saved_) setQuietly(axis, range);
    }
    RoomForMarkers(const RoomForMarkers&) = delete;
    RoomForMarkers& operator=(const RoomForMarkers&) = delete;

private:
    static void setQuietly(QCPAxis* axis, const QCPRange& range) {
        const QSignalBlocker quiet(axis);  // views that follow the range must not take the export's for a zoom
        axis->setRange(range);
    }
    std::vector<std::pair<QCPAxis*, QCPRange>> saved_;
};

}  // namespace

Figure Figure::ofPlot(QCustomPlot* plot) {
    Figure figure([plot](QCPPainter& painter, QSize size, bool vector) {
        if (vector) {
            painter.setMode(QCPPainter::pmVectorized);
            painter.setMode(QCPPainter::pmNoCaching);
            // Cosmetic (0-width) pens would become hairlines in PDF/SVG viewers: draw them 1 px
            // (0.75 pt) wide, as they are in the PNG.
            painter.setMode(QCPPainter::pmNonCosmetic);
        }
        const RoomForMarkers room(plot);
        plot->toPainter(&painter, size.width(), size.height());
    });
    figure.plot_ = plot;
    return figure;
}

Figure Figure::ofRenderer(std::function<void(QPainter&, QSize)> render) {
    return Figure([render = std::move(render)](QCPPainter& painter, QSize size, bool) { render(painter, size); });
}

QByteArray Figure::render(FigureFormat format, const FigureOptions& options) const {
    checkOptions(options);
    const QSize size(options.width, options.height);
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    switch (format) {
    case FigureFormat::Png: {
        const double scale = options.dpi / kScreenDpi;
        const QSize pixels(std::lround(size.width() * scale), std::lround(size.height() * scale));
        // Checked before drawing: an image beyond memory ends in painter warnings and a failed encoding.
        requireWithinMemoryBudget(saturatingProduct(std::uint64_t(pixels.width()) * std::uint64_t(pixels.height()), 4),
                                  "a PNG of " + std::to_string(pixels.width()) + " x " +
                                      std::to_string(pixels.height()) + " pixels (" + std::to_string(size.width()) +
                                      " x " + std::to_string(size.height()) + " px at " + std::to_string(options.dpi) +
                                      " dpi, 4 bytes per pixel; a smaller size or dpi needs less)");
        QImage image(pixels, QImage::Format_ARGB32_Premultiplied);
        if (image.isNull())
            throw InputError("a PNG of " + std::to_string(pixels.width()) + " x " + std::to_string(pixels.height()) +
                             " pixels could not be allocated; a smaller size or dpi needs less");
        image.fill(Qt::white);
        {
            // Painted at the image's default 96 dpi and scaled: point-sized fonts convert at 96 dpi
            // once. Setting the resolution before painting scaled them twice (9 pt came out 28 pt).
            QCPPainter painter(&image);
            painter.setRenderHint(QPainter::Antialiasing);
            painter.scale(scale, scale);
            painter_(painter, size, false);
        }
        const int dotsPerMeter = static_cast<int>(std::lround(options.dpi / 0.0254));
        image.setDotsPerMeterX(dotsPerMeter);
        image.setDotsPerMeterY(dotsPerMeter);
        if (!image.save(&buffer, "PNG")) throw std::runtime_error("PNG encoding failed");
        break;
    }
    case FigureFormat::Pdf: {
        QPdfWriter writer(&buffer);
        writer.setResolution(static_cast<int>(kScreenDpi));
        writer.setPageSize(
            QPageSize(QSizeF(size) * 72.0 / kScreenDpi, QPageSize::Point, QString(), QPageSize::ExactMatch));
        writer.setPageMargins(QMarginsF(0, 0, 0, 0), QPageLayout::Point);
        writer.setCreator("Momentum Lab");
        writer.setTitle(options.title);
        QCPPainter painter(&writer);
        painter_(painter, size, true);
        break;
    }
    case FigureFormat::Svg: {
        QSvgGenerator generator;
        generator.setOutputDevice(&buffer);
        generator.setSize(size);
        generator.setViewBox(QRect(QPoint(0, 0), size));
        generator.setResolution(static_cast<int>(kScreenDpi));
        generator.setTitle(options.title);
        generator.setDescription("Momentum Lab");
        QCPPainter painter(&generator);
        painter_(painter, size, true);
        break;
    }
    }
    return bytes;
}

void Figure::save(const QString& path, const FigureOptions& options) const {
    if (QFileInfo(path).suffix().toLower() == "tex") {
        if (!plot_)
            throw InputError(path.toStdString() + ": this figure is not a plot; export it as .png, .pdf or .svg");
        checkOptions(options);
        return PgfplotsFigure(*plot_).save(path, options);
    }
    writeFileAtomically(path, render(figureFormatOf(path), options));
}

FigureFormat figureFormatOf(const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == "png") return FigureFormat::Png;
    if (suffix == "pdf") return FigureFormat::Pdf;
    if (suffix == "svg") return FigureFormat::Svg;
    throw InputError(path.toStdString() + ": unknown figure format; use .png, .pdf or .svg (or .tex for a plot)");
}

QString suffixOf(FigureFormat format) {
    switch (format) {
    case FigureFormat::Png: return "png";
    case FigureFormat::Pdf: return "pdf";
    case FigureFormat::Svg: return "svg";
    }
    return {};
}

}  // namespace ml
