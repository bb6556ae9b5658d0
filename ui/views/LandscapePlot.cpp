#include "views/LandscapePlot.h"

#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ml {

namespace {

// Light (low loss) to dark grey in a dozen bands: the run colours stay readable on every band.
QCPColorGradient bandedGreys() {
    QCPColorGradient gradient;
    gradient.setColorStopAt(0.0, QColor(250, 250, 250));
    gradient.setColorStopAt(1.0, QColor(70, 70, 70));
    gradient.setLevelCount(12);
    gradient.setNanHandling(QCPColorGradient::nhTransparent);
    return gradient;
}

}  // namespace

LandscapePlot::LandscapePlot(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    map_ = new QCPColorMap(plot_->xAxis, plot_->yAxis);
    scale_ = new QCPColorScale(plot_);
    plot_->plotLayout()->addElement(0, 1, scale_);
    scale_->axis()->setLabel(tr("training loss"));
    map_->setColorScale(scale_);
    map_->setGradient(bandedGreys());
    map_->setInterpolate(false);
    auto* margins = new QCPMarginGroup(plot_);
    plot_->axisRect()->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    scale_->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    // The legend in a row under the map, so it never hides part of the surface.
    auto* legendRow = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(1, 0, legendRow);
    plot_->axisRect()->insetLayout()->take(plot_->legend);
    legendRow->addElement(0, 0, plot_->legend);
    plot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
    plot_->legend->setBorderPen(Qt::NoPen);
    plot_->plotLayout()->setRowStretchFactor(1, 0.001);
    clear();
}

void LandscapePlot::removeCurves() {
    for (QCPCurve* curve : curves_) plot_->removePlottable(curve);
    for (QCPCurve* marker : markers_) plot_->removePlottable(marker);
    curves_.clear();
    markers_.clear();
}

void LandscapePlot::clear() {
    removeCurves();
    tracks_.clear();
    points_.clear();
    map_->data()->clear();
    map_->setVisible(false);
    plot_->legend->setVisible(false);
    plot_->replot();
}

void LandscapePlot::show(const Landscape& landscape, std::vector<Track> tracks, const QString& xTitle,
                         const QString& yTitle) {
    removeCurves();
    tracks_ = std::move(tracks);
    points_ = landscape.projected;
    const LossGrid& grid = landscape.grid;
    QCPColorMapData* data = map_->data();
    data->setSize(grid.size, grid.size);
    data->setRange(QCPRange(grid.range.xMin, grid.range.xMax), QCPRange(grid.range.yMin, grid.range.yMax));
    float low = std::numeric_limits<float>::infinity(), high = -low;
    for (Eigen::Index k = 0; k < grid.loss.size(); ++k)
        if (std::isfinite(grid.loss.data()[k])) {
            low = std::min(low, grid.loss.data()[k]);
            high = std::max(high, grid.loss.data()[k]);
        }
    if (!(low <= high)) low = high = 1;  // nothing finite: an empty picture
    // A diverged corner (inf) takes the top colour rather than none.
    for (int j = 0; j < grid.size; ++j)
        for (int i = 0; i < grid.size; ++i) {
            const float loss = grid.loss(j, i);
            data->setCell(i, j, std::isinf(loss) ? high : loss);
        }
    const bool logarithmic = low > 0 && high > low;
    scale_->setDataScaleType(logarithmic ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (logarithmic) scale_->axis()->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    else scale_->axis()->setTicker(QSharedPointer<QCPAxisTicker>::create());
    map_->setDataRange(QCPRange(low, high > low ? high : low + 1));
    map_->setVisible(true);

    plot_->legend->clearItems();
    for (std::size_t k = 0; k < tracks_.size(); ++k) {
        auto* curve = new QCPCurve(plot_->xAxis, plot_->yAxis);
        curve->setName(tracks_[k].label);
        curve->setPen(QPen(tracks_[k].color, 2));
        curve->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, tracks_[k].color, 4));
        QVector<double> x, y;
        for (const Eigen::Vector2d& point : points_[k]) {
            x.push_back(point.x());
            y.push_back(point.y());
        }
        curve->setData(x, y);
        curves_.push_back(curve);
        auto* marker = new QCPCurve(plot_->xAxis, plot_->yAxis);
        marker->removeFromLegend();
        marker->setLineStyle(QCPCurve::lsNone);
        marker->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(Qt::white, 2), QBrush(tracks_[k].color), 13));
        markers_.push_back(marker);
    }
    plot_->legend->setVisible(!tracks_.empty());
    plot_->xAxis->setLabel(xTitle);
    plot_->yAxis->setLabel(yTitle);
    plot_->xAxis->setRange(grid.range.xMin, grid.range.xMax);
    plot_->yAxis->setRange(grid.range.yMin, grid.range.yMax);
    setStep(step_);
}

void LandscapePlot::setStep(long step) {
    step_ = step;
    for (std::size_t k = 0; k < markers_.size(); ++k) {
        const std::vector<long>& steps = tracks_[k].steps;
        // The newest point at or before the step (the first one before the trajectory starts).
        std::size_t index = steps.size() - 1;
        if (step >= 0) {
            const auto after = std::upper_bound(steps.begin(), steps.end(), step);
            index = after == steps.begin() ? 0 : std::size_t(after - steps.begin()) - 1;
        }
        markers_[k]->setData(QVector<double>{points_[k][index].x()}, QVector<double>{points_[k][index].y()});
    }
    plot_->replot();
}

}  // namespace ml
