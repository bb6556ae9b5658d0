#pragma once
// The run folder: what `momentum-lab-cli train --out DIR` writes and the desktop app opens.
//   DIR/config.json            the resolved experiment (reproduces the run with --config)
//   one run:     DIR/metrics.csv, DIR/weights_initial.json, DIR/weights_final.json, DIR/summary.csv
//   several:     DIR/<label>/{config.json, metrics.csv, weights_initial.json, weights_final.json,
//                             summary.csv}    (each a complete single-run folder)
//                DIR/summary.csv              (every run)
// A run's summary.csv (its final figures and status) is written when it finishes; a folder
// without it was killed. On request, beside each run's metrics.csv:
//   train --snapshots-every N:   snapshots.bin (runfolder/SnapshotFile.h)
//   train --diagnostics-every N: diagnostics.csv, curvature.csv, hessian_spectrum.csv (core/diagnostics)
//   train --save-state-every N:  state/step-K.json.gz, K = N, 2N, ... (train/TrainingState.h), for
//                                `train --fork-from RUN --at-step K`
// (CSV columns: runfolder/RunCsv.h; weights: runfolder/WeightsFile.h.) The one place that knows the names.
#include "experiment/RunLabels.h"

#include <QString>

#include <string>
#include <vector>

namespace ml {

// RUN/state/step-K.json.gz: the training state of the run in folder `runDirectory` at step K.
QString trainingStateFile(const QString& runDirectory, long step);

class RunFolderLayout {
public:
    // `labels`: the experiment's run labels, in order (they name the subfolders).
    RunFolderLayout(const QString& root, std::vector<std::string> labels);

    const QString& root() const { return root_; }
    int runCount() const { return static_cast<int>(labels_.size()); }
    bool hasSummary() const { return runCount() > 1; }  // a summary of several runs beside theirs
    QString configFile() const;                         // the whole experiment
    QString summaryFile() const;                        // several runs only

    // DIR itself for a single run, else DIR/<label>.
    QString runDirectory(int run) const;
    QString runConfigFile(int run) const;  // several runs only: the run as a single-run experiment
    QString metricsFile(int run) const;
    QString initialWeightsFile(int run) const;
    QString finalWeightsFile(int run) const;
    QString diagnosticsFile(int run) const;
    QString curvatureFile(int run) const;
    QString hessianSpectrumFile(int run) const;
    QString runSummaryFile(int run) const;        // the run's own summary.csv (DIR/summary.csv for a single run)
    QString snapshotsFile(int run) const;         // only with train --snapshots-every
    QString stateDirectory(int run) const;        // RUN/state
    QString stateFile(int run, long step) const;  // RUN/state/step-K.json.gz
    // The initial weights of `run` relative to DIR, as the root config.json's "init" names them.
    std::string initialWeightsRelative(int run) const;

private:
    QString relativeInRun(int run, const char* name) const;
    QString inRun(int run, const char* name) const;
    QString root_;
    std::vector<std::string> labels_;
};

}  // namespace ml
