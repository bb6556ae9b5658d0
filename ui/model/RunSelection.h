#pragma once
// What every matrix view (network diagram, layer heat-map, the inspector's plots) shows, in one
// model they all share: which runs, how (side by side, or the difference A − B of the first two),
// at which step, and the recorded snapshots themselves (RunSnapshots). Views never pick runs on
// their own, so flipping runs or scrubbing moves them all together, and every view fits ONE
// colour limit over all the panels it shows (sharedLimit) instead of re-fitting per run.
//
// Public API
//   begin(labels)            a new comparison: empty archives, every label selectable; shows the
//                            first kDefaultShown runs side by side at the latest step
//   addRuns(labels, archives) appends runs recorded before (a past comparison overlaid); shown too
//   deliver(snapshots)       archives snapshots of the current comparison (snapshot.run = index)
//   clear()                  no runs at all
//   labels(), shown(), setShown(runs), setRunShown(run, on), mode(), setMode(m)
//   step(), setStep(s)       the replayed step; -1 = follow the latest snapshot (live)
//   steps()                  every recorded step of the shown runs (what the scrubber offers)
//   panels()                 what a view draws: one Panel per shown run (side by side), or one
//                            (A − B) in Difference mode with at least two runs shown
//   values(panel, layer, q)  the quantity of a panel: extractQuantity of its run, or the
//                            difference of the two runs' (empty when either does not keep q)
//   availableQuantities()    the quantities at least one shown run keeps (all when none shown)
//   store()                  the archives (the inspector replays whole histories from them)
// Signals: selectionChanged() (runs or mode), stepChanged(), snapshotsArrived(runs) (new data).
#include "model/RunPalette.h"
#include "model/RunSnapshots.h"
#include "model/Quantity.h"

#include <QObject>
#include <QStringList>

#include <vector>

namespace ml {

class RunSelection : public QObject {
    Q_OBJECT
public:
    enum class Mode { SideBySide, Difference };
    static constexpr int kDefaultShown = 4;

    struct Panel {
        int run = -1;                  // A (the shown run)
        int minus = -1;                // B in Difference mode, else -1
        SharedSnapshot snapshot;       // A's snapshot at the step (null: none yet); shared, never copied
        SharedSnapshot minusSnapshot;  // B's
        QString caption;               // "label · step N" or "A − B · step N"
        bool ready() const { return snapshot && (minus < 0 || minusSnapshot); }
    };

    explicit RunSelection(QObject* parent = nullptr);

    void begin(const QStringList& labels);
    // A kept comparison shown again: its recorded archives instead of empty ones.
    void begin(const QStringList& labels, const std::vector<RunSnapshots::ArchivePtr>& archives);
    void addRuns(const QStringList& labels, const std::vector<RunSnapshots::ArchivePtr>& archives);
    void deliver(const std::vector<SharedSnapshot>& snapshots);
    // Values built in place (tests, hand-made snapshots): wrapped once, then shared like the rest.
    void deliver(const std::vector<Snapshot>& snapshots);
    void clear();

    const QStringList& labels() const { return labels_; }
    // How run `run` is drawn (ui/model/RunPalette.h): the comparison's looks, overlays lighter.
    RunLook look(int run) const {
        return run >= 0 && run < static_cast<int>(looks_.size()) ? looks_[static_cast<std::size_t>(run)] : RunLook{run};
    }
    void setLooks(std::vector<RunLook> looks);
    int currentRunCount() const { return currentRuns_; }  // runs of the live comparison (first)
    const std::vector<int>& shown() const { return shown_; }
    void setShown(std::vector<int> runs);
    void setRunShown(int run, bool shown);
    Mode mode() const { return mode_; }
    void setMode(Mode mode);
    bool isDifference() const { return mode_ == Mode::Difference && shown_.size() >= 2; }
    long step() const { return step_; }
    void setStep(long step);
    std::vector<long> steps() const { return store_.steps(shown_); }

    std::vector<Panel> panels() const;
    static Matrix values(const Panel& panel, int layer, Quantity quantity);
    // Whether values(panel, 0, quantity) is non-empty, decided without computing it.
    static bool keeps(const Panel& panel, Quantity quantity);
    std::vector<Quantity> availableQuantities() const;
    const RunSnapshots& store() const { return store_; }

Q_SIGNALS:
    void selectionChanged();
    void stepChanged();
    void snapshotsArrived(const std::vector<int>& runs);

private:
    QStringList labels_;
    int currentRuns_ = 0;
    std::vector<RunLook> looks_;
    std::vector<int> shown_;
    Mode mode_ = Mode::SideBySide;
    long step_ = -1;
    RunSnapshots store_;
};

// The symmetric limit that fits every panel: max |finite value| over all of them (0 when empty).
double maxAbs(const Matrix& values);

}  // namespace ml
