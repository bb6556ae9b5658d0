#include "export/ReportWriter.h"

#include "export/PgfplotsFigure.h"
#include "model/RunComparison.h"
#include "io/Files.h"
#include "experiment/ExperimentJson.h"

#include <QDateTime>
#include <QDir>
#include <QJsonDocument>

#include <stdexcept>

namespace ml {

namespace {

QString escaped(const QString& text) { return text.toHtmlEscaped(); }

}  // namespace

QStringList writeFigureFiles(const QString& directory, const NamedFigure& figure, FigureOptions options) {
    const QDir dir(directory);
    QStringList written;
    const auto save = [&](const QString& name, const QByteArray& bytes) {
        writeFileAtomically(dir.filePath(name), bytes);
        written << name;
    };
    options.title = figure.caption;
    for (FigureFormat format : {FigureFormat::Png, FigureFormat::Pdf, FigureFormat::Svg})
        save(figure.name + "." + suffixOf(format), figure.figure.render(format, options));
    if (figure.figure.plot()) {  // a plot also as pgfplots, with the CSV it reads
        const PgfplotsFiles tex = PgfplotsFigure(*figure.figure.plot())
                                      .render(figure.name + ".csv", PgfplotsFigure::millimetres(options.width),
                                              PgfplotsFigure::millimetres(options.height), figure.caption);
        save(figure.name + ".csv", tex.csv);
        save(figure.name + ".tex", tex.tex);
    }
    return written;
}

ReportWriter::ReportWriter(const RunComparison& runs, std::vector<NamedFigure> figures, FigureOptions options)
    : runs_(runs), figures_(std::move(figures)), options_(std::move(options)) {}

QStringList ReportWriter::write(const QString& directory) const {
    const QDir dir(directory);
    if (!QDir().mkpath(dir.filePath("runs")))
        throw std::runtime_error(directory.toStdString() + ": cannot create the folder");
    QStringList written;
    auto save = [&](const QString& name, const QByteArray& bytes) {
        writeFileAtomically(dir.filePath(name), bytes);
        written << name;
    };
    for (const NamedFigure& named : figures_)
        if (named.shown()) written << writeFigureFiles(directory, named, options_);
    const MetricsHistory& history = runs_.history();
    for (int run = 0; run < history.runCount(); ++run)
        save("runs/" + runs_.metricsCsvFileName(run), runs_.metricsCsv(run));
    save("summary.csv", runs_.summaryCsv());
    save("experiment.json", QJsonDocument(toJson(runs_.experiment())).toJson(QJsonDocument::Indented));
    save("index.html", indexHtml());
    return written;
}

QByteArray ReportWriter::indexHtml() const {
    const Experiment& experiment = runs_.experiment();
    const RunSummaryModel& summary = runs_.summary();
    QString html;
    html += "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" +
            escaped(QString::fromStdString(experiment.name)) +
            "</title>\n"
            "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}"
            "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}"
            "th{background:#f0f0f0}img{max-width:100%;border:1px solid #ddd}</style></head><body>\n";
    html += "<h1>" + escaped(QString::fromStdString(experiment.name)) + "</h1>\n";
    QString model = "Network " + escaped(QString::fromStdString(experiment.network.text())) + " (" +
                    escaped(QString::fromStdString(toString(experiment.network.activation))) + ", ";
    if (experiment.recorded.asBlocks) {  // a recorded model's layers, not a network of the core
        QStringList layers;
        for (const RecordedLayer& layer : experiment.recorded.layers) layers << QString::fromStdString(layer.text());
        model = "Recorded layers " + escaped(layers.join(", ")) + " (";
    }
    html += "<p>Momentum Lab report, " + QDateTime::currentDateTime().toString(Qt::ISODate) + ". " + model +
            escaped(QString::fromStdString(toString(experiment.network.loss))) + "), data " +
            escaped(QString::fromStdString(experiment.data)) + ", seed " + QString::number(experiment.seed) +
            ", batch " + (experiment.batchSize == 0 ? QString("full") : QString::number(experiment.batchSize)) +
            ". Settings: <a href=\"experiment.json\">experiment.json</a>.</p>\n";
    if (!runs_.source().isEmpty())
        html += "<p>Read from the run folder <code>" + escaped(runs_.source()) + "</code>.</p>\n";

    html += "<h2>Summary</h2>\n<table><tr>";
    for (int c = 0; c < summary.columnCount(); ++c)
        html += "<th>" + escaped(summary.headerData(c, Qt::Horizontal).toString()) + "</th>";
    html += "</tr>\n";
    for (int r = 0; r < summary.rowCount(); ++r) {
        html += "<tr>";
        for (int c = 0; c < summary.columnCount(); ++c)
            html += "<td>" + escaped(summary.data(summary.index(r, c)).toString()) + "</td>";
        html += "</tr>\n";
    }
    html += "</table>\n<p>Data: <a href=\"summary.csv\">summary.csv</a>";
    for (int run = 0; run < runs_.history().runCount(); ++run) {
        const QString file = "runs/" + runs_.metricsCsvFileName(run);
        html += ", <a href=\"" + file + "\">" + escaped(file) + "</a>";
    }
    html += "</p>\n";
    QStringList leftOut;
    for (const NamedFigure& named : figures_) {
        if (!named.shown()) {
            leftOut << "<li>" + escaped(named.caption) + ": " + escaped(named.leftOutBecause) + "</li>";
            continue;
        }
        const QString& stem = named.name;
        html += "<h2>" + escaped(named.caption) + "</h2>\n<p><img src=\"" + stem + ".png\" alt=\"" + escaped(stem) +
                "\"></p>\n<p>Also as <a href=\"" + stem + ".pdf\">PDF</a> and <a href=\"" + stem + ".svg\">SVG</a>" +
                (named.figure.plot() ? ", and as pgfplots: <a href=\"" + stem + ".tex\">" + stem +
                                           ".tex</a> with <a href=\"" + stem + ".csv\">" + stem + ".csv</a>"
                                     : QString()) +
                ".</p>\n";
    }
    if (!leftOut.isEmpty())
        html += "<h2>Left out</h2>\n<p>These views had nothing to show when the report was written:</p>\n<ul>\n" +
                leftOut.join("\n") + "\n</ul>\n";
    html += "</body></html>\n";
    return html.toUtf8();
}

}  // namespace ml
