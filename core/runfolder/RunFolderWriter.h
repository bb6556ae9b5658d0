#pragma once
// Writes a run folder (layout: runfolder/RunFolderLayout.h) while a LockstepTrainer runs. metrics.csv is
// an append-only log (runfolder/MetricsLog.h): a killed run keeps its rows up to the last flush (a
// reader ignores a cut-off last line). Every other file is written atomically (io/Files.h): a
// failed or interrupted write leaves the old file.
#include "train/LockstepTrainer.h"
#include "runfolder/MetricsLog.h"
#include "runfolder/RunFolderLayout.h"
#include "train/TrainingObserver.h"

#include <QString>

#include <memory>
#include <vector>

namespace ml {

class DurableBatch;

// Add it as an observer before run(). Throws FileError naming the path when the folder or a file
// cannot be written. With a `batch` (a study trial, whose marker says when its folder is whole),
// every file is written in place at once and synced later by the batch's commit().
class RunFolderWriter : public TrainingObserver {
public:
    RunFolderWriter(const QString& directory, const LockstepTrainer& trainer, DurableBatch* batch = nullptr);
    ~RunFolderWriter() override;

    void stepFinished(const StepMetrics& metrics) override;
    void runFinished(int run, const RunResult& result) override;
    // Writes DIR/summary.csv of several runs (each run's own is written when it finishes). Call
    // after run() returns.
    void finish();

    const RunFolderLayout& layout() const { return layout_; }

private:
    void writeFile(const QString& path, QByteArrayView contents);  // atomically, or through the batch

    RunFolderLayout layout_;
    const LockstepTrainer& trainer_;
    DurableBatch* batch_;
    std::vector<std::unique_ptr<MetricsLog>> metrics_;
};

}  // namespace ml
