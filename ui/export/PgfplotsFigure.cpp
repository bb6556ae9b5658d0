#include "export/PgfplotsFigure.h"

#include "io/Files.h"

#include <QFileInfo>
#include <QDir>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

namespace ml {

namespace {

// Text for pdflatex: the characters LaTeX reserves escaped, the Greek and other symbols the app's
// labels use spelled as LaTeX commands (pdflatex has no glyphs for them in text).
QByteArray latex(const QString& text) {
    static const std::map<QChar, QByteArray> symbols{
        {QChar(0x03C4), "$\\tau$"},  {QChar(0x03C1), "$\\rho$"},   {QChar(0x03BC), "$\\mu$"},    {QChar(0x03B7), "$\\eta$"},
        {QChar(0x03B1), "$\\alpha$"}, {QChar(0x03B2), "$\\beta$"}, {QChar(0x03BB), "$\\lambda$"}, {QChar(0x03B5), "$\\epsilon$"},
        {QChar(0x03C3), "$\\sigma$"}, {QChar(0x00D7), "$\\times$"}, {QChar(0x2212), "$-$"},       {QChar(0x2013), "--"},
        {QChar(0x2014), "---"},       {QChar(0x2026), "\\ldots{}"}, {QChar(0x2192), "$\\to$"},    {QChar(0x00B1), "$\\pm$"},
        {QChar(0x2264), "$\\leq$"},   {QChar(0x2265), "$\\geq$"},  {QChar(0x00B7), "$\\cdot$"},  {QChar(0x2248), "$\\approx$"}};
    QByteArray out;
    for (const QChar c : text) {
        if (const auto it = symbols.find(c); it != symbols.end()) out += it->second;
        else if (c == '\\') out += "\\textbackslash{}";
        else if (QByteArrayView("&%$#_{}").contains(c.toLatin1()) && c.unicode() < 128) out += QByteArray("\\") + c.toLatin1();
        else if (c == '~') out += "\\textasciitilde{}";
        else if (c == '^') out += "\\textasciicircum{}";
        else if (c == '\n') out += "\\\\ ";
        else out += QString(c).toUtf8();
    }
    return out;
}

QByteArray number(double value) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    return QByteArray::number(value, 'g', 9);
}

QByteArray colour(const QColor& c) {
    return "{rgb,255:red," + QByteArray::number(c.red()) + ";green," + QByteArray::number(c.green()) + ";blue," +
           QByteArray::number(c.blue()) + "}";
}

QByteArray points(double pixels) { return QByteArray::number(std::max(0.4, pixels * 0.75), 'g', 3) + "pt"; }

// The table beside the .tex: named columns of different lengths, padded with nan (which pgfplots
// skips as an unbounded coordinate).
class Columns {
public:
    // A column name unique in the table, from a series name ("momentum" -> "momentum_x").
    QByteArray stem(const QString& name, int index) {
        QByteArray slug;
        for (const QChar c : name.toLower()) slug += c.isLetterOrNumber() && c.unicode() < 128 ? c.toLatin1() : '-';
        while (slug.contains("--")) slug.replace("--", "-");
        if (slug.startsWith('-')) slug.remove(0, 1);
        if (slug.endsWith('-')) slug.chop(1);
        if (slug.isEmpty()) slug = "series" + QByteArray::number(index);
        QByteArray unique = slug;
        for (int n = 2; used_.count(unique); ++n) unique = slug + "-" + QByteArray::number(n);
        used_[unique] = true;
        return unique;
    }
    void add(const QByteArray& name, std::vector<double> values) { columns_.emplace_back(name, std::move(values)); }
    QByteArray csv() const {
        QByteArray text;
        std::size_t rows = 0;
        for (std::size_t c = 0; c < columns_.size(); ++c) {
            text += (c ? "," : "") + columns_[c].first;
            rows = std::max(rows, columns_[c].second.size());
        }
        text += "\n";
        for (std::size_t r = 0; r < rows; ++r) {
            for (std::size_t c = 0; c < columns_.size(); ++c)
                text += (c ? "," : "") + number(r < columns_[c].second.size() ? columns_[c].second[r] : NAN);
            text += "\n";
        }
        return text;
    }

private:
    std::map<QByteArray, bool> used_;
    std::vector<std::pair<QByteArray, std::vector<double>>> columns_;
};

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

PgfplotsFiles PgfplotsFigure::render(const QString& csvName, double widthMm, double heightMm, const QString& title) const {
    Columns columns;
    const QByteArray csv = csvName.toUtf8();
    const auto table = [&](const QByteArray& x, const QByteArray& y, const QByteArray& extra = {}) {
        return " table[x=" + x + ", y=" + y + extra + ", col sep=comma] {" + csv + "};\n";
    };
    // The axis rects that draw something, top to bottom, each its share of the height.
    std::vector<QCPAxisRect*> rects;
    for (QCPAxisRect* rect : plot_.axisRects())
        if (!rect->plottables().isEmpty() || !rect->items().isEmpty()) rects.push_back(rect);
    double totalHeight = 0;
    for (const QCPAxisRect* rect : rects) totalHeight += std::max(1, rect->outerRect().height());

    QByteArray body;
    int series = 0;
    for (std::size_t r = 0; r < rects.size(); ++r) {
        QCPAxisRect* rect = rects[r];
        const double height = heightMm * std::max(1, rect->outerRect().height()) / totalHeight;
        QByteArray options = "width=" + QByteArray::number(widthMm, 'f', 1) + "mm, height=" + QByteArray::number(height, 'f', 1) +
                             "mm, name=rect" + QByteArray::number(r) + ", ";
        if (r > 0) options += "at={(rect" + QByteArray::number(r - 1) + ".below south west)}, anchor=above north west, ";
        options += axisOptions(rect->axis(QCPAxis::atBottom), "x") + axisOptions(rect->axis(QCPAxis::atLeft), "y");
        options += "unbounded coords=jump, filter discard warning=false, legend cell align=left, "
                   "legend style={font=\\footnotesize, fill=white, fill opacity=0.75, text opacity=1}";
        QByteArray plots;
        std::map<const QCPGraph*, QByteArray> paths;  // the edges of filled bands, by their column stem
        std::set<const QCPGraph*> edges;
        for (const QCPGraph* graph : rect->graphs())
            if (graph->channelFillGraph() && graph->brush().style() != Qt::NoBrush) edges.insert({graph, graph->channelFillGraph()});
        for (QCPAbstractPlottable* plottable : rect->plottables()) {
            if (!plottable->visible()) continue;
            if (auto* graph = qobject_cast<QCPGraph*>(plottable)) {
                const QByteArray stem = columns.stem(graph->name(), series++);
                std::vector<double> xs, ys;
                for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it) {
                    xs.push_back(it->key);
                    ys.push_back(it->value);
                }
                columns.add(stem + "_x", std::move(xs));
                columns.add(stem + "_y", std::move(ys));
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
                plots += "\\addplot[" + style + "]" + table(stem + "_x", stem + "_y");
                if (inLegend) plots += "\\addlegendentry{" + latex(graph->name()) + "}\n";
            } else if (auto* map = qobject_cast<QCPColorMap*>(plottable)) {
                QCPColorMapData* data = map->data();
                const QByteArray stem = columns.stem(map->name().isEmpty() ? "map" : map->name(), series++);
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
                columns.add(stem + "_x", std::move(xs));
                columns.add(stem + "_y", std::move(ys));
                columns.add(stem + "_value", std::move(values));
                const QCPRange range = map->dataRange();
                const auto meta = [log](double v) { return number(log ? std::log10(v) : v); };
                options += ", " + colormap(map->gradient()) + ", colorbar, point meta min=" + meta(range.lower) +
                           ", point meta max=" + meta(range.upper);
                if (map->colorScale() && !map->colorScale()->label().isEmpty())
                    options += ", colorbar style={ylabel={" + QByteArray(log ? "$\\log_{10}$ " : "") + latex(map->colorScale()->label()) + "}}";
                plots += "\\addplot[matrix plot*, mesh/cols=" + QByteArray::number(data->keySize()) + ", mesh/rows=" +
                         QByteArray::number(data->valueSize()) + ", point meta=explicit, skip coords between index={" +
                         QByteArray::number(cells) + "}{" + QByteArray::number(1 << 30) + "}, forget plot]" +
                         table(stem + "_x", stem + "_y", ", meta expr=" + (log ? "log10(\\thisrow{" + stem + "_value})" : "\\thisrow{" + stem + "_value}"));
            }
        }
        // Filled bands after both edges are named (a fill down to the axis is not drawn: no plot of the app has one).
        for (const auto& [graph, stem] : paths) {
            const QColor fill = graph->brush().color();
            const QCPGraph* channel = graph->channelFillGraph();
            if (!channel || graph->brush().style() == Qt::NoBrush || !paths.count(channel)) continue;
            const QByteArray other = paths.at(channel);
            plots += "\\addplot[fill=" + colour(fill) + ", fill opacity=" + QByteArray::number(fill.alphaF(), 'g', 3) +
                     ", draw=none, forget plot] fill between[of=" + stem + " and " + other + "];\n";
        }
        for (QCPAbstractItem* item : rect->items()) {
            auto* text = qobject_cast<QCPItemText*>(item);
            if (!text || !text->visible()) continue;
            const QPointF p = text->position->coords();
            const QByteArray at = text->position->type() == QCPItemPosition::ptAxisRectRatio
                                      ? "(rel axis cs:" + number(p.x()) + "," + number(1.0 - p.y()) + ")"
                                      : "(axis cs:" + number(p.x()) + "," + number(p.y()) + ")";
            plots += "\\node[align=center, text=" + colour(text->color()) + "] at " + at + " {" + latex(text->text()) + "};\n";
        }
        body += "\\begin{axis}[" + options + "]\n" + plots + "\\end{axis}\n";
    }

