#pragma once
// The run history: every comparison of this session (trained, stopped or opened from a run
// folder) is kept when the next one starts, with its experiment, its convergence rows, its
// results and its recorded snapshots (shared archives: keeping them copies nothing). Any record
// can be shown again or overlaid on the current comparison (RunComparison::show / overlay,
// RunSelection::addRuns).
#include "model/RunPalette.h"
#include "model/RunSnapshots.h"
#include "experiment/Experiment.h"
#include "train/Snapshot.h"

#include <QDateTime>
#include <QObject>
#include <QString>

#include <vector>

namespace ml {

struct ComparisonRecord {
    int number = 0;  // #1, #2, ... in this session (set by ComparisonHistory::add)
    Experiment experiment;
    QString source;  // the run folder, or empty for a training
    QDateTime finished;
    std::vector<std::string> labels;
    std::vector<std::string> optimizers;
    std::vector<std::vector<StepMetrics>> metrics;  // per run, as kept by the MetricsHistory
    std::vector<RunResult> results;
    long stepsPerEpoch = 0;
    ImageShape imageShape;
    std::vector<RunSnapshots::ArchivePtr> archives;  // per run (may be fewer: none recorded)
    std::vector<int> colorSlots;                     // per run, its colour for life (empty: the run's index)

    int runCount() const { return static_cast<int>(labels.size()); }
    QString title() const;            // "#2 seed diagram · 2 runs · 17:40"
    QString runLabel(int run) const;  // "momentum #2": a run of this record among others
    // Each run's look: its colour slot, `kept` when overlaid on another comparison.
    std::vector<RunLook> looks(bool kept) const;
};

class ComparisonHistory : public QObject {
    Q_OBJECT
public:
    explicit ComparisonHistory(QObject* parent = nullptr) : QObject(parent) {}

    // Keeps the record (numbered in order); records without runs are not kept.
    void add(ComparisonRecord record);
    const std::vector<ComparisonRecord>& records() const { return records_; }
    const ComparisonRecord* find(int number) const;
    int size() const { return static_cast<int>(records_.size()); }

Q_SIGNALS:
    void changed();

private:
    std::vector<ComparisonRecord> records_;
    int next_ = 1;
};

}  // namespace ml
