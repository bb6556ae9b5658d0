#include "views/KernelImagePlot.h"

#include "views/DivergingColorScale.h"
#include "views/KernelGrid.h"
#include "views/RunSelection.h"

#include <algorithm>
#include <cmath>

namespace ml {

KernelImagePlot::KernelImagePlot(QWidget* parent) : QCustomPlot(parent) {
    connect(this, &QCustomPlot::afterLayout, this, [this] {
        for (QCPColorMap* map : maps_) keepPixelsSquare(map);
    });
    rebuild(1);
    setChannel(-1, -1);
}

const std::vector<Quantity>& KernelImagePlot::quantities() {
    static const std::vector<Quantity> rows{Quantity::Weight, Quantity::Gradient, Quantity::FirstMoment,
                                            Quantity::NeuronMeanMomentum, Quantity::DeviationFromNeuronMean};
    return rows;
}

// Layout: title; a grid of [one image per panel ... | the row's colour scale] per quantity.
void KernelImagePlot::rebuild(int columns) {
    columns = std::max(1, columns);
    if (columns == columns_) return;
    clearPlottables();
    plotLayout()->clear();
    maps_.clear();
    scales_.clear();
    columns_ = columns;
    title_ = new QCPTextElement(this, titleText_, QFont(font().family(), font().pointSize(), QFont::Bold));
    plotLayout()->addElement(0, 0, title_);
    auto* body = new QCPLayoutGrid;
    plotLayout()->addElement(1, 0, body);
    for (int r = 0; r < rowCount(); ++r) {
        auto* scale = new QCPColorScale(this);
        scale->setBarWidth(8);
        scales_.push_back(scale);
        body->addElement(r, columns, scale);
    }
    for (int c = 0; c < columns; ++c) {
        for (int r = 0; r < rowCount(); ++r) {
            auto* rect = new QCPAxisRect(this);
            rect->axis(QCPAxis::atLeft)->setRangeReversed(true);  // kernel row 0 at the top
            rect->axis(QCPAxis::atLeft)->setTickLabels(false);
            rect->axis(QCPAxis::atLeft)->setTicks(false);
            for (QCPAxis* axis : rect->axes()) axis->grid()->setVisible(false);
            auto* map = new QCPColorMap(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
            map->setInterpolate(false);
            map->setColorScale(scales_[static_cast<std::size_t>(r)]);  // one scale per quantity row
            body->addElement(r, c, rect);
            maps_.push_back(map);
        }
    }
    for (QCPColorScale* scale : scales_) applyDivergingScale(scale, DivergingColorScale());
}

void KernelImagePlot::setChannel(int layer, int channel) {
    titleText_ = layer < 0 || channel < 0 ? tr("Click a channel of a conv layer.")
                                          : tr("layer %1, channel %2: its kernels (one per input channel)").arg(layer + 1).arg(channel);
    title_->setText(titleText_);
}

void KernelImagePlot::clearImages() {
    for (QCPColorMap* map : maps_) map->data()->clear();
    replot(QCustomPlot::rpQueuedReplot);
}

void KernelImagePlot::showColumns(int kernel, int inputs, const std::vector<Column>& columns) {
    rebuild(static_cast<int>(columns.size()));
    const KernelGrid grid(1, inputs, kernel, false);
    std::vector<double> maximum(quantities().size(), 0.0);
    for (int c = 0; c < columns_; ++c) {
        for (int r = 0; r < rowCount(); ++r) {
            const Matrix& values = columns[static_cast<std::size_t>(c)].rows[static_cast<std::size_t>(r)];
            QCPColorMapData* data = map(r, c)->data();
            data->setSize(grid.width(), grid.height());
            data->setRange(QCPRange(0, grid.width() - 1), QCPRange(0, grid.height() - 1));
            const bool kept = values.rows() == 1 && values.cols() == Eigen::Index{inputs} * kernel * kernel + 1;
            const Matrix pixels = kept ? grid.image(values) : Matrix::Constant(grid.height(), grid.width(), NAN);
            for (int y = 0; y < grid.height(); ++y)
                for (int x = 0; x < grid.width(); ++x) data->setCell(x, y, pixels(y, x));
            if (kept) maximum[static_cast<std::size_t>(r)] = std::max(maximum[static_cast<std::size_t>(r)], maxAbs(values.leftCols(values.cols() - 1)));
            QCPAxis* bottom = map(r, c)->keyAxis();
            QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);  // input channels at kernel centres
            const int step = std::max(1, inputs / 8);
            for (int i = 0; i < inputs; i += step) ticker->addTick(grid.kernelCenter(i), QString::number(i));
            bottom->setTicker(ticker);
            bottom->setSubTicks(false);
            const QString what = displayName(quantities()[static_cast<std::size_t>(r)]);
            bottom->setLabel(QStringLiteral("%1: %2%3").arg(columns[static_cast<std::size_t>(c)].caption, what,
                                                               kept ? QString() : tr(" (not kept)")));
        }
    }
    for (int r = 0; r < rowCount(); ++r) {
        DivergingColorScale scale;
        scale.fitToMaximum(maximum[static_cast<std::size_t>(r)]);
        applyDivergingScale(scales_[static_cast<std::size_t>(r)], scale);
    }
    replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace ml
