#include "stats/PerformanceProfile.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ml::stats {

PerformanceProfile::PerformanceProfile(const std::vector<std::vector<double>>& costs) {
    solvers_ = costs.empty() ? 0 : static_cast<int>(costs.front().size());
    for (const std::vector<double>& task : costs) {
        if (static_cast<int>(task.size()) != solvers_)
            throw std::invalid_argument("performance profile: every task needs one cost per solver");
        if (std::any_of(task.begin(), task.end(), [](double c) { return !(c > 0.0); }))
            throw std::invalid_argument("performance profile: costs must be > 0 (infinity = failed)");
        const double best = *std::min_element(task.begin(), task.end());
        std::vector<double> ratios;
        // A task no solver finished ranks every solver as failed on it.
        for (double cost : task) ratios.push_back(std::isinf(best) ? INFINITY : cost / best);
        ratios_.push_back(std::move(ratios));
    }
}

double PerformanceProfile::fractionWithin(int solver, double tau) const {
    if (ratios_.empty()) return NAN;
    const auto within = std::count_if(ratios_.begin(), ratios_.end(),
                                      [&](const std::vector<double>& task) { return task[solver] <= tau; });
    return static_cast<double>(within) / static_cast<double>(ratios_.size());
}

double PerformanceProfile::area(int solver, double tauMax) const {
    if (ratios_.empty()) return NAN;
    double total = 0.0;  // each task contributes (tauMax - r) / tasks once its ratio r is reached
    for (const std::vector<double>& task : ratios_)
        if (task[solver] <= tauMax) total += tauMax - task[solver];
    return total / static_cast<double>(ratios_.size());
}

}  // namespace ml::stats
