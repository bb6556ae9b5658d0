#pragma once
// A bounded time series of several values sampled at the same steps (e.g. the 16 connections of
// one neuron plus their mean). Memory stays bounded for any run length: when `capacity` samples
// are stored, every second one is dropped and from then on only every second new sample is kept
// (the stride doubles), so the whole run stays covered at an even, gradually coarser density.
//
// Public API
//   DecimatingHistory(seriesCount, capacity)   capacity is rounded up to an even number >= 2
//   append(step, values) -> Appended | Decimated (stored samples were thinned: redraw all)
//                           | Skipped (not kept at the current stride)
//   commitCapacity()        allocates and touches the memory of `capacity` samples now, so that
//                           resident memory does not grow as the history fills (it never exceeds it)
//   steps(), series(k), size(), stride(), capacity()
// The policy alone (runfolder/DecimationStride.h) also serves SnapshotArchive and the run-folder
// reader's MetricsDigest.
#include "runfolder/DecimationStride.h"

#include <QVector>

#include <cstddef>
#include <vector>

namespace ml {

class DecimatingHistory {
public:
    enum class Change { Appended, Decimated, Skipped };

    explicit DecimatingHistory(int seriesCount = 0, int capacity = 20000);

    Change append(double step, const std::vector<double>& values);
    void commitCapacity();

    const QVector<double>& steps() const { return steps_; }
    const QVector<double>& series(int k) const { return series_[static_cast<std::size_t>(k)]; }
    int size() const { return static_cast<int>(steps_.size()); }
    int capacity() const { return policy_.capacity(); }
    long stride() const { return policy_.stride(); }

private:
    DecimationStride policy_;
    QVector<double> steps_;
    std::vector<QVector<double>> series_;
};

}  // namespace ml
