#include "export/ExportCommand.h"

#include "export/ReportWriter.h"
#include "InputError.h"
#include "model/RunComparison.h"
#include "session/FolderSnapshots.h"
#include "train/RunFolderReader.h"
#include "views/ConvergencePlot.h"
#include "views/NetworkDiagramView.h"

#include <QDir>
#include <QTextStream>

#include <exception>

namespace ml {

namespace {

const char* const kUsage =
    "usage: momentum-lab-cli export RUN_DIR --out DIR [--width W] [--height H] [--dpi D]\n"
    "  renders the convergence plot of a run folder as PNG, PDF and SVG, plus CSV, JSON and index.html\n";

struct ExportArguments {
    QString runDirectory;
    QString outDirectory;
    FigureOptions figure;
};

int positiveInt(const QStringList& arguments, qsizetype& i) {
    const QString option = arguments[i];
    if (i + 1 >= arguments.size()) throw InputError(option.toStdString() + ": expected a number after it");
    bool ok = false;
    const int value = arguments[++i].toInt(&ok);
    if (!ok || value <= 0) throw InputError(option.toStdString() + " " + arguments[i].toStdString() + ": expected a positive whole number");
    return value;
}

ExportArguments parse(const QStringList& arguments) {
    ExportArguments parsed;
    parsed.figure.width = 1200;
    parsed.figure.height = 800;
    for (qsizetype i = 0; i < arguments.size(); ++i) {
        const QString& argument = arguments[i];
        if (argument == "--out") {
            if (i + 1 >= arguments.size()) throw InputError("--out: expected a folder after it");
            parsed.outDirectory = arguments[++i];
        } else if (argument == "--width") {
            parsed.figure.width = positiveInt(arguments, i);
        } else if (argument == "--height") {
            parsed.figure.height = positiveInt(arguments, i);
        } else if (argument == "--dpi") {
            parsed.figure.dpi = positiveInt(arguments, i);
        } else if (argument.startsWith("--")) {
            throw InputError(argument.toStdString() + ": unknown option");
        } else if (parsed.runDirectory.isEmpty()) {
            parsed.runDirectory = argument;
        } else {
            throw InputError(argument.toStdString() + ": only one RUN_DIR is accepted");
        }
    }
    if (parsed.runDirectory.isEmpty()) throw InputError("RUN_DIR: missing (the folder written by train --out)");
    if (parsed.outDirectory.isEmpty()) throw InputError("--out DIR: missing");
    return parsed;
}

}  // namespace

int runExportCommand(const QStringList& arguments) {
    QTextStream err(stderr);
    QTextStream out(stdout);
    if (arguments.contains("--help") || arguments.contains("-h")) {
        out << kUsage;
        return 0;
    }
    ExportArguments parsed;
    RunFolder folder;
    try {
        parsed = parse(arguments);
        folder = readRunFolder(parsed.runDirectory);
        for (const std::string& problem : folder.problems())
            err << "momentum-lab-cli export: warning: run " << QString::fromStdString(problem) << "\n";
        if (!QDir().mkpath(parsed.outDirectory))
            throw InputError(parsed.outDirectory.toStdString() + ": cannot create the output folder");
    } catch (const InputError& error) {
        err << "momentum-lab-cli export: " << error.what() << "\n" << kUsage;
        return 2;
    }
    try {
        RunComparison runs;
        runs.showFolder(folder);
        ConvergencePlot plot;
        plot.setHistory(&runs.history());
        plot.setTitle(QString::fromStdString(folder.experiment.name));
        plot.resize(parsed.figure.width, parsed.figure.height);
        std::vector<NamedFigure> figures{{"convergence", "Convergence of all runs", Figure::ofPlot(plot.plot())}};
        // The final weights of the first run, when the folder has them.
        NetworkDiagramView diagram;
        const std::vector<SharedSnapshot> finalWeights = finalSnapshots(folder);
        if (!finalWeights.empty()) {
            diagram.setQuantity(Quantity::Weight);
            diagram.showSnapshot(*finalWeights.front());
            figures.push_back({"network-diagram", "Final weights of " + QString::fromStdString(finalWeights.front()->label),
                               Figure::ofRenderer([&diagram](QPainter& painter, QSize size) { diagram.render(painter, size); })});
        }
        const ReportWriter report(runs, std::move(figures), parsed.figure);
        for (const QString& file : report.write(parsed.outDirectory)) out << QDir(parsed.outDirectory).filePath(file) << "\n";
    } catch (const InputError& error) {
        err << "momentum-lab-cli export: " << error.what() << "\n";
        return 2;
    } catch (const std::exception& error) {
        err << "momentum-lab-cli export: " << error.what() << "\n";
        return 1;
    }
    return 0;
}

}  // namespace ml
