#pragma once
// Writes a run folder (layout: train/RunFolderLayout.h) while a LockstepTrainer runs. metrics.csv is
// an append-only log, flushed at every evaluation, when kFlushInterval has passed since the last
// flush, and at every row when rows come slower than kFlushAtOnceGap apart; so a killed run keeps
// its rows up to the last flush (a reader ignores a cut-off last line). Every other file
// is written atomically (io/Files.h): a failed or interrupted write leaves the old file.
#include "io/Files.h"
#include "train/LockstepTrainer.h"
#include "train/RunFolderLayout.h"
#include "train/TrainingObserver.h"

#include <QString>

#include <chrono>
#include <memory>
#include <vector>

namespace ml {

// Add it as an observer before run(). Throws FileError naming the path when the folder or a file
// cannot be written.
class RunFolderWriter : public TrainingObserver {
public:
    RunFolderWriter(const QString& directory, const LockstepTrainer& trainer);
    ~RunFolderWriter() override;

    void stepFinished(const StepMetrics& metrics) override;
    void runFinished(int run, const RunResult& result) override;
    // Writes DIR/summary.csv of several runs (each run's own is written when it finishes). Call
    // after run() returns.
    void finish();

    const RunFolderLayout& layout() const { return layout_; }

private:
    RunFolderLayout layout_;
    const LockstepTrainer& trainer_;
    void appendMetrics(const StepMetrics& metrics);
    using Clock = std::chrono::steady_clock;
    static constexpr std::chrono::milliseconds kFlushInterval{1000};
    static constexpr std::chrono::milliseconds kFlushAtOnceGap{100};
    struct MetricsLog {
        std::unique_ptr<AppendOnlyFile> file;
        Clock::time_point lastFlush;
        Clock::time_point lastRow;
    };
    std::vector<MetricsLog> metrics_;
};

}  // namespace ml
