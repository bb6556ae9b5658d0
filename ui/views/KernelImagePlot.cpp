#include "views/KernelImagePlot.h"

#include "views/DivergingColorScale.h"
#include "views/KernelGrid.h"
#include "views/NeuronImagePlot.h"
#include "model/RunSelection.h"

#include <algorithm>
#include <cmath>

namespace ml {

KernelImagePlot::KernelImagePlot(QWidget* parent) : QCustomPlot(parent) {
    connect(this, &QCustomPlot::afterLayout, this, &KernelImagePlot::arrangeImages);
    setAttribute(Qt::WA_NoMousePropagation, false);  // QCustomPlot's default: the wheel must reach the scroll area
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
    captions_.assign(static_cast<std::size_t>(columns * rowCount()), {});
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
            rect->setMinimumSize(kMinKernelImageHeight, kMinKernelImageHeight);
            body->addElement(r, c, rect);
            maps_.push_back(map);
        }
    }
    for (QCPColorScale* scale : scales_) applyDivergingScale(scale, DivergingColorScale());
    updateMinimumSize();
}

// Every image at its minimum size with its axes, the colour scales and the title (estimated from
// the fonts: the layout's own margins are known only after a replot).
void KernelImagePlot::updateMinimumSize() {
    const QFontMetrics metrics(font());
    const int line = metrics.height();
    int imageWidth = kMinKernelImageHeight;
    if (kernel_ > 0 && inputs_ > 0)
        imageWidth = std::max(imageWidth, KernelGrid(1, inputs_, kernel_, false).width() * kMinKernelPixel);
    const int scale = 8 + metrics.horizontalAdvance(QStringLiteral("-0.0000")) + line + 30;  // bar, numbers, label
    const int row = kMinKernelImageHeight + 2 * line + 24;                                   // tick labels and caption
    setMinimumSize(columns_ * (imageWidth + 12) + scale, QFontMetrics(title_->font()).height() + 10 + rowCount() * row);
}

// After each layout: square kernel pixels, input-channel ticks as dense as their room allows,
// captions and scale labels that fit.
void KernelImagePlot::arrangeImages() {
    const KernelGrid grid(1, std::max(1, inputs_), std::max(1, kernel_), false);
    for (std::size_t m = 0; m < maps_.size(); ++m) {
        QCPColorMap* map = maps_[m];
        keepPixelsSquare(map);
        QCPAxis* bottom = map->keyAxis();
        const QRect area = map->keyAxis()->axisRect()->rect();
        if (kernel_ > 0 && inputs_ > 0) {
            const double pixelsPerCell =
                std::min(area.width() / double(grid.width()), area.height() / double(grid.height()));
            const int labelPixels =
                QFontMetrics(bottom->tickLabelFont()).horizontalAdvance(QString::number(inputs_ - 1)) + 8;
            const int step = readableTickStep((kernel_ + 1) * pixelsPerCell, labelPixels);
            QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);  // input channels at kernel centres
            for (int i = 0; i < inputs_; i += step) ticker->addTick(grid.kernelCenter(i), QString::number(i));
            bottom->setTicker(ticker);
            bottom->setSubTicks(false);
        }
    }
    // One wording per quantity row: the longest caption that every panel of the row has room for.
    for (int r = 0; r < rowCount(); ++r) {
        int level = 0;
        for (int c = 0; c < columns_; ++c) {
            const QStringList& captions = captions_[static_cast<std::size_t>(c * rowCount() + r)];
            const QString fitted =
                fittedCaption(captions, map(r, c)->keyAxis()->labelFont(), map(r, c)->keyAxis()->axisRect()->width());
            level = std::max(level, captions.contains(fitted) ? static_cast<int>(captions.indexOf(fitted))
                                                              : static_cast<int>(captions.size()) - 1);
        }
        for (int c = 0; c < columns_; ++c) {
            const QStringList& captions = captions_[static_cast<std::size_t>(c * rowCount() + r)];
            QCPAxis* bottom = map(r, c)->keyAxis();
            bottom->setLabel(fittedCaption(captions.mid(level), bottom->labelFont(), bottom->axisRect()->width()));
        }
    }
    for (int r = 0; r < rowCount(); ++r)
        fitColorScale(scales_[static_cast<std::size_t>(r)], displayName(quantities()[static_cast<std::size_t>(r)]));
    plotLayout()->update(QCPLayoutElement::upPreparation);  // the tick vectors for the ranges and tickers set here
    growToLayoutMinimum(this);
}

void KernelImagePlot::setChannel(int layer, int channel) {
    titleText_ = layer < 0 || channel < 0
                     ? tr("Click a channel of a conv layer.")
                     : tr("layer %1, channel %2: its kernels (one per input channel)").arg(layer + 1).arg(channel);
    title_->setText(titleText_);
}

void KernelImagePlot::clearImages() {
    for (QCPColorMap* map : maps_) map->data()->clear();
    replot(QCustomPlot::rpQueuedReplot);
}

void KernelImagePlot::showColumns(int kernel, int inputs, const std::vector<Column>& columns) {
    rebuild(static_cast<int>(columns.size()));
    kernel_ = kernel;
    inputs_ = inputs;
    const KernelGrid grid(1, inputs, kernel, false);
    const int minimumWidth = std::max(kMinKernelImageHeight, grid.width() * kMinKernelPixel);
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
            if (kept)
                maximum[static_cast<std::size_t>(r)] =
                    std::max(maximum[static_cast<std::size_t>(r)], maxAbs(values.leftCols(values.cols() - 1)));
            map(r, c)->keyAxis()->axisRect()->setMinimumSize(minimumWidth, kMinKernelImageHeight);
            const QString what = displayName(quantities()[static_cast<std::size_t>(r)]);
            const QString& caption = columns[static_cast<std::size_t>(c)].caption;
            const QString missing = kept ? QString() : tr(" (not kept)");
            captions_[static_cast<std::size_t>(c * rowCount() + r)] = {
                QStringLiteral("%1: %2%3").arg(caption, what, missing), caption + missing, caption};
        }
    }
    for (int r = 0; r < rowCount(); ++r) {
        DivergingColorScale scale;
        scale.fitToMaximum(maximum[static_cast<std::size_t>(r)]);
        applyDivergingScale(scales_[static_cast<std::size_t>(r)], scale);
    }
    updateMinimumSize();
    replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace ml