    QByteArray tex;
    tex += "% " + latex(title).replace('\n', ' ') + "\n";
    tex += "% pgfplots figure written by Momentum Lab, " + QByteArray::number(widthMm, 'f', 1) + " mm x " +
           QByteArray::number(heightMm, 'f', 1) + " mm; it reads its points from " + csv + " (beside this file).\n";
    tex += "% Compile it alone (pdflatex), or paste the tikzpicture into a document that loads pgfplots\n";
    tex += "% with \\usepgfplotslibrary{fillbetween}.\n";
    tex += "\\documentclass{standalone}\n\\usepackage[utf8]{inputenc}\n\\usepackage{pgfplots}\n\\pgfplotsset{compat=1.16}\n"
           "\\usepgfplotslibrary{fillbetween}\n\\begin{document}\n\\begin{tikzpicture}\n";
    tex += body;
    tex += "\\end{tikzpicture}\n\\end{document}\n";
    return {tex, columns.csv()};
}

void PgfplotsFigure::save(const QString& texPath, const FigureOptions& options) const {
    const QFileInfo info(texPath);
    const QString csvName = info.completeBaseName() + ".csv";
    const PgfplotsFiles files = render(csvName, millimetres(options.width), millimetres(options.height), options.title);
    writeFileAtomically(info.dir().filePath(csvName), files.csv);
    writeFileAtomically(texPath, files.tex);
}

}  // namespace ml
