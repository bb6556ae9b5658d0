#pragma once
// One run's metrics.csv while it trains (an append-only log, io/Files.h). Rows are formatted into
// one reused buffer (no allocation per row) and handed to the file at every evaluation, when
// kFlushInterval has passed since the last hand-over, when the buffer holds kBufferBytes, and at
// every row when rows come slower than kFlushAtOnceGap apart: a killed run keeps its rows up to
// the last hand-over, and a slow run loses none. Only whole rows are ever handed over.
#include "io/Files.h"
#include "train/Snapshot.h"

#include <QByteArray>
#include <QString>

#include <chrono>

namespace ml {

class MetricsLog {
public:
    // Starts the file with its header. Throws FileError naming the path.
    explicit MetricsLog(const QString& path);
    void append(const StepMetrics& metrics);
    void close();          // hands over what is left, syncs and closes; later calls do nothing
    void closeUnsynced();  // the same without the sync, for a DurableBatch (io/Files.h) to do

private:
    using Clock = std::chrono::steady_clock;
    static constexpr std::chrono::milliseconds kFlushInterval{1000};
    static constexpr std::chrono::milliseconds kFlushAtOnceGap{100};
    static constexpr qsizetype kBufferBytes = 1 << 16;
    void handOver(Clock::time_point now);

    AppendOnlyFile file_;
    QByteArray buffer_;
    Clock::time_point lastFlush_;
    Clock::time_point lastRow_;
};

}  // namespace ml
