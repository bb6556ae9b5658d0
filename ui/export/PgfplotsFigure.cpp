#include "export/PgfplotsFigure.h"

#include <QFileInfo>
#include <QRegularExpression>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <vector>

namespace ml {

namespace {

QByteArray number(double value) { return PgfplotsDocument::number(value); }
QByteArray latex(const QString& text) { return PgfplotsDocument::latex(text); }

QByteArray colour(const QColor& c) {
    return "{rgb,255:red," + QByteArray::number(c.red()) + ";green," + QByteArray::number(c.green()) + ";blue," +
           QByteArray::number(c.blue()) + "}";
}

QByteArray points(double pixels) { return QByteArray::number(std::max(0.4, pixels * 0.75), 'g', 3) + "pt"; }

// A tick label of QCustomPlot as LaTeX: "1e-05" -> $10^{-5}$, "2e-05" -> $2\cdot 10^{-5}$.
QByteArray tickLabel(const QString& label) {
    static const QRegularExpression power(QStringLiteral("^([-+]?[0-9.]+)[eE]([-+]?)0*([0-9]+)$"));
    const QRegularExpressionMatch match = power.match(label.trimmed());
    if (!match.hasMatch()) return latex(label);
    const QString mantissa = match.captured(1);
    const QByteArray exponent = (match.captured(2) == "-" ? "-" : "") + match.captured(3).toLatin1();
    return "$" + (mantissa == "1" ? QByteArray() : mantissa.toLatin1() + "\\cdot ") + "10^{" + exponent + "}$";
}

// A log axis: the ticks and labels QCustomPlot draws (pgfplots' own would put ticks at
// fractional powers, 10^{-0.5}, on a range under a decade or two).
QByteArray logTicks(const QCPAxis* axis, const QByteArray& l) {
    QVector<double> ticks;
    QVector<QString> labels;
    const QString format = axis->numberFormat();
    axis->ticker()->generate(axis->range(), axis->parentPlot()->locale(), format.isEmpty() ? QChar('g') : format.at(0),
                             axis->numberPrecision(), ticks, nullptr, &labels);
    QByteArray values, texts;
    for (int i = 0; i < ticks.size() && i < labels.size(); ++i) {
        if (!axis->range().contains(ticks[i])) continue;
        values += (values.isEmpty() ? "" : ",") + number(ticks[i]);
        texts += (texts.isEmpty() ? "" : ",") + QByteArray("{") + tickLabel(labels[i]) + "}";
    }
    if (values.isEmpty()) return {};
    return l + "tick={" + values + "}, " + l + "ticklabels={" + texts + "}, ";
}

QByteArray axisOptions(const QCPAxis* axis, const char* letter, const QCPRange& range) {
    const QByteArray l(letter);
    QByteArray o;
    if (!axis->label().isEmpty()) o += l + "label={" + latex(axis->label()) + "}, ";
    const bool log = axis->scaleType() == QCPAxis::stLogarithmic;
    if (log) o += l + "mode=log, ";
    o += l + "min=" + number(range.lower) + ", " + l + "max=" + number(range.upper) + ", ";
    if (log && !axis->ticker().dynamicCast<QCPAxisTickerText>()) o += logTicks(axis, l);
    if (const auto text = axis->ticker().dynamicCast<QCPAxisTickerText>()) {
        QByteArray ticks, labels;
        for (auto it = text->ticks().constBegin(); it != text->ticks().constEnd(); ++it) {
            ticks += (ticks.isEmpty() ? "" : ",") + number(it.key());
            labels += (labels.isEmpty() ? "" : ",") + QByteArray("{") + latex(it.value()) + "}";
        }
        o += l + "tick={" + ticks + "}, " + l + "ticklabels={" + labels + "}, ";
        if (axis->tickLabelRotation() != 0)
            o += l + "ticklabel style={rotate=" + QByteArray::number(-axis->tickLabelRotation()) + "}, ";
    }
    return o;
}

QByteArray lineStyle(const QPen& pen) {
    if (pen.style() == Qt::NoPen || pen.color().alpha() == 0) return "draw=none";
    QByteArray s = "draw=" + colour(pen.color()) + ", line width=" + points(pen.widthF() > 0 ? pen.widthF() : 1.0);
    if (pen.style() == Qt::DashLine) s += ", dashed";
    if (pen.style() == Qt::DotLine) s += ", dotted";
    if (pen.color().alpha() < 255) s += ", draw opacity=" + QByteArray::number(pen.color().alphaF(), 'g', 3);
    return s;
}

// pdflatex's main memory holds about this many matrix cells in one figure (a 4 x 200 x 200 map
// exceeds it); a larger colour map is written as the means of square blocks of its cells. The
// PNG, PDF and SVG keep every cell.
constexpr int kTexCellBudget = 12000;

struct TexCells {
    int columns = 0, rows = 0;
    std::vector<double> xs, ys, values;  // row by row (pgfplots' mesh/ordering=x varies)
};

// `data` not const: QCPColorMapData::cell is not.
TexCells texCells(QCPColorMapData& data, int budget) {
    const int keys = data.keySize(), values = data.valueSize();
    int side = 1;  // the block's side in cells
    while (double(keys) * values / (double(side) * side) > std::max(budget, 1)) ++side;
    TexCells cells;
    cells.columns = (keys + side - 1) / side;
    cells.rows = (values + side - 1) / side;
    for (int row = 0; row < values; row += side)
        for (int column = 0; column < keys; column += side) {
            const int lastColumn = std::min(column + side, keys) - 1, lastRow = std::min(row + side, values) - 1;
            double sum = 0;
            int finite = 0;
            for (int r = row; r <= lastRow; ++r)
                for (int c = column; c <= lastColumn; ++c)
                    if (const double v = data.cell(c, r); std::isfinite(v)) {
                        sum += v;
                        ++finite;
                    }
            double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
            data.cellToCoord(column, row, &x0, &y0);
            data.cellToCoord(lastColumn, lastRow, &x1, &y1);
            cells.xs.push_back((x0 + x1) / 2);
            cells.ys.push_back((y0 + y1) / 2);
            cells.values.push_back(finite > 0  ? sum / finite
                                   : side == 1 ? data.cell(column, row)
                                               : std::numeric_limits<double>::quiet_NaN());
        }
    return cells;
}

// The colour map's gradient sampled into a pgfplots colormap.
QByteArray colormap(QCPColorGradient gradient) {  // a copy: QCPColorGradient::colorize is not const
    QByteArray map = "colormap={app}{";
    for (int i = 0; i <= 16; ++i) {
        QVector<double> value{i / 16.0};
        QRgb rgb = 0;
        gradient.colorize(value.constData(), QCPRange(0, 1), &rgb, 1);
        map += "rgb255=(" + QByteArray::number(qRed(rgb)) + "," + QByteArray::number(qGreen(rgb)) + "," +
               QByteArray::number(qBlue(rgb)) + ") ";
    }
    return map + "}";
}

// The graph's place in the plot's legend, or -1 when the legend does not show it.
int legendIndexOf(const QCustomPlot& plot, const QCPGraph* graph) {
    if (!plot.legend || !plot.legend->visible()) return -1;
    for (int i = 0; i < plot.legend->itemCount(); ++i) {
        auto* item = qobject_cast<QCPPlottableLegendItem*>(plot.legend->item(i));
        if (item && item->plottable() == graph) return i;
    }
    return -1;
}

// The text elements of the plot's layout other than its (bold) title, e.g. the convergence plot's
// "solid: training (batch) loss   dashed: test loss   smoothing: none", split at its wide gaps.
QStringList notesOf(const QCustomPlot& plot) {
    QStringList notes;
    for (QCPLayoutElement* element : plot.plotLayout()->elements(true)) {
        const auto* text = qobject_cast<const QCPTextElement*>(element);
        if (!text || !text->visible() || text->text().trimmed().isEmpty() || text->font().bold()) continue;
        for (const QString& part :
             text->text().split(QRegularExpression(QStringLiteral("\\s{3,}|\\n")), Qt::SkipEmptyParts))
            notes << part.trimmed();
    }
    return notes;
}

}  // namespace

QCPRange PgfplotsFigure::rangeWithRoomForMarkers(const QCPAxisRect& rect) {
    const QCPAxis* axis = rect.axis(QCPAxis::atBottom);
    QCPRange range = axis->range();
    bool atLower = false, atUpper = false;
    // Stacked rects sharing the x range (loss over accuracy) get the same room, so they stay aligned.
    for (const QCPAxisRect* other : rect.parentPlot()->axisRects()) {
        if (other->axis(QCPAxis::atBottom)->range() != range) continue;
        for (const QCPGraph* graph : other->graphs()) {
            if (!graph->visible() || graph->scatterStyle().isNone() || graph->data()->isEmpty()) continue;
            atLower = atLower || graph->data()->constBegin()->key <= range.lower;
            atUpper = atUpper || (graph->data()->constEnd() - 1)->key >= range.upper;
        }
    }
    constexpr double kRoom = 0.02;
    if (axis->scaleType() == QCPAxis::stLogarithmic && range.lower > 0) {
        const double factor = std::pow(range.upper / range.lower, kRoom);
        return QCPRange(atLower ? range.lower / factor : range.lower, atUpper ? range.upper * factor : range.upper);
    }
    const double room = kRoom * range.size();
    return QCPRange(atLower ? range.lower - room : range.lower, atUpper ? range.upper + room : range.upper);
}

PgfplotsDocument PgfplotsFigure::document(const QString& csvName, double widthMm, double heightMm) const {
    PgfplotsDocument doc(csvName);
    // The axis rects that draw something, top to bottom, each its share of the height.
    std::vector<QCPAxisRect*> rects;
    for (QCPAxisRect* rect : plot_.axisRects())
        if (!rect->plottables().isEmpty() || !rect->items().isEmpty()) rects.push_back(rect);
    double totalHeight = 0;
    for (const QCPAxisRect* rect : rects) totalHeight += std::max(1, rect->outerRect().height());
    bool notesShown = false;
    int colourMaps = 0;  // they share TeX's memory
    for (QCPAxisRect* rect : rects)
        for (QCPAbstractPlottable* plottable : rect->plottables())
            colourMaps += plottable->visible() && qobject_cast<QCPColorMap*>(plottable) ? 1 : 0;

    for (std::size_t r = 0; r < rects.size(); ++r) {
        QCPAxisRect* rect = rects[r];
        const double height = heightMm * std::max(1, rect->outerRect().height()) / totalHeight;
        QByteArray options = "width=" + PgfplotsDocument::millimetres(widthMm) +
                             ", height=" + PgfplotsDocument::millimetres(height) + ", name=rect" +
                             QByteArray::number(r) + ", ";
        if (r > 0)
            options += "at={(rect" + QByteArray::number(r - 1) + ".below south west)}, anchor=above north west, ";
        options += axisOptions(rect->axis(QCPAxis::atBottom), "x", rangeWithRoomForMarkers(*rect)) +
                   axisOptions(rect->axis(QCPAxis::atLeft), "y", rect->axis(QCPAxis::atLeft)->range());
        // The legend outside the axis, so that it hides no data.
        options +=
            "unbounded coords=jump, filter discard warning=false, legend cell align=left, legend pos=outer north east, "
            "legend style={font=\\footnotesize, draw=none}";
        // A colour map adds its colour bar to the axis options, so the plots are collected first.
        struct Plot {
            QByteArray style, x, y, table;
            QString legend;
            int legendIndex = -1;
        };
        std::vector<Plot> plots;
        std::map<const QCPGraph*, QByteArray> paths;  // the edges of filled bands, by their column stem
        std::set<const QCPGraph*> edges;
        for (const QCPGraph* graph : rect->graphs())
            if (graph->channelFillGraph() && graph->brush().style() != Qt::NoBrush)
                edges.insert({graph, graph->channelFillGraph()});
        for (QCPAbstractPlottable* plottable : rect->plottables()) {
            if (!plottable->visible()) continue;
            if (auto* graph = qobject_cast<QCPGraph*>(plottable)) {
                const QByteArray stem = doc.stem(graph->name());
                std::vector<double> xs, ys;
                for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it) {
                    xs.push_back(it->key);
                    ys.push_back(it->value);
                }
                doc.addColumn(stem + "_x", std::move(xs));
                doc.addColumn(stem + "_y", std::move(ys));
                QByteArray style = lineStyle(graph->pen());
                if (graph->lineStyle() == QCPGraph::lsStepLeft) style += ", const plot mark left";
                else if (graph->lineStyle() == QCPGraph::lsStepRight) style += ", const plot mark right";
                else if (graph->lineStyle() == QCPGraph::lsNone) style += ", only marks";
                if (graph->scatterStyle().isNone()) style += ", mark=none";
                else {
                    const QColor markColour = graph->scatterStyle().pen().style() == Qt::NoPen ||
                                                      graph->scatterStyle().pen().color() == Qt::black
                                                  ? graph->pen().color()
                                                  : graph->scatterStyle().pen().color();
                    style += ", mark=*, mark size=" + points(graph->scatterStyle().size() / 2) +
                             ", mark options={draw=" + colour(markColour) + ", fill=" + colour(markColour) + ", solid}";
                }
                const int legendIndex = legendIndexOf(plot_, graph);
                const bool inLegend = legendIndex >= 0 && !graph->name().isEmpty();
                if (!inLegend) style += ", forget plot";
                if (edges.count(graph)) {
                    paths[graph] = stem;
                    style += ", name path=" + stem;
                }
                plots.push_back({style,
                                 stem + "_x",
                                 stem + "_y",
                                 {},
                                 inLegend ? graph->name() : QString(),
                                 inLegend ? legendIndex : -1});
            } else if (auto* bars = qobject_cast<QCPBars*>(plottable)) {
                // Each bar where the app draws it: a group's bars sit side by side around their key.
                const QByteArray stem = doc.stem(bars->name().isEmpty() ? "bars" : bars->name());
                QCPAxis* keys = bars->keyAxis();
                std::vector<double> xs, ys;
                for (int i = 0; i < bars->dataCount(); ++i) {  // dataPixelPosition includes the group's offset
                    xs.push_back(keys->pixelToCoord(bars->dataPixelPosition(i).x()));
                    ys.push_back(bars->dataMainValue(i));
                }
                doc.addColumn(stem + "_x", std::move(xs));
                doc.addColumn(stem + "_y", std::move(ys));
                // A hatched bar (the app's update bars) as a lighter fill: patterns need another TikZ library.
                QColor fill = bars->brush().color();
                if (bars->brush().style() != Qt::SolidPattern) fill = fill.lighter(160);
                const QByteArray style = "ybar, bar shift=0pt, bar width=" + number(bars->width()) +
                                         ", draw=" + colour(bars->pen().color()) + ", fill=" + colour(fill) +
                                         ", forget plot";
                plots.push_back({style, stem + "_x", stem + "_y", {}, QString(), -1});
            } else if (auto* map = qobject_cast<QCPColorMap*>(plottable)) {
                QCPColorMapData* data = map->data();
                const QByteArray stem = doc.stem(map->name().isEmpty() ? "map" : map->name());
                const bool log = map->dataScaleType() == QCPAxis::stLogarithmic;
                const TexCells written = texCells(*data, kTexCellBudget / std::max(1, colourMaps));
                std::vector<double> xs = written.xs, ys = written.ys, values = written.values;
                const std::size_t cells = values.size();
                doc.addColumn(stem + "_x", std::move(xs));
                doc.addColumn(stem + "_y", std::move(ys));
                doc.addColumn(stem + "_value", std::move(values));
                const QCPRange range = map->dataRange();
                const auto meta = [log](double v) { return number(log ? std::log10(v) : v); };
                options += ", " + colormap(map->gradient()) + ", colorbar, point meta min=" + meta(range.lower) +
                           ", point meta max=" + meta(range.upper);
                if (map->colorScale() && !map->colorScale()->label().isEmpty())
                    options += ", colorbar style={ylabel={" + QByteArray(log ? "$\\log_{10}$ " : "") +
                               latex(map->colorScale()->label()) + "}}";
                plots.push_back(
                    {"matrix plot*, mesh/cols=" + QByteArray::number(written.columns) + ", mesh/rows=" +
                         QByteArray::number(written.rows) + ", point meta=explicit, skip coords between index={" +
                         QByteArray::number(cells) + "}{" + QByteArray::number(1 << 30) + "}, forget plot",
                     stem + "_x",
                     stem + "_y",
                     ", meta expr=" + (log ? "log10(\\thisrow{" + stem + "_value})" : "\\thisrow{" + stem + "_value}"),
                     {}});
            }
        }
        // pgfplots lists legend entries in drawing order; the app draws run 1 last (on top) but
        // lists it first, so a legend drawn in reverse is turned round.
        std::vector<int> order;
        for (const Plot& p : plots)
            if (p.legendIndex >= 0) order.push_back(p.legendIndex);
        const bool reversed = order.size() > 1 && std::is_sorted(order.rbegin(), order.rend());
        if (reversed) options += ", reverse legend";
        // The plot's notes follow the runs in the legend (the first axis with a legend only).
        QStringList notes;
        if (!order.empty() && !notesShown) {
            notes = notesOf(plot_);
            notesShown = true;
        }
        const auto addNotes = [&](bool backwards) {
            const auto first =
                std::find_if(plots.begin(), plots.end(), [](const Plot& p) { return p.legendIndex >= 0; });
            for (qsizetype i = 0; i < notes.size(); ++i) {
                doc.addPlot("draw=none, mark=none, empty legend", first->x, first->y);
                doc.addLegendEntry(notes[backwards ? notes.size() - 1 - i : i]);
            }
        };
        doc.beginAxis(options);
        if (reversed) addNotes(true);
        for (const Plot& p : plots) {
            doc.addPlot(p.style, p.x, p.y, p.table);
            if (!p.legend.isEmpty()) doc.addLegendEntry(p.legend);
        }
        if (!reversed) addNotes(false);
        // Filled bands after both edges are named (a fill down to the axis is not drawn: no plot of the app has one).
        for (const auto& [graph, stem] : paths) {
            const QColor fill = graph->brush().color();
            const QCPGraph* channel = graph->channelFillGraph();
            if (!channel || graph->brush().style() == Qt::NoBrush || !paths.count(channel)) continue;
            doc.addFillBetween(
                "fill=" + colour(fill) + ", fill opacity=" + QByteArray::number(fill.alphaF(), 'g', 3) + ", draw=none",
                stem, paths.at(channel));
        }
        for (QCPAbstractItem* item : rect->items()) {
            auto* text = qobject_cast<QCPItemText*>(item);
            if (!text || !text->visible()) continue;
            const QPointF p = text->position->coords();
            const QByteArray at = text->position->type() == QCPItemPosition::ptAxisRectRatio
                                      ? "(rel axis cs:" + number(p.x()) + "," + number(1.0 - p.y()) + ")"
                                      : "(axis cs:" + number(p.x()) + "," + number(p.y()) + ")";
            doc.addNode("align=center, text=" + colour(text->color()), at, text->text());
        }
        doc.endAxis();
    }
    return doc;
}

PgfplotsFiles PgfplotsFigure::render(const QString& csvName, double widthMm, double heightMm,
                                     const QString& title) const {
    return document(csvName, widthMm, heightMm).render(title, widthMm, heightMm);
}

void PgfplotsFigure::save(const QString& texPath, const FigureOptions& options) const {
    const QFileInfo info(texPath);
    const double width = millimetres(options.width), height = millimetres(options.height);
    document(info.completeBaseName() + ".csv", width, height).save(texPath, options.title, width, height);
}

}  // namespace ml
