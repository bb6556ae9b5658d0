#include "views/NeuronImagePlot.h"

#include "views/DivergingColorScale.h"
#include "views/NeuronNames.h"
#include "views/RunSelection.h"
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
    connect(this, &QCustomPlot::afterLayout, this, &NeuronImagePlot::keepPixelsSquare);
    rebuild(1);
    setNeuron(-1, -1);
}

// Layout: title; per row [weights | momentum]; the two colour scales on the right.
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
    for (int c = 0; c < 2; ++c) {
        scales_[c] = new QCPColorScale(this);
        scales_[c]->setLabel(c == 0 ? tr("weights") : tr("momentum"));
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
            if (r == 0) image.rect->setMarginGroup(QCP::msTop, margins);
            if (r == rows - 1) image.rect->setMarginGroup(QCP::msBottom, margins);
            body->addElement(r, c, image.rect);
        }
        images_.push_back(row);
    }
    body->addElement(0, 2, scales_[0]);
    body->addElement(rows > 1 ? 1 : 0, rows > 1 ? 2 : 3, scales_[1]);
}

// Square image pixels whatever the widget's shape: both axes get the same pixels per cell and the
// image is centred.
void NeuronImagePlot::keepPixelsSquare() {
    for (auto& row : images_)
        for (Image& image : row) ml::keepPixelsSquare(image.map);
}

bool NeuronImagePlot::applies(const Snapshot& snapshot, int layer) const {
    return shape_.valid() && layer == 0 && !snapshot.layers.empty() &&
           snapshot.layers.front().parameters.cols() - 1 == shape_.height * shape_.width;
}

void NeuronImagePlot::setNeuron(int layer, int neuron) {
    titleText_ = layer < 0 || neuron < 0 ? tr("Click a first-layer neuron of an image data set.")
                                         : tr("%1: incoming connections as an image").arg(neuronName(layer + 1, neuron));
    title_->setText(titleText_);
}

void NeuronImagePlot::clearImages() {
    for (auto& row : images_)
        for (Image& image : row) image.map->data()->clear();
    replot(QCustomPlot::rpQueuedReplot);
}

void NeuronImagePlot::showImages(const Snapshot& snapshot, int neuron) {
    const LayerSnapshot& layer = snapshot.layers.front();
    const int pixels = shape_.width * shape_.height;
    auto rowOf = [&](const Matrix& m) { return m.size() == 0 ? Vector() : Vector(m.row(neuron).head(pixels).transpose()); };
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
                maximum[static_cast<std::size_t>(c)] = std::max(maximum[static_cast<std::size_t>(c)], maxAbs(Matrix(pixels)));
            }
            const QString what = c == 0 ? tr("weights") : tr("momentum");
            image.rect->axis(QCPAxis::atBottom)->setLabel(
                pixels.size() == 0 ? tr("%1: %2 %3").arg(rows[r].caption, what, rows[r].missing.isEmpty() ? tr("not kept") : rows[r].missing) : tr("%1: %2").arg(rows[r].caption, what));
            useImageTicks(image.rect->axis(QCPAxis::atBottom), w);
            useImageTicks(image.rect->axis(QCPAxis::atLeft), h);
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
