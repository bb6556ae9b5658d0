#include "cli/StudyCommands.h"

#include "InputError.h"
#include "cli/Cli.h"
#include "cli/CommandLine.h"
#include "cli/ShellWords.h"
#include "cli/StopSignals.h"
#include "io/FileError.h"
#include "io/Files.h"
#include "io/JsonFile.h"
#include "runfolder/RunFolderLayout.h"
#include "study/StudyAggregate.h"
#include "study/StudyRunner.h"
#include "study/StudySummaryTable.h"
#include "study/TrialOutcome.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QThread>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <unistd.h>

namespace ml {

namespace {

QString absolute(const QString& path) { return QFileInfo(path).absoluteFilePath(); }

// "--- trials done of total, rate, ETA" on one terminal line.
class TrialProgress {
public:
    TrialProgress(int total, bool enabled) : total_(total), enabled_(enabled) {}
    void finished(const char* phase) {
        ++done_;
        if (!enabled_) return;
        const double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
        const double rate = done_ / std::max(seconds, 1e-9);
        const long eta = std::lround((total_ - done_) / std::max(rate, 1e-9));
        const int width = 30;
        const int filled = total_ > 0 ? width * done_ / total_ : width;
        std::fprintf(stderr, "\r[%.*s%*s] %d/%d trials (%s)  %.2f trials/s  ETA %ld:%02ld   ", filled,
                     "##############################", width - filled, "", done_, total_, phase, rate, eta / 60,
                     eta % 60);
        std::fflush(stderr);
    }
    void end() {
        if (enabled_) std::fprintf(stderr, "\n");
    }
    double secondsSoFar() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

private:
    using Clock = std::chrono::steady_clock;
    int total_;
    int done_ = 0;
    bool enabled_;
    Clock::time_point start_ = Clock::now();
};

// The paths a generated command names, each one shell word (a line break in one is refused here,
// before any script or command line is written).
struct CommandPaths {
    QString cli, studyFile, root;
};

CommandPaths commandPaths(const QString& out, const QString& cli) {
    const QString root = absolute(out);
    const std::string what = "--out " + root.toStdString();
    return {shellWord(cli, "the CLI's path " + cli.toStdString()),
            shellWord(QDir(root).filePath(studyfolder::kStudy), what), shellWord(root, what)};
}

QString trialCommand(const CommandPaths& paths, const QString& trial) {
    return paths.cli + " study " + paths.studyFile + " --out " + paths.root + " --trial " + trial + " --quiet";
}

// The head of every emitted script. Each script writes its log into logs/ beside it: sbatch
// resolves a relative --output against the folder it is submitted from, which submit.sh makes
// DIR/slurm, so no path (with its spaces, quotes or %) ever reaches an #SBATCH line.
QString sbatchHead(const StudyPlan& plan, const QString& what, const QString& job, const QString& log) {
    return "#!/bin/bash\n# Study " + shellComment(QString::fromStdString(plan.study().name)) + ": " + what +
           "\n# Submit from this folder (submit.sh does), so that the logs go to logs/ here.\n#SBATCH --job-name=" +
           runFileName(plan.study().name) + "-" + job +
           "\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n#SBATCH --output=logs/" + log + "\n";
}

// tune.sbatch / final.sbatch (one array task per trial, at most `throttle` at once), aggregate.sbatch,
// and submit.sh, which chains them with --dependency=afterok.
void emitSlurm(const StudyLayout& layout, const CommandPaths& paths, int throttle) {
    const StudyPlan& plan = layout.plan();
    const QString dir = absolute(layout.slurmDirectory());
    if (!QDir().mkpath(dir + "/logs")) throw FileError(dir, "cannot create the folder");
    const auto arrayScript = [&](const QString& phase, int first, int count) {
        return sbatchHead(plan,
                          phase + ", trials " + QString::number(first) + " to " + QString::number(first + count - 1) +
                              " of momentum-lab-cli study, one array task each.",
                          phase, phase + "-%A_%a.out") +
               "#SBATCH --array=0-" + QString::number(count - 1) + "%" + QString::number(throttle) + "\nexec " +
               trialCommand(paths, "$((SLURM_ARRAY_TASK_ID + " + QString::number(first) + "))") + "\n";
    };
    // One array per search round (a refining round is planned from the rounds before it).
    QStringList tuneJobs;
    for (int r = 0; r < plan.rounds(); ++r) {
        const QString job = r == 0 ? QString("tune") : QString("tune-round-%1").arg(r);
        writeFileAtomically(dir + "/" + job + ".sbatch",
                            arrayScript(job, plan.roundBegin(r), plan.roundBegin(r + 1) - plan.roundBegin(r)).toUtf8());
        tuneJobs << job;
    }
    writeFileAtomically(dir + "/final.sbatch",
                        arrayScript("final", plan.tuningCount(), plan.trialCount() - plan.tuningCount()).toUtf8());
    writeFileAtomically(dir + "/aggregate.sbatch", (sbatchHead(plan, "the statistics, once every trial has finished.",
                                                               "aggregate", "aggregate-%j.out") +
                                                    "exec " + paths.cli + " aggregate " + paths.root + "\n")
                                                       .toUtf8());
    const QString submit = dir + "/submit.sh";
    QString script = plan.rounds() == 1
                         ? "# Submits the study's three jobs, each starting when the one before succeeded.\n"
                         : QString(
                               "# Submits the study's %1 jobs (a tuning array per search round), each "
                               "starting when the one before succeeded.\n")
                               .arg(plan.rounds() + 2);
    script = "#!/bin/bash\n" + script + "set -euo pipefail\ncd \"$(dirname \"$0\")\"\n";
    QString previous, echo;
    for (QString job : tuneJobs + QStringList{"final", "aggregate"}) {
        const QString variable = QString(job).replace('-', '_');
        script += variable + "=$(sbatch --parsable " +
                  (previous.isEmpty() ? QString() : "--dependency=afterok:$" + previous + " ") + job + ".sbatch); " +
                  variable + "=${" + variable + "%%;*}\n";
        echo += (echo.isEmpty() ? "" : " ") + job + " $" + variable;
        previous = variable;
    }
    writeFileAtomically(submit, (script + "echo \"" + echo + "\"\n").toUtf8());
    QFile::setPermissions(submit, QFile::permissions(submit) | QFileDevice::ExeOwner | QFileDevice::ExeUser);
}

void printResults(const StudyLayout& layout, const AggregateReport& report, bool markdown = false) {
    const StudySummaryTable table(readJsonObject(QDir(layout.resultsDirectory()).filePath("results.json")));
    if (markdown) {
        std::cout << table.markdown().toStdString();
        return;
    }
    std::cout << report.finishedTrials << " of " << report.totalTrials << " trials finished; results in "
              << layout.resultsDirectory().toStdString() << "\n"
              << table.text().toStdString();
}

// A path, or the id of a shipped study (resources/studies/N-ID.json -> :/studies/).
QString studyFileOrPreset(const QString& argument) {
    if (QFileInfo::exists(argument)) return argument;
    const QDir shipped(":/studies");
    QStringList ids;
    for (const QString& name : shipped.entryList({"*.json"}, QDir::Files, QDir::Name)) {
        const QString id = QFileInfo(name).completeBaseName().section('-', 1);
        if (argument == id || argument == QFileInfo(name).completeBaseName()) return shipped.filePath(name);
        ids << id;
    }
    throw InputError(argument.toStdString() + ": no such study file, nor a shipped study (" +
                     ids.join(", ").toStdString() + ")");
}

// study's modes exclude one another, and an option only one mode reads is refused in the others
// (rather than silently ignored).
void checkStudyModes(const QCommandLineParser& parser) {
    QStringList modes;
    for (const char* mode : {"list", "list0", "trial", "emit"})
        if (parser.isSet(mode)) modes << QString("--") + mode;
    if (modes.size() > 1)
        throw InputError(modes.join(" and ").toStdString() + ": give one of --list, --list0, --trial K, --emit slurm");
    const QString mode = modes.value(0, "running every trial");
    for (const char* option : {"phase", "round"})
        if (parser.isSet(option) && !parser.isSet("list") && !parser.isSet("list0"))
            throw InputError(std::string("--") + option + ": only read with --list or --list0, not with " +
                             mode.toStdString());
    if (parser.isSet("throttle") && !parser.isSet("emit"))
        throw InputError("--throttle: only read with --emit slurm, not with " + mode.toStdString());
    if (parser.isSet("jobs") && !modes.isEmpty())
        throw InputError("--jobs: only read when running every trial, not with " + mode.toStdString());
}

const char* const kStudyDescription =
    "Run a study (docs/guide/studies.md): phase 1 tunes every optimizer with the same budget on validation\n"
    "data, phase 2 re-runs each one's best configuration on every seed, phase 3 aggregates (the\n"
    "aggregate command). Every trial is a run folder under DIR; DIR/study.json is the study's copy.\n"
    "Re-running resumes: finished trials are kept, unfinished ones run again.\n"
    "--list prints one command per trial (phase 2 needs phase 1 finished: run them in that order,\n"
    "e.g. with --phase 1 and --phase 2; a refining search's rounds too, with --round 0, 1, ...); --list0 ends each with a NUL instead of a line break, for\n"
    "  study S --out DIR --list0 --phase 1 | xargs -0 -P 8 -I{} sh -c {}\n"
    "(plain xargs strips the commands' quotes, which breaks paths with spaces); --trial K runs one;\n"
    "--emit slurm writes job-array scripts. A path with a line break cannot be listed or emitted.\n"
    "Exit status: 0 done (diverged trials are results too); 1 a file cannot be written; 2 bad input;\n"
    "128 + N when signal N stopped it (finished trials are kept).";

int study(const QStringList& arguments) {
    QCommandLineParser parser;
    parser.addPositionalArgument(
        "STUDY",
        "The study file (JSON: an experiment with a \"study\" section), or a shipped study: seed-question-digits, seed-question.");
    parser.addOption({"out", "The study folder (created if missing; re-running resumes).", "DIR"});
    parser.addOption({"jobs", "Worker threads, each running one single-threaded trial (default: all cores).", "N"});
    parser.addOption({"list", "Print one self-contained command per trial instead of running them."});
    parser.addOption({"list0", "As --list, each command ended by a NUL byte (for xargs -0)."});
    parser.addOption({"phase", "With --list or --list0: only phase 1 (tuning) or 2 (final runs).", "1|2"});
    parser.addOption({"round",
                      "With --list or --list0: only the tuning trials of search round R (0 first; a "
                      "refining round needs the rounds before it finished).",
                      "R"});
    parser.addOption({"trial", "Run trial K only (0-based, the numbering of --list).", "K"});
    parser.addOption({"emit", "Write scripts for a cluster instead of running: slurm.", "slurm"});
    parser.addOption({"throttle", "With --emit slurm: at most M array tasks at once (default 32).", "M"});
    parser.addOption({"quiet", "No progress bar and no result table."});
    if (const int status = parseCommandLine(parser, arguments, kStudyDescription, 1); status >= 0) return status;
    if (!parser.isSet("out"))
        throw InputError("--out: missing; give the study folder, e.g. --out studies/seed-question");
    const QString studyFile = studyFileOrPreset(parser.positionalArguments().front());
    const QString out = parser.value("out");
    checkOutputFolder(out, "--out");
    checkStudyModes(parser);

    const bool listing = parser.isSet("list") || parser.isSet("list0");
    const QString cli = QCoreApplication::applicationFilePath();
    std::optional<CommandPaths> paths;  // all checks before anything is written
    if (listing || parser.isSet("emit")) paths = commandPaths(out, cli);
    if (parser.isSet("emit") && parser.value("emit") != "slurm")
        throw InputError("--emit: expected slurm, not '" + parser.value("emit").toStdString() + "'");
    const int throttle = wholeOption(parser, "throttle", 32, 1);
    const int phase = wholeOption(parser, "phase", 0, 1);
    if (phase > 2) throw InputError("--phase: expected 1 or 2, not '" + parser.value("phase").toStdString() + "'");
    const int round = wholeOption(parser, "round", -1, 0);
    if (round >= 0 && phase == 2) throw InputError("--round: a search round is part of phase 1, not of --phase 2");

    const StudyPlan plan(loadStudy(studyFile));  // its size checked too, before the folder is made
    prepareStudyFolder(studyFile, out);
    const StudyLayout layout(out, plan);

    if (parser.isSet("emit")) {
        emitSlurm(layout, *paths, throttle);
        const QString submit = absolute(layout.slurmDirectory()) + "/submit.sh";
        std::cout << "Slurm scripts in " << absolute(layout.slurmDirectory()).toStdString() << "; submit with "
                  << shellWord(submit, "--out").toStdString() << "\n";
        return kExitOk;
    }
    if (listing) {
        if (round >= plan.rounds())
            throw InputError("--round: " + std::to_string(round) +
                             " is not a search round of this study; expected 0 to " +
                             std::to_string(plan.rounds() - 1));
        int begin = phase == 2 ? plan.tuningCount() : 0;
        int end = phase == 1 ? plan.tuningCount() : plan.trialCount();
        if (round >= 0) begin = plan.roundBegin(round), end = plan.roundBegin(round + 1);
        const char terminator = parser.isSet("list0") ? '\0' : '\n';
        for (int k = begin; k < end; ++k)
            std::cout << trialCommand(*paths, QString::number(k)).toStdString() << terminator;
        return kExitOk;
    }

    RunControl control;
    int stopSignal = 0;
    const bool quiet = parser.isSet("quiet");
    if (parser.isSet("trial")) {
        const int k = wholeOption(parser, "trial", 0, 0);
        plan.trial(k);  // range check
        bool finished = true;
        {
            const StopOnSignals stopOnSignals(control);
            if (unfinishedTrials(layout, {k}).empty()) {
                if (!quiet) std::cout << "trial " << k << " already finished\n";
            } else {
                finished = runTrial(layout, k, control);
            }
            stopSignal = stopOnSignals.received();
        }
        if (!finished && stopSignal != 0) return kExitSignalBase + stopSignal;
        return kExitOk;
    }

    const int jobs = wholeOption(parser, "jobs", QThread::idealThreadCount(), 1);
    const PendingTrials pending = pendingTrials(layout);
    TrialProgress progress(pending.count(), !quiet && isatty(STDERR_FILENO));
    {
        const StopOnSignals stopOnSignals(control);
        runPendingTrials(layout, pending, jobs, control, [&](int trial) {
            progress.finished(plan.trial(trial).phase == StudyPhase::Tuning ? "phase 1" : "phase 2");
        });
        stopSignal = stopOnSignals.received();
    }
    progress.end();
    if (stopSignal != 0) {
        std::cerr << "momentum-lab-cli: stopped by " << StopOnSignals::name(stopSignal)
                  << " (finished trials are kept; run the same command to resume)\n";
        return kExitSignalBase + stopSignal;
    }
    if (!quiet)
        std::fprintf(stderr, "%d trials in %.1f s on %d thread(s)\n", pending.count(), progress.secondsSoFar(), jobs);
    const AggregateReport report = aggregateStudy(layout);
    if (!quiet) printResults(layout, report);
    return kExitOk;
}

int aggregate(const QStringList& arguments) {
    QCommandLineParser parser;
    parser.addPositionalArgument("DIR", "A study folder (written by momentum-lab-cli study).");
    parser.addOption({"figure-size", "Size of the pgfplots band figure in millimetres (default 120x80).", "WxH"});
    parser.addOption(
        {"markdown", "Print the result table as Markdown (for a report or README) instead of aligned text."});
    if (const int status =
            parseCommandLine(parser, arguments,
                             "Recompute a study's statistics from whatever trial folders exist, into DIR/results.", 1);
        status >= 0)
        return status;
    const QString dir = parser.positionalArguments().front();
    AggregateOptions options;
    if (parser.isSet("figure-size")) {
        const QStringList parts = parser.value("figure-size").split('x');
        bool okW = false, okH = false;
        options.figureWidthMm = parts.value(0).toDouble(&okW);
        options.figureHeightMm = parts.value(1).toDouble(&okH);
        // TeX's largest dimension is 16383.99 pt, about 5758 mm.
        constexpr double kMaxMm = 5000;
        const auto fits = [&](double mm) { return mm > 0 && mm <= kMaxMm; };
        if (parts.size() != 2 || !okW || !okH || !fits(options.figureWidthMm) || !fits(options.figureHeightMm))
            throw InputError(
                "--figure-size: expected WIDTHxHEIGHT in millimetres, each above 0 and at most 5000 "
                "(TeX's largest size is about 5758 mm), e.g. 120x80, not '" +
                parser.value("figure-size").toStdString() + "'");
    }
    const QString studyFile = QDir(dir).filePath(studyfolder::kStudy);
    if (!QFileInfo::exists(studyFile))
        throw InputError(studyFile.toStdString() +
                         ": not found; expected a folder written by momentum-lab-cli study --out");
    const StudyPlan plan(loadStudy(studyFile));
    const StudyLayout layout(dir, plan);
    printResults(layout, aggregateStudy(layout, options), parser.isSet("markdown"));
    return kExitOk;
}

}  // namespace

void addStudyCommands(CommandTable& table) {
    table.add({"study", "run a study: tuning with equal budgets, final runs on every seed, statistics", study, {}});
    table.add({"aggregate", "recompute a study's statistics from its trial folders", aggregate, {}});
}

}  // namespace ml
