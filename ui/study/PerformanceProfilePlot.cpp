#include "study/PerformanceProfilePlot.h"

#include "model/RunPalette.h"
#include "stats/PerformanceProfile.h"

#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace ml {

PerformanceProfilePlot::PerformanceProfilePlot(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    plot_->legend->setVisible(true);
    plot_->legend->setBrush(QColor(255, 255, 255, 190));
    plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
    plot_->xAxis->setLabel(tr("τ (cost within a factor τ of the best)"));
    plot_->yAxis->setLabel(tr("ρ(τ): fraction of tasks"));
}

int PerformanceProfilePlot::lineCount() const { return plot_->graphCount(); }

void PerformanceProfilePlot::show(const StudyResults& results) {
    plot_->clearGraphs();
    plot_->clearItems();
    areas_.clear();
    const auto note = [this](const QString& text) {
        auto* item = new QCPItemText(plot_);
        item->position->setType(QCPItemPosition::ptAxisRectRatio);
        item->position->setCoords(0.5, 0.5);
        item->setText(text);
        plot_->replot();
    };
    const std::vector<std::vector<double>>& costs = results.profileCosts;
    if (costs.size() < 2)
        return note(tr("The performance profile compares optimizers across several tasks;\nthis study has one."));
    for (const std::vector<double>& row : costs)
        if (static_cast<int>(row.size()) != results.optimizers.size() ||
            std::any_of(row.begin(), row.end(), [](double c) { return !(c > 0); }))
            return note(tr("Not every optimizer has a finished final run on every task yet."));
    const stats::PerformanceProfile profile(costs);

    for (int o = 0; o < profile.solverCount(); ++o) {
        // rho is a step function that jumps at each task's ratio: draw exactly those corners.
        std::set<double> jumps{1.0, kTauMax};
        for (int t = 0; t < profile.taskCount(); ++t)
            if (profile.ratio(t, o) <= kTauMax) jumps.insert(profile.ratio(t, o));
        QVector<double> tau, rho;
        for (const double x : jumps) {
            tau.append(x);
            rho.append(profile.fractionWithin(o, x));
        }
        areas_.push_back(profile.area(o, kTauMax));
        QCPGraph* graph = plot_->addGraph();
        graph->setData(tau, rho, true);
        graph->setLineStyle(QCPGraph::lsStepLeft);
        graph->setPen(QPen(runColor(o), 2.0));
        graph->setName(tr("%1 (area %2)").arg(results.optimizers[o]).arg(areas_.back(), 0, 'f', 2));
    }
    plot_->xAxis->setRange(1.0, kTauMax);
    plot_->yAxis->setRange(-0.03, 1.03);
    plot_->yAxis->setLabel(tr("ρ(τ): fraction of the %1 tasks").arg(costs.size()));
    plot_->xAxis->setLabel(tr("τ: %1 within a factor τ of the best").arg(results.profileCost));
    plot_->replot();
}

}  // namespace ml
