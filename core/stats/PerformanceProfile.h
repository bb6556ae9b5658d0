#pragma once
// Performance profiles (Dolan & Moré 2002) across several tasks: for solver s and task p the ratio
// r_ps = cost_ps / min_s' cost_ps' (cost: lower is better, e.g. steps to target; infinity = failed),
// and rho_s(tau) = fraction of tasks with r_ps <= tau. rho_s(1) is how often s was best; the area
// under rho_s up to tau = 4 sums the profile in one number (larger is better).
#include <vector>

namespace ml::stats {

class PerformanceProfile {
public:
    // costs[task][solver]; every task row has one entry per solver. Costs must be > 0 or infinite.
    // Throws std::invalid_argument on ragged rows or non-positive costs.
    explicit PerformanceProfile(const std::vector<std::vector<double>>& costs);

    int solverCount() const { return solvers_; }
    int taskCount() const { return static_cast<int>(ratios_.size()); }
    double ratio(int task, int solver) const { return ratios_[task][solver]; }
    // rho_s(tau) for tau >= 1.
    double fractionWithin(int solver, double tau) const;
    // Integral of rho_s over [1, tauMax], exact for the step function.
    double area(int solver, double tauMax = 4.0) const;

private:
    int solvers_ = 0;
    std::vector<std::vector<double>> ratios_;
};

}  // namespace ml::stats
