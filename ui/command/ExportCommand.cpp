#include "command/ExportCommand.h"

#include "export/ReportWriter.h"
#include "export/ViewFigures.h"
#include "study/StudyReport.h"
#include "study/StudyResults.h"
#include "InputError.h"
#include "model/ComparisonHistory.h"
#include "model/RunComparison.h"
#include "session/FolderSnapshots.h"
#include "runfolder/RunFolderLayout.h"
#include "runfolder/RunFolderReader.h"
#include "runfolder/SnapshotFile.h"
#include "views/ConvergencePlot.h"
#include "views/LayerHeatmapView.h"
#include "views/NetworkDiagramView.h"
#include "model/Quantity.h"
#include "model/RunSelection.h"
#include "views/ViewRegistry.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTextStream>

#include <cmath>
#include <exception>
#include <memory>
#include <numeric>
#include <optional>

namespace ml {

namespace {

const double kPixelsPerCm = pixelsPerUnit(LengthUnit::Centimetres);

struct ExportArguments {
    QString runDirectory;
    QString outDirectory;
    QStringList runs;  // labels; empty: every run
    Quantity quantity = Quantity::Weight;
    std::optional<long> step;  // empty: the last saved snapshot (or the final weights)
    double smoothing = 0.0;
    bool hyperParameters = false;
    bool compute = false;    // --compute: what the app computes only on request (the loss landscape)
    FigureOptions figure;    // report-sized by default (FigureOptions.h)
    QString studyDirectory;  // --study: a study folder whose figures go into OUT/study
};

void addOptions(QCommandLineParser& parser) {
    parser.setApplicationDescription(
        "Render a run folder headlessly with the desktop app's own views, as its report does: every view's\n"
        "figures (DIR/NAME.{png,pdf,svg}, and NAME.tex + .csv for plots), summary.csv, runs/NAME.csv,\n"
        "experiment.json and index.html. A view with nothing to show for the folder is left out with its reason\n"
        "(on stderr and in index.html). The inspector follows the first neuron of the first layer, the update\n"
        "explainer its first connection. Figures default to report size: 16 cm x 9 cm at 300 dpi (PNG 1890 x\n"
        "1063 pixels), labels at 9 pt.");
    parser.addPositionalArgument("RUN_DIR", "A folder written by momentum-lab-cli train --out.");
    parser.addOptions({
        {"out", "Folder to write the report into (created if missing).", "DIR"},
        {"run", "A run to include, by its label (repeat for several; default: every run).", "LABEL"},
        {"quantity",
         "What colours the network diagram and the layer heat-map: weight (default), gradient, momentum, neuron-mean-momentum, "
         "deviation-from-neuron-mean, momentum-spread, update, second-moment, second-moment-group-mean, weight-change. "
         "Other than weight needs snapshots "
         "(train --snapshots-every N).",
         "NAME"},
        {"step", "The saved snapshot the snapshot views show (default: the last one, or the final weights).", "N"},
        {"smoothing", "EMA smoothing of the convergence plot, 0 (raw, default) to 0.99; the figure states it.", "S"},
        {"hyperparameters", "Add each run's key hyper-parameters (lr, and those not at their defaults) to the legend."},
        {"compute",
         "Also compute what the app computes only on request (the loss landscape of the shown runs, as its Compute "
         "button does; minutes for large networks)."},
        {"width",
         "Figure width: layout pixels at 96 per inch (a plain number or 800px), or 12cm, 120mm, 4.5in "
         "(default 605 px = 16 cm).",
         "LENGTH"},
        {"height", "Figure height, as --width (default 340 px = 9 cm).", "LENGTH"},
        {"width-cm", "Figure width in centimetres (instead of --width).", "CM"},
        {"height-cm", "Figure height in centimetres (instead of --height).", "CM"},
        {"dpi", "PNG resolution (default 300); PDF and SVG are vector drawings of the same size.", "DPI"},
        {"study",
         "Also a study folder (momentum-lab-cli study --out): its figures for every task, in every format, "
         "and its results files, into DIR/study.",
         "STUDY_DIR"},
    });
    parser.addHelpOption();
}

double numberOption(const QCommandLineParser& parser, const QString& name, double minimum, double maximum) {
    bool ok = false;
    const double value = parser.value(name).toDouble(&ok);
    if (!ok || !std::isfinite(value) || value < minimum || value > maximum)
        throw InputError("--" + name.toStdString() + " " + parser.value(name).toStdString() +
                         ": expected a number from " + QString::number(minimum).toStdString() + " to " +
                         QString::number(maximum).toStdString());
    return value;
}

int wholeOption(const QCommandLineParser& parser, const QString& name, int minimum, int maximum) {
    bool ok = false;
    const int value = parser.value(name).toInt(&ok);
    if (!ok || value < minimum || value > maximum)
        throw InputError("--" + name.toStdString() + " " + parser.value(name).toStdString() +
                         ": expected a whole number from " + std::to_string(minimum) + " to " +
                         std::to_string(maximum));
    return value;
}

// "800" or "800px" (layout pixels), "12cm", "120mm", "4.5in": the length in layout pixels, or
// nullopt when `text` is none of these.
std::optional<double> lengthInPixels(const QString& text) {
    static const QRegularExpression pattern(QStringLiteral("^\\s*([0-9]*\\.?[0-9]+)\\s*(px|cm|mm|in)?\\s*$"),
                                            QRegularExpression::CaseInsensitiveOption);
    const QRegularExpressionMatch match = pattern.match(text);
    if (!match.hasMatch()) return std::nullopt;
    const double number = match.captured(1).toDouble();
    const QString unit = match.captured(2).toLower();
    if (unit == "cm") return layoutPixels(number, LengthUnit::Centimetres);
    if (unit == "mm") return layoutPixels(number / 10.0, LengthUnit::Centimetres);
    if (unit == "in") return layoutPixels(number, LengthUnit::Inches);
    return number;
}

// --width / --height: a plain whole number is layout pixels, as it always was; a number with a
// unit (800px, 12cm, 120mm, 4.5in) is converted at 96 layout pixels per inch.
int sizeOption(const QCommandLineParser& parser, const QString& name) {
    const QString text = parser.value(name);
    bool plain = false;
    text.trimmed().toInt(&plain);
    if (plain) return wholeOption(parser, name, 16, 20000);
    const std::optional<double> pixels = lengthInPixels(text);
    if (!pixels)
        throw InputError("--" + name.toStdString() + " " + text.toStdString() +
                         ": expected a length such as 800px, 12cm, 120mm or 4.5in (a plain number is pixels)");
    const long rounded = std::lround(*pixels);
    if (rounded < 16 || rounded > 20000)
        throw InputError("--" + name.toStdString() + " " + text.toStdString() + ": that is " + std::to_string(rounded) +
                         " px; expected 16 to 20000 px (0.42 to 529 cm, 0.17 to 208 in)");
    return int(rounded);
}

// The size in layout pixels from --width / --width-cm (one of them), else `fallback`.
int lengthOption(const QCommandLineParser& parser, const QString& pixels, const QString& centimetres, int fallback) {
    if (parser.isSet(pixels) && parser.isSet(centimetres))
        throw InputError("--" + pixels.toStdString() + " and --" + centimetres.toStdString() +
                         ": expected only one of them");
    if (parser.isSet(pixels)) return sizeOption(parser, pixels);
    if (parser.isSet(centimetres))
        return int(std::lround(numberOption(parser, centimetres, 0.5, 500.0) * kPixelsPerCm));
    return fallback;
}

ExportArguments parse(const QCommandLineParser& parser) {
    ExportArguments parsed;
    const QStringList positional = parser.positionalArguments();
    if (positional.isEmpty()) throw InputError("RUN_DIR: missing (the folder written by train --out)");
    if (positional.size() > 1) throw InputError(positional[1].toStdString() + ": only one RUN_DIR is accepted");
    parsed.runDirectory = positional.front();
    if (!parser.isSet("out") || parser.value("out").isEmpty()) throw InputError("--out DIR: missing");
    parsed.outDirectory = parser.value("out");
    parsed.runs = parser.values("run");
    if (parser.isSet("quantity")) {
        const std::optional<Quantity> quantity = quantityFromKey(parser.value("quantity"));
        if (!quantity) {
            QStringList keys;
            for (const Quantity q : allQuantities()) keys << quantityKey(q);
            throw InputError("--quantity " + parser.value("quantity").toStdString() + ": unknown; expected one of " +
                             keys.join(", ").toStdString());
        }
        parsed.quantity = *quantity;
    }
    if (parser.isSet("step")) {
        bool ok = false;
        const qlonglong step = parser.value("step").toLongLong(&ok);
        if (!ok || step < 1)
            throw InputError("--step " + parser.value("step").toStdString() + ": expected a step number from 1");
        parsed.step = long(step);
    }
    if (parser.isSet("smoothing")) parsed.smoothing = numberOption(parser, "smoothing", 0.0, 0.99);
    parsed.hyperParameters = parser.isSet("hyperparameters");
    parsed.compute = parser.isSet("compute");
    parsed.figure.width = lengthOption(parser, "width", "width-cm", parsed.figure.width);
    parsed.figure.height = lengthOption(parser, "height", "height-cm", parsed.figure.height);
    if (parser.isSet("dpi")) parsed.figure.dpi = wholeOption(parser, "dpi", 24, 1200);
    return parsed;
}

// The folder with only the runs named by --run, in the order given.
RunFolder chooseRuns(const RunFolder& folder, const QStringList& labels) {
    if (labels.isEmpty()) return folder;
    RunFolder chosen = folder;
    chosen.runs.clear();
    chosen.experiment.runs.clear();
    QStringList available;
    for (const RunRecord& run : folder.runs) available << QString::fromStdString(run.spec.label);
    for (const QString& label : labels) {
        const qsizetype index = available.indexOf(label);
        if (index < 0)
            throw InputError("--run '" + label.toStdString() + "': no such run in " + folder.directory.toStdString() +
                             "; its runs: " + available.join(", ").toStdString());
        if (labels.count(label) > 1) throw InputError("--run '" + label.toStdString() + "': given twice");
        chosen.runs.push_back(folder.runs[std::size_t(index)]);
        chosen.experiment.runs.push_back(folder.runs[std::size_t(index)].spec);
    }
    return chosen;
}

QString stepsText(const std::vector<long>& steps) {
    if (steps.empty()) return "none";
    QStringList shown;
    for (std::size_t i = 0; i < steps.size() && i < 6; ++i) shown << QString::number(steps[i]);
    if (steps.size() > 6) shown << "…" << QString::number(steps.back());
    return shown.join(", ");
}

// The snapshot the views show of `run`: at --step (a saved one), else the last saved one, else
// the final weights. Throws InputError naming the option when it does not exist or lacks the
// quantity.
Snapshot diagramSnapshot(const RunFolder& folder, int index, const ExportArguments& arguments) {
    const RunRecord& run = folder.runs[std::size_t(index)];
    const std::string who = "run '" + run.spec.label + "'";
    std::optional<Snapshot> found;
    std::vector<long> saved;
    std::string cutOff;  // why later snapshots are missing, if the file was cut off
    if (!run.snapshotsFile.isEmpty()) {
        const std::shared_ptr<const Parameters> initial = initialWeights(folder, run);  // for weight-change
        SnapshotFileReader reader(run.snapshotsFile, index);
        while (std::optional<Snapshot> snapshot = reader.next()) {
            saved.push_back(snapshot->step);
            snapshot->initialParameters = initial;
            if (!arguments.step || snapshot->step == *arguments.step) found = std::move(snapshot);
        }
        if (reader.truncated()) cutOff = "; " + reader.truncationText();
    }
    std::optional<Snapshot> final;
    for (const SharedSnapshot& snapshot : finalSnapshots(folder))
        if (snapshot->run == index) final = *snapshot;
    if (final && (arguments.step ? !found && final->step == *arguments.step : !found || final->step > found->step))
        found = std::move(final);
    if (!found) {
        if (arguments.step)
            throw InputError(
                "--step " + std::to_string(*arguments.step) + ": " + who + " saved no snapshot at that step" +
                " (saved steps: " + stepsText(saved).toStdString() +
                (run.finalWeights.empty() ? "" : "; final weights at step " + std::to_string(run.result.steps)) + ")" +
                cutOff);
        throw InputError(who + ": no weights to draw (no weights_final.json and no snapshots.bin)");
    }
    if (extractQuantity(*found, 0, arguments.quantity).size() == 0)
        throw InputError(
            "--quantity " + quantityKey(arguments.quantity).toStdString() + ": " + who + " at step " +
            std::to_string(found->step) + ": " + missingQuantityReason(*found).toStdString() +
            (found->weightsOnly ? " (train --snapshots-every N saves it)" : " (" + run.spec.optimizer + ")") + cutOff);
    return *found;
}

// The runs the snapshot views show: every run chosen with --run, else the app's first ones.
std::vector<int> shownRuns(const RunFolder& folder, const ExportArguments& arguments) {
    const int count = int(folder.runs.size());
    std::vector<int> runs(std::size_t(arguments.runs.isEmpty() ? std::min(count, RunSelection::kDefaultShown) : count));
    std::iota(runs.begin(), runs.end(), 0);
    return runs;
}

// The experiment's name, or the folder's when the name is the default one ("experiment", what
// train writes without --name): a figure titled "experiment" says nothing.
QString figureTitle(const RunFolder& folder) {
    const std::string& name = folder.experiment.name;
    if (!name.empty() && name != Experiment{}.name) return QString::fromStdString(name);
    return QFileInfo(QDir::cleanPath(folder.directory)).fileName();
}

}  // namespace

int runExportCommand(const QStringList& arguments) {
    QTextStream err(stderr);
    QTextStream out(stdout);
    QCommandLineParser parser;
    addOptions(parser);
    const QString usage =
        parser.helpText().replace(QRegularExpression("^Usage: \\S+"), "Usage: momentum-lab-cli export");
    if (!parser.parse(QStringList{"export"} + arguments)) {
        err << "momentum-lab-cli export: " << parser.errorText() << "\n";
        return 2;
    }
    if (parser.isSet("help")) {
        out << usage;
        return 0;
    }
    ExportArguments parsed;
    std::optional<StudyResults> study;
    RunFolder folder;
    std::vector<int> shown;
    try {
        parsed = parse(parser);
        if (parser.isSet("study")) study = loadStudyResults(parser.value("study"));
        folder = chooseRuns(readRunFolder(parsed.runDirectory), parsed.runs);
        for (const std::string& problem : folder.problems())
            err << "momentum-lab-cli export: warning: run " << QString::fromStdString(problem) << "\n";
        shown = shownRuns(folder, parsed);
        // A run chosen, a step or a quantity asked for must be there in every run shown; without a
        // request, a view with nothing to draw is left out with its reason.
        if (!parsed.runs.isEmpty() || parsed.step || parser.isSet("quantity"))
            for (const int run : shown) diagramSnapshot(folder, run, parsed);
        if (!QDir().mkpath(parsed.outDirectory))
            throw InputError(parsed.outDirectory.toStdString() + ": cannot create the output folder");
    } catch (const InputError& error) {
        err << "momentum-lab-cli export: " << error.what() << "\n(momentum-lab-cli export --help lists the options)\n";
        return 2;
    } catch (const std::exception& error) {  // a study whose results cannot be written on opening
        err << "momentum-lab-cli export: " << error.what() << "\n";
        return 1;
    }
    try {
        QWidget host;  // the views' parent, never shown: each figure is drawn from the data
        RunComparison runs;
        RunSelection selection;
        ComparisonHistory history;
        ViewSet views({&selection, &runs, &history}, &host);
        for (std::size_t i = 0; i < views.size(); ++i)
            views.view(i).widget()->resize(parsed.figure.width, parsed.figure.height);
        runs.showFolder(folder);
        views.startOver(folder.experiment, /*sameNetwork=*/false);
        for (const std::string& problem : views.showFolder(folder))
            err << "momentum-lab-cli export: warning: run " << QString::fromStdString(problem) << "\n";
        // The choices of the command line, made as in the app's controls.
        selection.setShown(shown);
        if (parsed.step) selection.setStep(*parsed.step);
        views.find<NetworkDiagramPanel>()->setQuantity(parsed.quantity);
        views.find<LayerHeatmapPanel>()->setQuantity(parsed.quantity);
        ConvergencePlot* plot = views.find<ConvergencePlot>();
        plot->setTitle(figureTitle(folder));
        plot->setSmoothing(parsed.smoothing);
        if (parsed.hyperParameters) plot->setRunDetails(runs.runDetails());
        views.chooseForExport();
        if (parsed.compute) views.computeOnRequest();
        std::vector<NamedFigure> figures = namedFigures(views.figures());
        for (const NamedFigure& figure : figures)
            if (!figure.shown())
                err << "momentum-lab-cli export: left out " << figure.caption << ": " << figure.leftOutBecause << "\n";
        const ReportWriter report(runs, std::move(figures), parsed.figure);
        for (const QString& file : report.write(parsed.outDirectory))
            out << QDir(parsed.outDirectory).filePath(file) << "\n";
        if (study) {
            const QString studyOut = QDir(parsed.outDirectory).filePath("study");
            for (const QString& file : writeStudyReport(*study, studyOut, parsed.figure))
                out << QDir(studyOut).filePath(file) << "\n";
        }
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
