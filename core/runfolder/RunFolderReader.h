#pragma once
// Reads a run folder written by RunFolderWriter (layout: runfolder/RunFolderLayout.h). A run whose
// files cannot be read does not stop the others: it is kept with what could be read and the reason.
#include "nn/Network.h"
#include "experiment/Experiment.h"
#include "runfolder/MetricsDigest.h"
#include "train/Snapshot.h"

#include <QString>

#include <string>
#include <vector>

namespace ml {

struct RunRecord {
    RunSpec spec;
    QString directory;        // where its metrics.csv and weights files are
    MetricsDigest metrics;    // metrics.csv streamed: decimated series + final figures, never the whole file
    RunResult result;         // from summary.csv when present, else derived from metrics
    Parameters finalWeights;  // empty when weights_final.json is missing (e.g. an interrupted run)
    QString snapshotsFile;    // snapshots.bin (train --snapshots-every) with a header that fits the network; else empty
    std::string problem;      // why part of this run could not be read ("" when all is well)
};

struct RunFolder {
    QString directory;
    Experiment experiment;
    std::vector<RunRecord> runs;
    // "LABEL: PROBLEM" for each run that could not be read completely.
    std::vector<std::string> problems() const;
};

// Throws InputError naming the file, line and column when the folder as a whole cannot be read
// (config.json, summary.csv); a problem with one run's files is recorded in its RunRecord.
// Memory is bounded whatever the size of the metrics files: each is streamed into a MetricsDigest
// of `pointBudget` points per series (the plot's 200,000 by default).
RunFolder readRunFolder(const QString& directory, int pointBudget = kPlotPointBudget);

// Streams one metrics.csv into `digest` (rows read before an error stay in it). Throws InputError.
void readMetricsFile(const QString& path, int run, MetricsDigest& digest);

}  // namespace ml
