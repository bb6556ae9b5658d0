#include "export/PgfplotsFigure.h"

#include <QFileInfo>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
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

QByteArray axisOptions(const QCPAxis* axis, const char* letter) {
    const QByteArray l(letter);
    QByteArray o;
    if (!axis->label().isEmpty()) o += l + "label={" + latex(axis->label()) + "}, ";
    if (axis->scaleType() == QCPAxis::stLogarithmic) o += l + "mode=log, ";
    o += l + "min=" + number(axis->range().lower) + ", " + l + "max=" + number(axis->range().upper) + ", ";
    if (const auto text = axis->ticker().dynamicCast<QCPAxisTickerText>()) {
        QByteArray ticks, labels;
        for (auto it = text->ticks().constBegin(); it != text->ticks().constEnd(); ++it) {
            ticks += (ticks.isEmpty() ? "" : ",") + number(it.key());
            labels += (labels.isEmpty() ? "" : ",") + QByteArray("{") + latex(it.value()) + "}";
        }
        o += l + "tick={" + ticks + "}, " + l + "ticklabels={" + labels + "}, ";
        if (axis->tickLabelRotation() != 0) o += l + "ticklabel style={rotate=" + QByteArray::number(-axis->tickLabelRotation()) + "}, ";
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

}  // namespace

PgfplotsDocument PgfplotsFigure::document(const QString& csvName, double widthMm, double heightMm) const {
    PgfplotsDocument doc(csvName);
    // The axis rects that draw something, top to bottom, each its share of the height.
    std::vector<QCPAxisRect*> rects;
    for (QCPAxisRect* rect : plot_.axisRects())
        if (!rect->plottables().isEmpty() || !rect->items().isEmpty()) rects.push_back(rect);
    double totalHeight = 0;
    for (const QCPAxisRect* rect : rects) totalHeight += std::max(1, rect->outerRect().height());

    for (std::size_t r = 0; r < rects.size(); ++r) {
        QCPAxisRect* rect = rects[r];
        const double height = heightMm * std::max(1, rect->outerRect().height()) / totalHeight;
        QByteArray options = "width=" + PgfplotsDocument::millimetres(widthMm) + ", height=" + PgfplotsDocument::millimetres(height) +
                             ", name=rect" + QByteArray::number(r) + ", ";
        if (r > 0) options += "at={(rect" + QByteArray::number(r - 1) + ".below south west)}, anchor=above north west, ";
        options += axisOptions(rect->axis(QCPAxis::atBottom), "x") + axisOptions(rect->axis(QCPAxis::atLeft), "y");
        options += "unbounded coords=jump, filter discard warning=false, legend cell align=left, "
                   "legend style={font=\\footnotesize, fill=white, fill opacity=0.75, text opacity=1}";
        // A colour map adds its colour bar to the axis options, so the plots are collected first.
        struct Plot { QByteArray style, x, y, table; QString legend; };
        std::vector<Plot> plots;
        std::map<const QCPGraph*, QByteArray> paths;  // the edges of filled bands, by their column stem
        std::set<const QCPGraph*> edges;
        for (const QCPGraph* graph : rect->graphs())
            if (graph->channelFillGraph() && graph->brush().style() != Qt::NoBrush) edges.insert({graph, graph->channelFillGraph()});
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
                    const QColor markColour = graph->scatterStyle().pen().style() == Qt::NoPen || graph->scatterStyle().pen().color() == Qt::black
                                                  ? graph->pen().color() : graph->scatterStyle().pen().color();
                    style += ", mark=*, mark size=" + points(graph->scatterStyle().size() / 2) + ", mark options={draw=" + colour(markColour) +
                             ", fill=" + colour(markColour) + ", solid}";
                }
                const bool inLegend = plot_.legend->visible() && !graph->name().isEmpty() && plot_.legend->hasItemWithPlottable(graph);
                if (!inLegend) style += ", forget plot";
                if (edges.count(graph)) {
                    paths[graph] = stem;
                    style += ", name path=" + stem;
                }
                plots.push_back({style, stem + "_x", stem + "_y", {}, inLegend ? graph->name() : QString()});
            } else if (auto* map = qobject_cast<QCPColorMap*>(plottable)) {
                QCPColorMapData* data = map->data();
                const QByteArray stem = doc.stem(map->name().isEmpty() ? "map" : map->name());
                const bool log = map->dataScaleType() == QCPAxis::stLogarithmic;
                std::vector<double> xs, ys, values;
                for (int row = 0; row < data->valueSize(); ++row)  // pgfplots' mesh/ordering=x varies
                    for (int column = 0; column < data->keySize(); ++column) {
                        double x = 0, y = 0;
                        data->cellToCoord(column, row, &x, &y);
                        xs.push_back(x);
                        ys.push_back(y);
                        values.push_back(data->cell(column, row));
                    }
                const std::size_t cells = values.size();
                doc.addColumn(stem + "_x", std::move(xs));
                doc.addColumn(stem + "_y", std::move(ys));
                doc.addColumn(stem + "_value", std::move(values));
                const QCPRange range = map->dataRange();
                const auto meta = [log](double v) { return number(log ? std::log10(v) : v); };
                options += ", " + colormap(map->gradient()) + ", colorbar, point meta min=" + meta(range.lower) +
                           ", point meta max=" + meta(range.upper);
                if (map->colorScale() && !map->colorScale()->label().isEmpty())
                    options += ", colorbar style={ylabel={" + QByteArray(log ? "$\\log_{10}$ " : "") + latex(map->colorScale()->label()) + "}}";
                plots.push_back({"matrix plot*, mesh/cols=" + QByteArray::number(data->keySize()) + ", mesh/rows=" +
                                     QByteArray::number(data->valueSize()) + ", point meta=explicit, skip coords between index={" +
                                     QByteArray::number(cells) + "}{" + QByteArray::number(1 << 30) + "}, forget plot",
                                 stem + "_x", stem + "_y",
                                 ", meta expr=" + (log ? "log10(\\thisrow{" + stem + "_value})" : "\\thisrow{" + stem + "_value}"),
                                 {}});
            }
        }
        doc.beginAxis(options);
        for (const Plot& p : plots) {
            doc.addPlot(p.style, p.x, p.y, p.table);
            if (!p.legend.isEmpty()) doc.addLegendEntry(p.legend);
        }
        // Filled bands after both edges are named (a fill down to the axis is not drawn: no plot of the app has one).
        for (const auto& [graph, stem] : paths) {
            const QColor fill = graph->brush().color();
            const QCPGraph* channel = graph->channelFillGraph();
            if (!channel || graph->brush().style() == Qt::NoBrush || !paths.count(channel)) continue;
            doc.addFillBetween("fill=" + colour(fill) + ", fill opacity=" + QByteArray::number(fill.alphaF(), 'g', 3) + ", draw=none",
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

PgfplotsFiles PgfplotsFigure::render(const QString& csvName, double widthMm, double heightMm, const QString& title) const {
    return document(csvName, widthMm, heightMm).render(title, widthMm, heightMm);
}

void PgfplotsFigure::save(const QString& texPath, const FigureOptions& options) const {
    const QFileInfo info(texPath);
    const double width = millimetres(options.width), height = millimetres(options.height);
    document(info.completeBaseName() + ".csv", width, height).save(texPath, options.title, width, height);
}

}  // namespace ml
