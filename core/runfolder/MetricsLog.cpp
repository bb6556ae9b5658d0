#include "runfolder/MetricsLog.h"

#include "runfolder/RunCsv.h"

#include <cmath>

namespace ml {

MetricsLog::MetricsLog(const QString& path) : file_(path), lastFlush_(Clock::now()), lastRow_(lastFlush_) {
    buffer_.reserve(kBufferBytes + 256);  // one row more than the hand-over size
    file_.append(metricsHeader());
    file_.flush();
}

void MetricsLog::append(const StepMetrics& metrics) {
    appendMetricsRow(buffer_, metrics);
    const Clock::time_point now = Clock::now();
    // Slow steps hand every row over: the next step may take longer than the interval.
    if (!std::isnan(metrics.fullTrainLoss) || buffer_.size() >= kBufferBytes || now - lastFlush_ >= kFlushInterval ||
        now - lastRow_ >= kFlushAtOnceGap)
        handOver(now);
    lastRow_ = now;
}

void MetricsLog::handOver(Clock::time_point now) {
    file_.append(buffer_);
    file_.flush();
    buffer_.resize(0);  // keeps the capacity
    lastFlush_ = now;
}

void MetricsLog::close() {
    if (!buffer_.isEmpty()) handOver(Clock::now());
    file_.close();
}

void MetricsLog::closeUnsynced() {
    if (!buffer_.isEmpty()) handOver(Clock::now());
    file_.closeUnsynced();
}

}  // namespace ml
