#pragma once
// One run's diagnostics.csv, formatted and written on a thread of its own: the training thread only
// copies a step's figures (StepDiagnostics' UnitDiagnostics, 32 bytes per unit) into one of a fixed
// ring of slots, and wakes the writer thread once half of them are full (a wake-up, a system call
// and a context switch, once per 16 steps rather than per step); that thread turns them into rows
// (appendDiagnosticsRows) and appends them to the file in 64 KiB pieces, flushed to the operating
// system each time, as the training thread did before. Nothing is dropped: push() waits while every
// slot is full, close() writes what is left, then syncs and closes the file. The slots and the row
// buffer are sized once (no allocation per step). A write error on the writer thread comes back as
// its FileError from the next push() or from close().
#include "diagnostics/StepDiagnostics.h"
#include "io/Files.h"

#include <QByteArray>
#include <QString>

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

namespace ml {

QByteArray diagnosticsHeader();
// Appends one step's rows: `units` holds every layer's UnitDiagnostics in turn, unitsPerLayer[l] of
// them for layer l (its layer row, then its neurons). The buffer's capacity is reused.
void appendDiagnosticsRows(QByteArray& out, long step, std::span<const UnitDiagnostics> units,
                           std::span<const std::size_t> unitsPerLayer);
// The same from a StepDiagnostics.
void appendDiagnosticsRows(QByteArray& out, long step, const StepDiagnostics& diagnostics);

class DiagnosticsRowWriter {
public:
    // Creates the file (throws FileError naming the path) with its header; `shapes`: the network's
    // parameters (only their row counts are read); `slotCount` >= 1 steps may wait to be written.
    DiagnosticsRowWriter(const QString& path, const Parameters& shapes, int slotCount = 32);
    ~DiagnosticsRowWriter();  // close(), its errors swallowed
    DiagnosticsRowWriter(const DiagnosticsRowWriter&) = delete;
    DiagnosticsRowWriter& operator=(const DiagnosticsRowWriter&) = delete;

    // Hands over one step's figures (waits only while every slot is full).
    void push(long step, const StepDiagnostics& diagnostics);
    // Every pushed step written, the file synced and closed; later calls do nothing.
    void close();

private:
    static constexpr qsizetype kBufferBytes = 1 << 16;
    struct Slot {
        long step = 0;
        std::vector<UnitDiagnostics> units;
    };
    void writeLoop();
    void rethrowWriterError();                                      // with mutex_ held
    std::size_t wakeAt() const { return (slots_.size() + 1) / 2; }  // filled slots that wake the writer

    AppendOnlyFile file_;
    std::vector<std::size_t> unitsPerLayer_;
    std::vector<Slot> slots_;
    QByteArray buffer_;  // writer thread only (until it has ended)
    std::mutex mutex_;
    std::condition_variable filled_, freed_;  // a slot to write / a slot to fill
    std::size_t head_ = 0, count_ = 0;        // the oldest slot not yet written, how many wait
    bool closing_ = false;
    std::exception_ptr error_;
    std::thread thread_;
};

}  // namespace ml
