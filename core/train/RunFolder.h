#pragma once
// The run folder: what `momentum-lab-cli train --out DIR` writes and the desktop app opens.
//   DIR/config.json            the resolved experiment (reproduces the run with --config)
//   one run:     DIR/metrics.csv, DIR/weights_initial.json, DIR/weights_final.json
//   several:     DIR/<label>/{config.json, metrics.csv, weights_initial.json, weights_final.json}
//                DIR/summary.csv
//   metrics.csv: step,epoch,train_loss,test_loss,test_accuracy,wall_ms
//   summary.csv: optimizer,final_train_loss,final_test_loss,final_test_accuracy,steps,wall_ms,status
// Every file is written atomically (QSaveFile): a failed or interrupted write leaves the old file.
#include "train/LockstepTrainer.h"
#include "train/TrainingObserver.h"

#include <QByteArray>
#include <QString>

#include <memory>
#include <vector>

class QSaveFile;

namespace ml {

// Writes a run folder while a LockstepTrainer runs (add it as an observer before run()).
// Throws std::runtime_error naming the path when the folder or a file cannot be written.
class RunFolderWriter : public TrainingObserver {
public:
    RunFolderWriter(const QString& directory, const LockstepTrainer& trainer);
    ~RunFolderWriter() override;

    void stepFinished(const StepMetrics& metrics) override;
    void runFinished(int run, const RunResult& result) override;
    // Writes summary.csv (several runs). Call after run() returns.
    void finish();

    // Folder of run `run` (DIR itself for a single run).
    QString runDirectory(int run) const;

private:
    QString directory_;
    const LockstepTrainer& trainer_;
    std::vector<std::unique_ptr<QSaveFile>> metrics_;
};

// One run as read back from a folder.
struct RunRecord {
    RunSpec spec;
    QString directory;  // where its metrics.csv and weights files are
    std::vector<StepMetrics> metrics;
    RunResult result;  // from summary.csv when present, else derived from metrics
};

struct RunFolder {
    QString directory;
    Experiment experiment;
    std::vector<RunRecord> runs;
};

// Reads a folder written by RunFolderWriter. Throws InputError naming the file, line and column.
RunFolder readRunFolder(const QString& directory);

// The folder of one run: `folder` itself when it holds a single run, else its subfolder `label`.
QString runFolderPath(const QString& folder, const std::string& label, std::size_t runCount);

// Atomic write helper shared by all writers; throws std::runtime_error naming the path.
void writeFileAtomically(const QString& path, const QByteArray& contents);

// The CSV forms, shared by the writer, the reader and the GUI's CSV export.
QByteArray metricsHeader();
QByteArray metricsRow(const StepMetrics& metrics);
QByteArray summaryHeader();
QByteArray summaryRow(const RunResult& result);

}  // namespace ml
