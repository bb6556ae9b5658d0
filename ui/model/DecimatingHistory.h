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
//   steps(), series(k), size(), stride(), capacity()
// The policy alone, for other storage (SnapshotArchive, the neuron inspector's):
//   DecimationStride(capacity)  offer() -> keep the next sample?; after storing a kept one,
//                               full(size) -> true: the stride has doubled, keep every second
//                               stored sample (keepEverySecond(container)).
#include <QVector>

#include <cstddef>
#include <iterator>
#include <utility>
#include <vector>

namespace ml {

class DecimationStride {
public:
    explicit DecimationStride(int capacity = 20000);

    bool offer() { return offered_++ % stride_ == 0; }
    // Sample n (counting every offered one) is stored iff n % stride == 0, and the capacity is
    // even, so keeping every second stored sample is exactly "n % (2 * stride) == 0".
    bool full(long size) {
        if (size < capacity_) return false;
        stride_ *= 2;
        return true;
    }
    int capacity() const { return capacity_; }
    long stride() const { return stride_; }

private:
    int capacity_;
    long stride_ = 1;
    long offered_ = 0;  // samples offered so far
};

template <typename Container>
void keepEverySecond(Container& values) {
    const auto size = static_cast<std::ptrdiff_t>(std::size(values));
    std::ptrdiff_t kept = 0;
    for (std::ptrdiff_t k = 0; k < size; k += 2, ++kept)
        if (kept != k) values[kept] = std::move(values[k]);  // never a self-move (it may empty a vector)
    values.erase(std::begin(values) + kept, std::end(values));
}

class DecimatingHistory {
public:
    enum class Change { Appended, Decimated, Skipped };

    explicit DecimatingHistory(int seriesCount = 0, int capacity = 20000);

    Change append(double step, const std::vector<double>& values);

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
