#pragma once
// The convergence data of every run, kept with bounded memory however long training runs.
// Per run two tracks, each a DecimatingHistory (x = step):
//   Train       every step:      epoch, wall seconds, batch training loss
//   Evaluation  each evaluation: epoch, wall seconds, test loss, test accuracy
// Memory bound: each track keeps every point up to `capacity` (default 200,000); when full it
// drops every second point and from then on keeps only every second new one (the stride
// doubles), so a track never holds more than `capacity` points and still spans the whole run.
// decimations(run, track) counts the thinnings, so a view knows when to redraw from scratch.
// The Train track's memory (4 x 8 bytes x capacity: 6.4 MB per run) is committed by reset(), so
// the app's resident memory does not creep up while it fills; evaluations are few and grow.
#include "model/DecimatingHistory.h"
#include "model/RunPalette.h"
#include "train/Snapshot.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ml {

class MetricsHistory {
public:
    static constexpr int kDefaultCapacity = kPlotPointBudget;
    enum class Track { Train, Evaluation };
    // Series indexes inside a track's DecimatingHistory.
    static constexpr int kEpoch = 0;
    static constexpr int kWallSeconds = 1;
    static constexpr int kTrainLoss = 2;     // Train track
    static constexpr int kTestLoss = 2;      // Evaluation track
    static constexpr int kTestAccuracy = 3;  // Evaluation track

    explicit MetricsHistory(int capacity = kDefaultCapacity);

    // Forgets everything and prepares one entry per label. stepsPerEpoch = 0: unknown.
    void reset(const std::vector<std::string>& labels, long stepsPerEpoch);
    void append(const StepMetrics& metrics);  // appendTrain, then appendEvaluation when evaluated
    void append(const std::vector<StepMetrics>& metrics);
    // One track alone: a run folder's MetricsDigest holds each track already decimated.
    void appendTrain(const StepMetrics& metrics);
    void appendEvaluation(const StepMetrics& metrics);

    int runCount() const { return static_cast<int>(runs_.size()); }
    const std::string& label(int run) const { return runs_.at(static_cast<std::size_t>(run)).label; }
    // How run `run` is drawn (reset: its own colour slot); an overlaid run keeps its own colour.
    RunLook look(int run) const {
        return run < static_cast<int>(looks_.size()) ? looks_[static_cast<std::size_t>(run)] : RunLook{run};
    }
    const std::vector<RunLook>& looks() const { return looks_; }
    void setLooks(std::vector<RunLook> looks) { looks_ = std::move(looks); }
    std::vector<std::string> labels() const;
    long stepsPerEpoch() const { return stepsPerEpoch_; }
    const DecimatingHistory& track(int run, Track track) const;
    std::uint64_t decimations(int run, Track track) const;
    // Increments on every reset(): views rebuild their graphs.
    std::uint64_t generation() const { return generation_; }
    bool hasAccuracy() const { return hasAccuracy_; }
    int capacity() const { return capacity_; }
    std::size_t storedPoints() const;

    // A stored point's fractional epoch (step / stepsPerEpoch when known, else its epoch number).
    double epochAt(const DecimatingHistory& track, int index) const;
    // The stored rows of one run, train and evaluation points merged by step (for CSV export).
    std::vector<StepMetrics> rows(int run) const;

private:
    std::vector<RunLook> looks_;
    struct Run {
        std::string label;
        DecimatingHistory train;
        DecimatingHistory evaluation;
        std::uint64_t trainDecimations = 0;
        std::uint64_t evaluationDecimations = 0;
    };
    int capacity_;
    long stepsPerEpoch_ = 0;
    std::uint64_t generation_ = 0;
    bool hasAccuracy_ = false;
    std::vector<Run> runs_;
};

}  // namespace ml
