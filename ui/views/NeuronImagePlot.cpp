#include "views/NeuronImagePlot.h"

#include "views/DivergingColorScale.h"
#include "views/NeuronNames.h"
#include "model/RunSelection.h"
#include "model/Quantity.h"

#include <algorithm>
#include <cmath>

namespace ml {

int readableTickStep(double pixelsPerTick, int labelPixels) {
    for (int magnitude = 1; magnitude < 1000000; magnitude *= 10)
        for (const int m : {1, 2, 5})
            if (m * magnitude * pixelsPerTick >= labelPixels) return m * magnitude;
    return 1000000;
}

QString fittedCaption(const QStringList& candidates, const QFont& font, int width) {
    const QFontMetrics metrics(font);
    for (const QString& caption : candidates)
        if (metrics.horizontalAdvance(caption) <= width) return caption;
    return candidates.isEmpty() ? QString() : metrics.elidedText(candidates.back(), Qt::ElideRight, std::max(0, width));
}

void fitColorScale(QCPColorScale* scale, const QString& label) {
    QCPAxis* axis = scale->axis();
    const int length = axis->orientation() == Qt::Vertical ? axis->axisRect()->height() : axis->axisRect()->width();
    const int line = QFontMetrics(axis->tickLabelFont()).height();
    axis->ticker()->setTickCount(std::clamp(length / (3 * line), 2, 5));  // a tick per three label heights
    scale->setLabel(QFontMetrics(axis->labelFont()).elidedText(label, Qt::ElideRight, std::max(0, length)));
}

void growToLayoutMinimum(QCustomPlot* plot) {
    const QSize needed = plot->plotLayout()->minimumOuterSizeHint().expandedTo(plot->minimumSize());
    if (needed == plot->minimumSize()) return;
    // Not now: a resize inside the replot would be laid out only by the next one.
    QMetaObject::invokeMethod(
        plot, [plot, needed] { plot->setMinimumSize(needed); }, Qt::QueuedConnection);
}

namespace {

// Ticks only where the image has pixels (the axes extend beyond it to keep pixels square), every
// `step`-th cell.
void useImageTicks(QCPAxis* axis, int cells, int step) {
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (int k = 0; k < cells; k += step) ticker->addTick(k, QString::number(k));
    axis->setTicker(ticker);
    axis->setSubTicks(false);
}

QString columnName(int column) {
    return column == 0 ? NeuronImagePlot::tr("weights") : NeuronImagePlot::tr("momentum");
}

}  // namespace

NeuronImagePlot::NeuronImagePlot(QWidget* parent) : QCustomPlot(parent) {
    connect(this, &QCustomPlot::afterLayout, this, &NeuronImagePlot::arrangeImages);
    setAttribute(Qt::WA_NoMousePropagation, false);  // QCustomPlot's default: the wheel must reach the scroll area
    rebuild(1);
    setNeuron(-1, -1);
}

// Layout: title; the column headings; per row [weights | momentum]; the two colour scales on the
// right (beside the first two rows, or the one row).
void NeuronImagePlot::rebuild(int rows) {
    rows = std::max(1, rows);
    if (static_cast<int>(images_.size()) == rows) return;
    clearPlottables();
    plotLayout()->clear();
    images_.clear();
    title_ = new QCPTextElement(this, titleText_, QFont(font().family(), font().pointSize(), QFont::Bold));
    plotLayout()->addElement(0, 0, title_);
    auto* body = new QCPLayoutGrid;
    plotLayout()->addElement(1, 0, body);
    auto* margins = new QCPMarginGroup(this);
    std::array<QCPMarginGroup*, 2> columnMargins{new QCPMarginGroup(this), new QCPMarginGroup(this)};
    for (int c = 0; c < 2; ++c) {
        body->addElement(0, c, new QCPTextElement(this, columnName(c)));
        scales_[c] = new QCPColorScale(this);
        scales_[c]->setBarWidth(12);
        scales_[c]->setLabel(columnName(c));
        scales_[c]->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
        applyDivergingScale(scales_[c], DivergingColorScale());
    }
    for (int r = 0; r < rows; ++r) {
        std::array<Image, 2> row;
        for (int c = 0; c < 2; ++c) {
            Image& image = row[static_cast<std::size_t>(c)];
            image.rect = new QCPAxisRect(this);
            image.rect->axis(QCPAxis::atLeft)->setRangeReversed(true);  // image row 0 at the top
            for (QCPAxis* axis : image.rect->axes()) axis->grid()->setVisible(false);
            image.map = new QCPColorMap(image.rect->axis(QCPAxis::atBottom), image.rect->axis(QCPAxis::atLeft));
            image.map->setInterpolate(false);
            image.map->setColorScale(scales_[static_cast<std::size_t>(c)]);  // one scale per column
            image.rect->setMinimumSize(kMinImageWidth, kMinImageHeight);
            image.rect->setMarginGroup(QCP::msLeft,
                                       columnMargins[static_cast<std::size_t>(c)]);  // images one above the other
            QCP::MarginSides ends;  // the first row's top and the last row's bottom line up with the scales
            if (r == 0) ends |= QCP::msTop;
            if (r == rows - 1) ends |= QCP::msBottom;
            if (ends) image.rect->setMarginGroup(ends, margins);
            body->addElement(r + 1, c, image.rect);
        }
        images_.push_back(row);
    }
    body->addElement(1, 2, scales_[0]);
    body->addElement(rows > 1 ? 2 : 1, rows > 1 ? 2 : 3, scales_[1]);
    body->setRowStretchFactor(0, 0.001);  // the headings take their text's height
    updateMinimumSize();
}

// Every image at its minimum size with its axes, the colour scales and the title (estimated from
// the fonts: the layout's own margins are known only after a replot).
void NeuronImagePlot::updateMinimumSize() {
    const QFontMetrics metrics(font());
    const int line = metrics.height();
    const int row = kMinImageHeight + 2 * line + 24;  // tick labels and caption under it
    const int column = kMinImageWidth + metrics.horizontalAdvance(QStringLiteral("000")) + 16;  // row numbers beside it
    const int scale = 12 + metrics.horizontalAdvance(QStringLiteral("-0.0000")) + line + 30;    // bar, numbers, label
    const int rows = rowCount();
    const int title =
        static_cast<int>(titleText_.count(QLatin1Char('\n')) + 1) * QFontMetrics(title_->font()).height() + 10;
    setMinimumSize(2 * column + (rows > 1 ? 1 : 2) * scale, title + line + 8 + std::max(rows, 2) * row);
}

// After each layout: square image pixels (both axes get the same pixels per cell, the image
// centred), tick labels as dense as their room allows, captions and scale labels that fit.
void NeuronImagePlot::arrangeImages() {
    const int w = shape_.width, h = shape_.height;
    for (auto& row : images_) {
        for (Image& image : row) {
            ml::keepPixelsSquare(image.map);
            QCPAxis* bottom = image.rect->axis(QCPAxis::atBottom);
            QCPAxis* left = image.rect->axis(QCPAxis::atLeft);
            if (w > 0 && h > 0) {
                const double pixelsPerCell =
                    std::min(image.rect->width() / double(w), image.rect->height() / double(h));
                const QFontMetrics ticks(bottom->tickLabelFont());
                useImageTicks(bottom, w,
                              readableTickStep(pixelsPerCell, ticks.horizontalAdvance(QString::number(w - 1)) + 8));
                useImageTicks(left, h, readableTickStep(pixelsPerCell, ticks.height() + 2));
            }
            bottom->setLabel(fittedCaption(image.captions, bottom->labelFont(), image.rect->width()));
        }
    }
    for (int c = 0; c < 2; ++c) fitColorScale(scales_[static_cast<std::size_t>(c)], columnName(c));
    plotLayout()->update(QCPLayoutElement::upPreparation);  // the tick vectors for the ranges and tickers set here
    growToLayoutMinimum(this);
}

bool NeuronImagePlot::applies(const Snapshot& snapshot, int layer) const {
    return shape_.valid() && layer == 0 && !snapshot.layers.empty() &&
           snapshot.layers.front().parameters.cols() - 1 == shape_.height * shape_.width;
}

void NeuronImagePlot::setNeuron(int layer, int neuron) {
    titleText_ = layer < 0 || neuron < 0
                     ? tr("Click a first-layer neuron of an image data set.")
                     : tr("%1: incoming connections as an image").arg(neuronName(layer + 1, neuron));
    title_->setText(titleText_);
    updateMinimumSize();
}

void NeuronImagePlot::clearImages() {
    for (auto& row : images_)
        for (Image& image : row) image.map->data()->clear();
    replot(QCustomPlot::rpQueuedReplot);
}

void NeuronImagePlot::showImages(const Snapshot& snapshot, int neuron) {
    const LayerSnapshot& layer = snapshot.layers.front();
    const int pixels = shape_.width * shape_.height;
    auto rowOf = [&](const Matrix& m) {
        return m.size() == 0 ? Vector() : Vector(m.row(neuron).head(pixels).transpose());
    };
    showRows({{QString::fromStdString(snapshot.label), rowOf(layer.parameters), rowOf(layer.firstMoment),
               missingQuantityReason(snapshot)}});
}

void NeuronImagePlot::showRows(const std::vector<Row>& rows) {
    rebuild(static_cast<int>(rows.size()));
    const int w = shape_.width, h = shape_.height;
    std::array<double, 2> maximum{0.0, 0.0};
    for (std::size_t r = 0; r < rows.size(); ++r) {
        for (int c = 0; c < 2; ++c) {
            const Vector& pixels = c == 0 ? rows[r].weights : rows[r].momentum;
            Image& image = images_[r][static_cast<std::size_t>(c)];
            QCPColorMapData* data = image.map->data();
            data->setSize(w, h);
            data->setRange(QCPRange(0, w - 1), QCPRange(0, h - 1));
            if (pixels.size() != w * h) {
                data->fill(NAN);
            } else {
                for (int y = 0; y < h; ++y)
                    for (int x = 0; x < w; ++x) data->setCell(x, y, pixels(y * w + x));
                maximum[static_cast<std::size_t>(c)] =
                    std::max(maximum[static_cast<std::size_t>(c)], maxAbs(Matrix(pixels)));
            }
            const QString& caption = rows[r].caption;
            image.captions = pixels.size() == 0
                                 ? QStringList{tr("%1: %2").arg(caption, rows[r].missing.isEmpty() ? tr("not kept")
                                                                                                   : rows[r].missing),
                                               tr("%1 (not kept)").arg(caption), caption}
                                 : QStringList{caption};
        }
    }
    for (int c = 0; c < 2; ++c) {
        DivergingColorScale scale;
        scale.fitToMaximum(maximum[static_cast<std::size_t>(c)]);
        applyDivergingScale(scales_[static_cast<std::size_t>(c)], scale);
    }
    replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace ml
