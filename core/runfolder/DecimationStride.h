#pragma once
// The one decimation policy of the project: a series that must span a run of any length within a
// fixed number of stored samples. Up to `capacity` samples every one is kept; when full, every
// second stored sample is dropped and from then on only every second new one is kept (the stride
// doubles), so the whole run stays covered at an even, gradually coarser density.
// Used by the GUI's histories (ui/model/DecimatingHistory.h, SnapshotArchive.h) and by the
// run-folder reader (runfolder/MetricsDigest.h), so a folder read from disk keeps exactly the points
// the live plot would have kept.
//   DecimationStride(capacity)  offer() -> keep the next sample?; after storing a kept one,
//                               full(size) -> true: the stride has doubled, keep every second
//                               stored sample (keepEverySecond(container)).
#include <cstddef>
#include <iterator>
#include <utility>

namespace ml {

// Points per series the plots keep (MetricsHistory's default capacity, the reader's budget).
inline constexpr int kPlotPointBudget = 200000;

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

}  // namespace ml
