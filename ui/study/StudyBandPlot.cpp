#include "study/StudyBandPlot.h"

#include "model/RunPalette.h"
#include "views/DivergingColorScale.h"

#include <QVBoxLayout>
#include <qcustomplot.h>

#include <cmath>

namespace ml {

QString seriesTitle(const QString& series) { return QString(series).replace('_', ' '); }

StudyBandPlot::StudyBandPlot(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->legend->setVisible(true);
    plot_->legend->setBrush(QColor(255, 255, 255, 190));  // the curves stay visible behind it
    plot_->xAxis->setLabel(tr("step"));
}

void StudyBandPlot::show(const StudyResults& results, const QString& task, const QString& series, Statistic statistic,
                         bool logY) {
    plot_->clearGraphs();
    bands_ = 0;
    const bool median = statistic == Statistic::MedianIqr;
    // A log axis cannot show zero or negative values (an accuracy of 0, a band reaching 0): those points are left out.
    const auto usable = [logY](double v) { return std::isfinite(v) && (!logY || v > 0); };
    for (int o = 0; o < results.optimizers.size(); ++o) {
        const StudyBand* band = results.band(task, results.optimizers[o], series);
        if (!band || band->points.empty()) continue;
        QVector<double> steps, centre, low, high;
        for (const StudyBandPoint& p : band->points) {
            const double c = median ? p.value.median : p.value.mean;
            const double lo = median ? p.value.q1 : p.value.ciLow;
            const double hi = median ? p.value.q3 : p.value.ciHigh;
            if (!usable(c) || !usable(lo) || !usable(hi)) continue;
            steps.append(static_cast<double>(p.step));
            centre.append(c);
            low.append(lo);
            high.append(hi);
        }
        const QColor colour = runColor(o);
        QColor fill = colour;
        fill.setAlpha(50);
        QCPGraph* lower = plot_->addGraph();
        lower->setData(steps, low, true);
        lower->setPen(Qt::NoPen);
        lower->removeFromLegend();
        QCPGraph* upper = plot_->addGraph();
        upper->setData(steps, high, true);
        upper->setPen(Qt::NoPen);
        upper->setBrush(fill);
        upper->setChannelFillGraph(lower);
        upper->removeFromLegend();
        QCPGraph* line = plot_->addGraph();
        line->setData(steps, centre, true);
        line->setPen(QPen(colour, 2));
        line->setName(results.optimizers[o]);
        if (steps.size() == 1) line->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 6));
        ++bands_;
    }
    plot_->yAxis->setLabel(seriesTitle(series) + (median ? tr(" (median, IQR)") : tr(" (mean, 95 % CI)")));
    setLogarithmic(plot_->yAxis, logY);
    plot_->rescaleAxes();
    plot_->replot();
}

}  // namespace ml
