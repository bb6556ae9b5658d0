#include "model/DecimatingHistory.h"

#include <algorithm>

namespace ml {

DecimatingHistory::DecimatingHistory(int seriesCount, int capacity)
    : policy_(capacity), series_(static_cast<std::size_t>(std::max(0, seriesCount))) {}

void DecimatingHistory::commitCapacity() {
    // reserve() alone maps pages the kernel only provides when first written: writing zeros over
    // the whole capacity makes them resident now. Thinning (erase) and appends keep the block.
    auto commit = [capacity = capacity()](QVector<double>& values) {
        const qsizetype size = values.size();
        values.reserve(capacity);
        values.resize(capacity);
        values.resize(size);
    };
    commit(steps_);
    for (QVector<double>& values : series_) commit(values);
}

DecimatingHistory::Change DecimatingHistory::append(double step, const std::vector<double>& values) {
    if (!policy_.offer()) return Change::Skipped;
    steps_.append(step);
    for (std::size_t k = 0; k < series_.size(); ++k) series_[k].append(k < values.size() ? values[k] : 0.0);
    if (!policy_.full(steps_.size())) return Change::Appended;
    keepEverySecond(steps_);
    for (QVector<double>& values : series_) keepEverySecond(values);
    return Change::Decimated;
}

}  // namespace ml
