#include "cli/LandscapeCommand.h"

#include "InputError.h"
#include "cli/Cli.h"
#include "cli/CommandLine.h"
#include "io/Files.h"
#include "landscape/LandscapeFiles.h"
#include "landscape/Landscape.h"
#include "landscape/TrajectoryReader.h"
#include "experiment/Experiment.h"
#include "runfolder/RunFolderReader.h"

#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>

#include <iostream>

namespace ml {

namespace {

const char* const kLandscapeDescription =
    "The training loss on a plane shared by the runs of a run folder, written with snapshots\n"
    "(train --snapshots-every N). The plane passes through the mean of the runs' final weights and is\n"
    "spanned by the first two principal directions of all recorded weights (--directions pca) or by\n"
    "two filter-normalised random directions (--directions random, Li et al. 2018). The loss is taken\n"
    "on the first --examples training examples. Writes DIR/landscape.csv (x,y,loss), trajectories.csv\n"
    "(run,step,x,y) and, with two runs or more, slice.csv (t,loss along the first two runs' final\n"
    "weights, t from -0.25 to 1.25). Columns: docs/guide/landscape.md. Exit status 2 for bad input.";

int landscape(const QStringList& arguments) {
    QCommandLineParser parser;
    parser.addPositionalArgument("RUN_FOLDER", "A run folder written by train --snapshots-every N.");
    parser.addOption({"out", "Folder to write the CSV files to (created if missing).", "DIR"});
    parser.addOption({"directions", "pca (default) or random.", "KIND"});
    parser.addOption(
        {"grid",
         QString("Grid points per side (default %1, at most %2).").arg(kDefaultLandscapeGrid).arg(LossGrid::kMaxSize),
         "G"});
    parser.addOption({"seed", "Seed of the random directions (default 1).", "S"});
    parser.addOption(
        {"examples",
         QString("Training examples the loss is taken on (default %1; all when fewer).").arg(kDefaultLandscapeExamples),
         "N"});
    if (const int status = parseCommandLine(parser, arguments, kLandscapeDescription, 1); status >= 0) return status;
    if (!parser.isSet("out")) throw InputError("--out: missing; give the folder to write, e.g. --out landscape");
    checkOutputFolder(parser.value("out"), "--out");
    const PlaneDirections directions = parsePlaneDirections(
        parser.isSet("directions") ? parser.value("directions").toStdString() : "pca", "--directions");
    const int gridSize = wholeOption(parser, "grid", kDefaultLandscapeGrid, LossGrid::kMinSize);
    if (gridSize > LossGrid::kMaxSize)
        throw InputError("--grid " + std::to_string(gridSize) + ": expected at most " +
                         std::to_string(LossGrid::kMaxSize));
    const int seed = wholeOption(parser, "seed", 1, 0);
    const int examples = wholeOption(parser, "examples", int(kDefaultLandscapeExamples), 1);

    const RunFolder folder = readRunFolder(parser.positionalArguments().front());
    for (const std::string& problem : folder.problems())
        std::cerr << "momentum-lab-cli: warning: run " << problem << "\n";
    const RecordedTrajectories recorded = readTrajectories(folder);
    for (const std::string& skipped : recorded.skipped)
        std::cerr << "momentum-lab-cli: warning: left out " << skipped << "\n";
    const std::vector<Trajectory>& trajectories = recorded.trajectories;
    const DataSplit data = loadExperimentData(folder.experiment);

    QElapsedTimer timer;
    timer.start();
    const Landscape landscape = computeLandscape(folder.experiment.network, *data.train, trajectories,
                                                 {directions, gridSize, std::uint64_t(seed), examples});
    const double ms = double(timer.nsecsElapsed()) / 1e6;

    const QDir out(parser.value("out"));
    if (!out.mkpath(".")) throw InputError("--out " + parser.value("out").toStdString() + ": cannot create the folder");
    writeGridCsv(out.filePath(landscapefiles::kGrid), landscape.grid);
    writeTrajectoriesCsv(out.filePath(landscapefiles::kTrajectories), trajectories, landscape.projected);
    if (landscape.slice) writeSliceCsv(out.filePath(landscapefiles::kSlice), *landscape.slice);
    std::cout << gridSize << " x " << gridSize << " grid" << (landscape.slice ? " and slice" : "") << " ("
              << planeDirectionsName(directions) << " directions, " << landscape.weights << " weights, "
              << landscape.examples << " examples) in " << QString::number(ms, 'f', 1).toStdString() << " ms; "
              << trajectories.size() << (trajectories.size() == 1 ? " run -> " : " runs -> ")
              << out.path().toStdString() << "\n";
    return kExitOk;
}

}  // namespace

void addLandscapeCommand(CommandTable& table) {
    table.add(
        {"landscape", "the loss on a plane shared by a run folder's runs, with their trajectories", landscape, {}});
}

}  // namespace ml
