#pragma once
// The Dolan–Moré performance profile of a study with several tasks (stats::PerformanceProfile):
// rho_s(tau), the fraction of tasks on which optimizer s is within a factor tau of the best, as a
// step plot per optimizer from tau = 1 to 4; the legend gives each optimizer's area up to tau = 4
// (larger is better). The cost per task is results.json's (median steps to target, or median
// final test loss).
#include "study/StudyResults.h"

#include <QWidget>

class QCustomPlot;

namespace ml {

class PerformanceProfilePlot : public QWidget {
    Q_OBJECT
public:
    static constexpr double kTauMax = 4.0;

    explicit PerformanceProfilePlot(QWidget* parent = nullptr);

    // Draws the profile; a note instead when there are fewer than two tasks or a cost is missing.
    void show(const StudyResults& results);
    QCustomPlot* plot() const { return plot_; }
    int lineCount() const;  // optimizers drawn
    double area(int line) const { return areas_.at(static_cast<std::size_t>(line)); }

private:
    QCustomPlot* plot_;
    std::vector<double> areas_;
};

}  // namespace ml
