#include "DecimatingHistory.h"

#include <algorithm>

namespace ml {

DecimatingHistory::DecimatingHistory(int seriesCount, int capacity)
    : capacity_(std::max(2, capacity + capacity % 2)), series_(static_cast<std::size_t>(std::max(0, seriesCount))) {}

DecimatingHistory::Change DecimatingHistory::append(double step, const std::vector<double>& values) {
    const bool keep = offered_ % stride_ == 0;
    ++offered_;
    if (!keep) return Change::Skipped;
    steps_.append(step);
    for (std::size_t k = 0; k < series_.size(); ++k) series_[k].append(k < values.size() ? values[k] : 0.0);
    if (steps_.size() < capacity_) return Change::Appended;
    decimate();
    return Change::Decimated;
}

void DecimatingHistory::decimate() {
    auto keepEven = [](QVector<double>& values) {
        qsizetype kept = 0;
        for (qsizetype k = 0; k < values.size(); k += 2) values[kept++] = values[k];
        values.resize(kept);
    };
    // Sample n (counting every offered one) is stored iff n % stride == 0, and the capacity is even,
    // so keeping every second stored sample is exactly "n % (2 * stride) == 0".
    keepEven(steps_);
    for (QVector<double>& values : series_) keepEven(values);
    stride_ *= 2;
}

}  // namespace ml
