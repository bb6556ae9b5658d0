#include "views/NeuronImagePlot.h"

#include "views/DivergingColorScale.h"
#include "views/NeuronNames.h"
#include "views/Quantity.h"

#include <algorithm>
#include <cmath>

namespace ml {

namespace {

// Ticks only where the image has pixels (the axes extend beyond it to keep pixels square).
void useImageTicks(QCPAxis* axis, int cells) {
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    const int step = cells <= 10 ? 1 : cells <= 40 ? 5 : 10;
    for (int k = 0; k < cells; k += step) ticker->addTick(k, QString::number(k));
    axis->setTicker(ticker);
    axis->setSubTicks(false);
}

}  // namespace

NeuronImagePlot::NeuronImagePlot(QWidget* parent) : QCustomPlot(parent) {
    plotLayout()->clear();
    title_ = new QCPTextElement(this, QString(), QFont(font().family(), font().pointSize(), QFont::Bold));
    plotLayout()->addElement(0, 0, title_);
    auto* row = new QCPLayoutGrid;
    plotLayout()->addElement(1, 0, row);
    int column = 0;
    for (auto [image, name] : {std::pair{&weights_, tr("incoming weights")}, std::pair{&momentum_, tr("incoming momentum")}}) {
        image->rect = new QCPAxisRect(this);
        image->rect->axis(QCPAxis::atBottom)->setLabel(name);
        image->rect->axis(QCPAxis::atLeft)->setRangeReversed(true);  // image row 0 at the top
        for (QCPAxis* axis : image->rect->axes()) axis->grid()->setVisible(false);
        image->map = new QCPColorMap(image->rect->axis(QCPAxis::atBottom), image->rect->axis(QCPAxis::atLeft));
        image->map->setInterpolate(false);
        image->scale = new QCPColorScale(this);
        image->map->setColorScale(image->scale);
        applyDivergingScale(image->scale, DivergingColorScale());
        auto* margins = new QCPMarginGroup(this);
        image->rect->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
        image->scale->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
        row->addElement(0, column++, image->rect);
        row->addElement(0, column++, image->scale);
    }
    connect(this, &QCustomPlot::afterLayout, this, &NeuronImagePlot::keepPixelsSquare);
    setNeuron(-1, -1);
}

// Square image pixels whatever the widget's shape: both axes get the same pixels per cell and the
// image is centred.
void NeuronImagePlot::keepPixelsSquare() {
    for (Image* image : {&weights_, &momentum_}) {
        const int w = image->map->data()->keySize(), h = image->map->data()->valueSize();
        const QRect area = image->rect->rect();
        if (w <= 0 || h <= 0 || area.width() <= 0 || area.height() <= 0) continue;
        const double pixelsPerCell = std::min(area.width() / double(w), area.height() / double(h));
        const double halfWidth = area.width() / pixelsPerCell / 2.0, halfHeight = area.height() / pixelsPerCell / 2.0;
        image->rect->axis(QCPAxis::atBottom)->setRange((w - 1) / 2.0 - halfWidth, (w - 1) / 2.0 + halfWidth);
        image->rect->axis(QCPAxis::atLeft)->setRange((h - 1) / 2.0 - halfHeight, (h - 1) / 2.0 + halfHeight);
    }
}

bool NeuronImagePlot::applies(const Snapshot& snapshot, int layer) const {
    return shape_.valid() && layer == 0 && !snapshot.layers.empty() &&
           snapshot.layers.front().parameters.cols() - 1 == shape_.height * shape_.width;
}

void NeuronImagePlot::setNeuron(int layer, int neuron) {
    title_->setText(layer < 0 || neuron < 0
                        ? tr("Click a first-layer neuron of an image data set.")
                        : tr("%1: incoming connections as an image").arg(neuronName(layer + 1, neuron)));
}

void NeuronImagePlot::clearImages() {
    for (Image* image : {&weights_, &momentum_}) image->map->data()->clear();
    replot(QCustomPlot::rpQueuedReplot);
}

void NeuronImagePlot::showImages(const Snapshot& snapshot, int neuron) {
    const LayerSnapshot& layer = snapshot.layers.front();
    const int w = shape_.width, h = shape_.height;
    for (auto [image, matrix] : {std::pair{&weights_, &layer.parameters}, std::pair{&momentum_, &layer.firstMoment}}) {
        QCPColorMapData* data = image->map->data();
        data->setSize(w, h);
        data->setRange(QCPRange(0, w - 1), QCPRange(0, h - 1));
        DivergingColorScale scale;
        if (matrix->size() == 0) {
            data->fill(NAN);
        } else {
            const auto pixels = matrix->row(neuron).head(w * h);
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) data->setCell(x, y, pixels(y * w + x));
            scale.fitTo(Matrix(pixels));
        }
        applyDivergingScale(image->scale, scale);
        useImageTicks(image->rect->axis(QCPAxis::atBottom), w);
        useImageTicks(image->rect->axis(QCPAxis::atLeft), h);
    }
    momentum_.rect->axis(QCPAxis::atBottom)->setLabel(
        layer.firstMoment.size() == 0 ? tr("momentum: %1").arg(missingQuantityReason(snapshot)) : tr("incoming momentum"));
    replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace ml
