#include "diagnostics/DiagnosticsRowWriter.h"

#include "diagnostics/DiagnosticsColumns.h"
#include "io/NumberText.h"

#include <algorithm>
#include <array>

namespace ml {

namespace {

// Layer l's rows: its layer row (no neuron), then one per neuron.
void appendLayerRows(QByteArray& out, long step, std::size_t l, std::span<const UnitDiagnostics> units) {
    std::array<char, 16 * kNumberTextBytes> row;
    for (std::size_t u = 0; u < units.size(); ++u) {
        char* end = row.data() + row.size();
        char* p = writeInteger(row.data(), end, step);
        *p++ = ',';
        p = writeInteger(p, end, static_cast<long long>(l));
        *p++ = ',';
        if (u > 0) p = writeInteger(p, end, static_cast<long long>(u - 1));  // the layer row has none
        const UnitDiagnostics& d = units[u];
        for (const float value : {d.gradientNorm, d.updateNorm, d.updateToWeight, d.distanceFromInitial,
                                  d.cosMomentGradient, d.meanShare, d.momentCv, d.gradientSnr}) {
            *p++ = ',';
            p = writeShortest(p, end, value);
        }
        *p++ = '\n';
        out.append(row.data(), p - row.data());
    }
}

}  // namespace

QByteArray diagnosticsHeader() {
    QByteArray header;
    for (const std::string_view column : kDiagnosticsColumns)
        header.append(header.isEmpty() ? "" : ",").append(column.data(), qsizetype(column.size()));
    return header.append('\n');
}

void appendDiagnosticsRows(QByteArray& out, long step, std::span<const UnitDiagnostics> units,
                           std::span<const std::size_t> unitsPerLayer) {
    std::size_t first = 0;
    for (std::size_t l = 0; l < unitsPerLayer.size(); first += unitsPerLayer[l++])
        appendLayerRows(out, step, l, units.subspan(first, unitsPerLayer[l]));
}

void appendDiagnosticsRows(QByteArray& out, long step, const StepDiagnostics& diagnostics) {
    for (std::size_t l = 0; l < diagnostics.layerCount(); ++l) appendLayerRows(out, step, l, diagnostics.layer(l));
}

DiagnosticsRowWriter::DiagnosticsRowWriter(const QString& path, const Parameters& shapes, int slotCount)
    : file_(path), slots_(static_cast<std::size_t>(std::max(1, slotCount))) {
    std::size_t units = 0;
    for (const Matrix& layer : shapes) {
        unitsPerLayer_.push_back(static_cast<std::size_t>(1 + layer.rows()));
        units += unitsPerLayer_.back();
    }
    for (Slot& slot : slots_) slot.units.resize(units);
    buffer_.reserve(2 * kBufferBytes);  // grows once more only if one step's rows exceed 64 KiB
    buffer_.append(diagnosticsHeader());
    thread_ = std::thread([this] { writeLoop(); });
}

DiagnosticsRowWriter::~DiagnosticsRowWriter() {
    try {
        close();
    } catch (...) {  // a destructor must not throw; close() reports errors to whoever calls it
    }
}

void DiagnosticsRowWriter::rethrowWriterError() {
    if (error_) std::rethrow_exception(error_);  // kept: the writer thread has ended
}

void DiagnosticsRowWriter::push(long step, const StepDiagnostics& diagnostics) {
    std::size_t tail;
    {
        std::unique_lock lock(mutex_);
        freed_.wait(lock, [this] { return count_ < slots_.size() || error_ || closing_; });
        rethrowWriterError();
        if (closing_) return;  // pushed after close(): nowhere to write
        tail = (head_ + count_) % slots_.size();
    }
    // The writer reads only the slots counted in count_: this one is the training thread's.
    Slot& slot = slots_[tail];
    slot.step = step;
    auto out = slot.units.begin();
    for (std::size_t l = 0; l < diagnostics.layerCount(); ++l)
        out = std::copy(diagnostics.layer(l).begin(), diagnostics.layer(l).end(), out);
    bool wake;
    {
        std::lock_guard lock(mutex_);
        wake = ++count_ == wakeAt();
    }
    if (wake) filled_.notify_one();
}

void DiagnosticsRowWriter::writeLoop() {
    std::unique_lock lock(mutex_);
    for (;;) {
        // Woken once per half ring, not per step: a wake-up costs more than formatting one step.
        if (count_ == 0) filled_.wait(lock, [this] { return count_ >= wakeAt() || closing_; });
        if (count_ == 0) break;  // closing, everything written
        const Slot& slot = slots_[head_];
        lock.unlock();
        try {
            appendDiagnosticsRows(buffer_, slot.step, slot.units, unitsPerLayer_);
            if (buffer_.size() >= kBufferBytes) {
                file_.append(buffer_);
                file_.flush();
                buffer_.resize(0);  // keeps the capacity
            }
        } catch (...) {
            lock.lock();
            error_ = std::current_exception();
            freed_.notify_all();
            return;
        }
        lock.lock();
        head_ = (head_ + 1) % slots_.size();
        --count_;
        freed_.notify_one();
    }
}

void DiagnosticsRowWriter::close() {
    if (!thread_.joinable()) return;
    {
        std::lock_guard lock(mutex_);
        closing_ = true;
    }
    filled_.notify_one();
    thread_.join();
    std::lock_guard lock(mutex_);
    rethrowWriterError();
    file_.append(buffer_);
    buffer_.resize(0);
    file_.close();
}

}  // namespace ml
