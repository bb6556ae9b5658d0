#pragma once
// snapshots.bin: one run's snapshots (train/Snapshot.h), written by `train --snapshots-every N`
// and read by the app's folder-opening path. Described for other tools in docs/guide/snapshot-format.md:
//   line 1   momentum-lab-snapshots 2
//   line 2   {"label":"momentum","layers":[[rows,cols],...],"momentum-mean":"fan-in","bias":"own"}
//   records  one JSON line {"step":100,"epoch":1,"batch_loss":0.53,
//                           "quantities":["weight","gradient",...],"neuron_means":[2,2,1],
//                           "rule_state":[{"name":"tensor_scales","shapes":[[2,1],[2,1]]}],"bytes":N}
//            followed by exactly N bytes of little-endian float32: for each layer in order, each
//            listed quantity as [rows x cols] row by row (bias in the last column), then that
//            layer's neuron_means[l] group means, then each rule_state buffer's shapes[l] row by row.
// Version 1 (no "rule_state") is still read: its snapshots keep no rule state.
// The file is append-only and flushed after every record, so a killed run keeps every complete
// record; a cut-off last record is ignored on reading (like metrics.csv's last line).
#include "io/Files.h"
#include "train/Snapshot.h"

#include <QFile>
#include <QString>

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace ml {

struct SnapshotFileHeader {
    std::string label;
    std::vector<std::pair<long, long>> layers;  // [rows, cols] of each parameter layer
    MeanScope scope = MeanScope::None;          // how the neuron means were grouped
    BiasMode bias = BiasMode::Own;
    // Weight columns per input of each layer (LayerSnapshot::columnsPerInput: k*k for a
    // convolution); empty = 1 for every layer (a dense network).
    std::vector<long> columnsPerInput;
};

class SnapshotFileWriter {
public:
    // Creates (truncates) the file and writes its header. Throws FileError naming the path.
    SnapshotFileWriter(const QString& path, const SnapshotFileHeader& header);
    void append(const Snapshot& snapshot);  // written and flushed at once
    void close();                           // syncs to disk; later calls do nothing
    // The most bytes one record can take for these layer shapes (every quantity present).
    static std::uint64_t recordBytesBound(const std::vector<std::pair<long, long>>& layers);

private:
    AppendOnlyFile file_;
    SnapshotFileHeader header_;
};

// Reads a file record by record, so that a long run's snapshots never need to be in memory at once.
class SnapshotFileReader {
public:
    // Opens the file and reads its header. Throws InputError naming the path and what was expected.
    SnapshotFileReader(const QString& path, int run);
    const SnapshotFileHeader& header() const { return header_; }
    // The next snapshot, or nothing at the end of the file (or at a cut-off last record:
    // truncated() then says so). Throws InputError naming the path, the record and its byte offset.
    std::optional<Snapshot> next();
    bool truncated() const { return truncated_; }
    // After next() returned nothing for a cut-off record: "PATH: the file ends inside record N
    // (byte B), cut off while it was written; the N-1 records before it were read".
    std::string truncationText() const;

    // Following a file still being written (ui/session/RunFolderFollower.h): where the complete
    // records read so far end (the header's end before the first), how many there were, and a
    // later reader of the same file going on from there.
    qint64 endOfRecords() const { return endOfRecords_; }
    int records() const { return records_; }
    void continueAt(qint64 endOfRecords, int records);
    // Passes over the complete records up to `step` without reading their floats; stops before
    // a later record or a cut-off one (which next() then reads or reports).
    void skipThrough(long step);

private:
    [[noreturn]] void fail(const std::string& what) const;
    QFile file_;
    SnapshotFileHeader header_;
    int run_;
    int version_ = 2;  // of the file (its first line)
    int records_ = 0;
    qint64 recordOffset_ = 0;
    qint64 endOfRecords_ = 0;
    bool truncated_ = false;
};

// Every snapshot of a file (tests and small files; the app streams with SnapshotFileReader).
std::vector<Snapshot> readSnapshotFile(const QString& path, int run);

}  // namespace ml
