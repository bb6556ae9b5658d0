#include "study/HyperParameterHeatmap.h"

#include "stats/Descriptive.h"
#include "study/SensitivityPlot.h"

#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace ml {

HyperParameterHeatmap::HyperParameterHeatmap(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    plot_->setToolTip(tr("Click a cell to open its trial's run in the main window"));
    scale_ = new QCPColorScale(plot_);
    plot_->plotLayout()->addElement(0, 1, scale_);
    connect(plot_, &QCustomPlot::mousePress, this, [this](QMouseEvent* event) {
        if (!map_) return;
        int column = 0, row = 0;
        map_->data()->coordToCell(plot_->xAxis->pixelToCoord(event->pos().x()),
                                  plot_->yAxis->pixelToCoord(event->pos().y()), &column, &row);
        const QString folder = folderAt(column, row);
        if (!folder.isEmpty()) Q_EMIT trialClicked(folder);
    });
}

QString HyperParameterHeatmap::folderAt(int column, int row) const {
    for (const Cell& cell : cells_)
        if (cell.column == column && cell.row == row) return cell.folder;
    return {};
}

void HyperParameterHeatmap::show(const StudyResults& results, const QString& task, const QString& optimizer,
                                 const QString& x, const QString& y) {
    plot_->clearPlottables();
    plot_->clearItems();
    scale_->setVisible(false);
    map_ = nullptr;
    cells_.clear();
    clipped_ = 0;

    // The trials of this optimizer: both values and the score, from the sensitivity rows.
    struct Trial {
        double x = NAN, y = NAN, score = NAN;
        QString folder;
    };
    std::map<int, Trial> trials;
    for (const SensitivityPoint& p : results.sensitivity) {
        if (p.task != task || p.optimizer != optimizer) continue;
        Trial& t = trials[p.trial];
        if (p.parameter == x) t.x = p.value;
        if (p.parameter == y) t.y = p.value;
        t.score = p.score;
        t.folder = p.folder;
    }
    std::set<double> xs, ys;
    for (const auto& [number, t] : trials)
        if (!std::isnan(t.x) && !std::isnan(t.y)) xs.insert(t.x), ys.insert(t.y);
    if (x == y || xs.empty() || ys.empty()) {
        auto* note = new QCPItemText(plot_);
        note->position->setType(QCPItemPosition::ptAxisRectRatio);
        note->position->setCoords(0.5, 0.5);
        note->setText(tr("The heat-map needs two different searched hyper-parameters of this optimizer."));
        plot_->replot();
        return;
    }
    const std::vector<double> xv(xs.begin(), xs.end()), yv(ys.begin(), ys.end());
    map_ = new QCPColorMap(plot_->xAxis, plot_->yAxis);
    map_->data()->setSize(static_cast<int>(xv.size()), static_cast<int>(yv.size()));
    map_->data()->setRange(QCPRange(0, static_cast<double>(xv.size() - 1)),
                           QCPRange(0, static_cast<double>(yv.size() - 1)));
    map_->data()->fill(NAN);
    QSharedPointer<QCPAxisTickerText> xTicks(new QCPAxisTickerText), yTicks(new QCPAxisTickerText);
    for (std::size_t i = 0; i < xv.size(); ++i) xTicks->addTick(static_cast<double>(i), QString::number(xv[i], 'g', 3));
    for (std::size_t i = 0; i < yv.size(); ++i) yTicks->addTick(static_cast<double>(i), QString::number(yv[i], 'g', 3));
    const auto index = [](const std::vector<double>& values, double v) {
        return static_cast<int>(std::lower_bound(values.begin(), values.end(), v) - values.begin());
    };
    for (const auto& [number, t] : trials) {
        if (std::isnan(t.x) || std::isnan(t.y)) continue;
        const int column = index(xv, t.x), row = index(yv, t.y);
        cells_.push_back({column, row, t.folder});
        if (std::isfinite(t.score)) {
            map_->data()->setCell(column, row, t.score);
        } else {  // diverged: no colour can say it, a cross does
            auto* cross = new QCPItemText(plot_);
            cross->position->setCoords(column, row);
            cross->setText(QStringLiteral("×"));
        }
    }
    QCPColorGradient gradient =
        QCPColorGradient(QCPColorGradient::gpThermal).inverted();  // lower score (better) is brighter
    gradient.setNanHandling(QCPColorGradient::nhTransparent);      // no trial there: no colour

    map_->setInterpolate(false);
    scale_->setVisible(true);
    // Scores of a bad learning rate can be many times the good ones: a log colour axis keeps the good ones apart.
    bool positive = true;
    for (const auto& [number, t] : trials) positive = positive && (!std::isfinite(t.score) || t.score > 0);
    scale_->setDataScaleType(positive ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (positive) scale_->axis()->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    else scale_->axis()->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    map_->setColorScale(scale_);
    scale_->setGradient(gradient);  // after setColorScale: the scale's gradient is the map's
    // Robust colour range: the best score up to Tukey's upper fence of the drawn scores (in log10
    // on a log axis), never past the worst.
    std::vector<double> scales;
    double best = INFINITY, worst = -INFINITY;
    for (const auto& [number, t] : trials)
        if (std::isfinite(t.score) && !std::isnan(t.x) && !std::isnan(t.y)) {
            scales.push_back(positive ? std::log10(t.score) : t.score);
            best = std::min(best, t.score);
            worst = std::max(worst, t.score);
        }
    double top = worst;
    if (!scales.empty())
        top = std::min(worst, positive ? std::pow(10.0, stats::upperFence(scales)) : stats::upperFence(scales));
    for (const auto& [number, t] : trials) clipped_ += std::isfinite(t.score) && t.score > top ? 1 : 0;
    QString label = selectionScoreTitle(results.selection);
    if (clipped_ > 0) label += tr("; %n outlier(s) clipped", nullptr, clipped_);
    scale_->axis()->setLabel(label);
    if (scales.empty()) map_->rescaleDataRange(true);
    else
        map_->setDataRange(best < top
                               ? QCPRange(best, top)
                               : QCPRange(best - std::abs(best) * 0.1 - 1e-12, best + std::abs(best) * 0.1 + 1e-12));
    plot_->xAxis->setTicker(xTicks);
    plot_->xAxis->setTickLabelRotation(xv.size() > 8 ? 60 : 0);
    plot_->yAxis->setTicker(yTicks);
    plot_->xAxis->setLabel(x);
    plot_->yAxis->setLabel(y);
    plot_->xAxis->setRange(-0.5, static_cast<double>(xv.size()) - 0.5);
    plot_->yAxis->setRange(-0.5, static_cast<double>(yv.size()) - 0.5);
    plot_->replot();
}

}  // namespace ml
