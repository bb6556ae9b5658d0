#include "views/FeatureMapView.h"

#include "InputError.h"
#include "nn/Network.h"
#include "views/DivergingColorScale.h"

#include <QApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <array>
#include <cmath>

namespace ml {

namespace {

// Channel `channel` of a sample's C x H x W values as an H x W image.
Matrix channelImage(const BatchMatrix& values, const SampleShape& shape, int channel) {
    Matrix image(shape.height, shape.width);
    const float* first = values.row(0).data() + Eigen::Index{channel} * shape.height * shape.width;
    for (int y = 0; y < shape.height; ++y)
        for (int x = 0; x < shape.width; ++x) image(y, x) = first[y * shape.width + x];
    return image;
}

// All channels of an input sample side by side, one NaN column between two channels.
Matrix inputImage(const BatchMatrix& sample, const SampleShape& shape) {
    Matrix image = Matrix::Constant(shape.height, shape.channels * (shape.width + 1) - 1, NAN);
    for (int c = 0; c < shape.channels; ++c)
        image.middleCols(c * (shape.width + 1), shape.width) = channelImage(sample, shape, c);
    return image;
}

void fill(QCPColorMap* map, const Matrix& image) {
    QCPColorMapData* data = map->data();
    if (image.size() == 0) return data->clear();
    data->setSize(static_cast<int>(image.cols()), static_cast<int>(image.rows()));
    data->setRange(QCPRange(0, static_cast<double>(image.cols() - 1)),
                   QCPRange(0, static_cast<double>(image.rows() - 1)));
    for (Eigen::Index y = 0; y < image.rows(); ++y)
        for (Eigen::Index x = 0; x < image.cols(); ++x)
            data->setCell(static_cast<int>(x), static_cast<int>(y), image(y, x));
}

QCPColorMap* imageMap(QCPAxisRect* rect) {
    rect->axis(QCPAxis::atLeft)->setRangeReversed(true);  // image row 0 at the top
    for (QCPAxis* axis : rect->axes()) {
        axis->grid()->setVisible(false);
        axis->setTicks(false);
        axis->setTickLabels(false);
    }
    auto* map = new QCPColorMap(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    map->setInterpolate(false);
    return map;
}

}  // namespace

FeatureMapView::FeatureMapView(RunSelection* selection, QWidget* parent) : QWidget(parent), selection_(selection) {
    example_ = new QSpinBox(this);
    example_->setRange(0, 0);
    example_->setToolTip(tr("Which example of the test data goes through the networks (0 = the first)"));
    exampleText_ = new QLabel(this);
    plot_ = new QCustomPlot(this);
    connect(plot_, &QCustomPlot::afterLayout, this, [this] {
        keepPixelsSquare(inputMap_);
        for (QCPColorMap* map : maps_)
            if (map) keepPixelsSquare(map);
    });
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Test example"), this));
    bar->addWidget(example_);
    bar->addWidget(exampleText_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(plot_, 1);
    connect(example_, &QSpinBox::valueChanged, this, &FeatureMapView::refresh);
    rebuild(1, true);
    showMessage(tr("Click a channel of a conv layer."));
}

void FeatureMapView::setExperiment(const Experiment& experiment) {
    experiment_ = experiment;
    test_.reset();
    triedLoading_ = false;
    loadError_.clear();
}

void FeatureMapView::setChannel(int layer, int channel) {
    layer_ = layer;
    channel_ = channel;
}

int FeatureMapView::example() const { return example_->value(); }

void FeatureMapView::setExample(int index) { example_->setValue(index); }

std::optional<FeatureMapView::Place> FeatureMapView::place() const {
    if (layer_ < 0 || channel_ < 0) return std::nullopt;
    const NetworkSpec& spec = experiment_.network;
    std::vector<SampleShape> shapes;
    try {
        shapes = spec.shapes();
    } catch (const InputError&) {
        return std::nullopt;
    }
    int parameterLayer = -1;
    for (std::size_t l = 0; l < spec.layers.size(); ++l) {
        if (!spec.layers[l].hasParameters() || ++parameterLayer != layer_) continue;
        if (spec.layers[l].kind != LayerToken::Kind::Conv || channel_ >= shapes[l].channels) return std::nullopt;
        Place place;
        place.convLayer = l;
        place.convShape = shapes[l];
        place.activationName = (QString::fromStdString(toString(spec.activation)));
        if (l + 1 < spec.layers.size() && (spec.layers[l + 1].kind == LayerToken::Kind::MaxPool ||
                                           spec.layers[l + 1].kind == LayerToken::Kind::AvgPool)) {
            const LayerToken& pool = spec.layers[l + 1];
            place.pooled = true;
            place.poolShape = shapes[l + 1];
            place.poolName =
                tr("%1 %2×%2").arg(pool.kind == LayerToken::Kind::MaxPool ? tr("max") : tr("avg")).arg(pool.kernel);
        }
        return place;
    }
    return std::nullopt;
}

// Loads the test data the first time they are needed (the GUI thread; a message names failures).
bool FeatureMapView::loadTestData() {
    if (test_) return true;
    if (triedLoading_) return false;
    triedLoading_ = true;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    try {
        test_ = loadExperimentData(experiment_).test;
        if (!test_ || test_->size() == 0)
            loadError_ = tr("the data set %1 has no test examples").arg(QString::fromStdString(experiment_.data));
        else if (test_->inputDim() != experiment_.network.inputs())
            loadError_ = tr("the test data have %1 values per example; the network %2 reads %3")
                             .arg(test_->inputDim())
                             .arg(QString::fromStdString(experiment_.network.text()))
                             .arg(experiment_.network.inputs());
    } catch (const std::exception& error) {
        loadError_ = QString::fromStdString(error.what());
    }
    QApplication::restoreOverrideCursor();
    if (!loadError_.isEmpty()) test_.reset();
    if (test_) example_->setMaximum(static_cast<int>(test_->size() - 1));
    return test_ != nullptr;
}

// The chosen channel's maps by the network's own forward pass on the snapshot's weights.
FeatureMapView::ChannelMaps FeatureMapView::mapsOf(const Snapshot& snapshot, const Place& place,
                                                   const BatchMatrix& sample) const {
    Network network(experiment_.network);
    Parameters parameters;
    for (const LayerSnapshot& layer : snapshot.layers) parameters.push_back(layer.parameters);
    try {
        network.setParameters(parameters, snapshot.label);
    } catch (const InputError&) {
        return {};  // an overlaid run of another network
    }
    const std::vector<BatchMatrix> outputs = network.layerOutputs(sample);
    ChannelMaps maps;
    maps.activation = channelImage(outputs[place.convLayer], place.convShape, channel_);
    if (place.pooled) maps.pooled = channelImage(outputs[place.convLayer + 1], place.poolShape, channel_);
    return maps;
}

// Layout: title; [input image | a grid of maps (rows: activation, pooling; one column per panel) | scale].
void FeatureMapView::rebuild(int columns, bool pooled) {
    columns = std::max(1, columns);
    if (columns == columns_ && pooled == pooled_) return;
    columns_ = columns;
    pooled_ = pooled;
    plot_->clearPlottables();
    plot_->plotLayout()->clear();
    maps_.clear();
    title_ = new QCPTextElement(plot_, QString(), QFont(font().family(), font().pointSize(), QFont::Bold));
    plot_->plotLayout()->addElement(0, 0, title_);
    auto* body = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(1, 0, body);
    auto* inputRect = new QCPAxisRect(plot_);
    body->addElement(0, 0, inputRect);
    inputMap_ = imageMap(inputRect);
    QCPColorGradient grey(QCPColorGradient::gpGrayscale);
    grey.setNanHandling(QCPColorGradient::nhTransparent);
    inputMap_->setGradient(grey);
    auto* grid = new QCPLayoutGrid;
    body->addElement(0, 1, grid);
    scale_ = new QCPColorScale(plot_);
    scale_->setBarWidth(8);
    body->addElement(0, 2, scale_);
    body->setColumnStretchFactors({0.7, double(columns), 0.1});
    for (int c = 0; c < columns; ++c)
        for (int r = 0; r < 2; ++r) {
            if (r == 1 && !pooled) {  // no pooling: one row
                maps_.push_back(nullptr);
                continue;
            }
            auto* rect = new QCPAxisRect(plot_);
            grid->addElement(r, c, rect);
            QCPColorMap* map = imageMap(rect);
            map->setColorScale(scale_);
            maps_.push_back(map);
        }
    applyDivergingScale(scale_, DivergingColorScale());
}

void FeatureMapView::showMessage(const QString& text) {
    message_ = text;
    title_->setText(text);
    inputMap_->data()->clear();
    for (QCPColorMap* map : maps_)
        if (map) map->data()->clear();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void FeatureMapView::refresh() {
    const std::optional<Place> where = place();
    if (!where) return showMessage(tr("Click a channel of a conv layer."));
    if (!loadTestData()) return showMessage(tr("No test image: %1").arg(loadError_));
    const int index = std::min(example(), static_cast<int>(test_->size() - 1));
    Batch sample;
    const std::array<Eigen::Index, 1> indices{index};
    test_->gather(indices, sample);
    const QString classText = test_->isClassification() ? tr(", class %1").arg(sample.labels(0)) : QString();
    exampleText_->setText(tr("of %1%2").arg(test_->size()).arg(classText));

    const std::vector<RunSelection::Panel> panels = selection_->panels();
    rebuild(static_cast<int>(panels.size()), where->pooled);
    message_.clear();
    title_->setText(tr("layer %1, channel %2: feature maps of test example %3%4")
                        .arg(layer_ + 1)
                        .arg(channel_)
                        .arg(index)
                        .arg(classText));
    fill(inputMap_, inputImage(sample.inputs, experiment_.network.input));
    inputMap_->rescaleDataRange(true);
    inputMap_->keyAxis()->setLabel(tr("the input"));
    double largest = 0.0;
    for (int c = 0; c < columns_; ++c) {
        const RunSelection::Panel& panel = panels[static_cast<std::size_t>(c)];
        ChannelMaps maps;
        if (panel.ready()) {
            maps = mapsOf(*panel.snapshot, *where, sample.inputs);
            if (panel.minusSnapshot && maps.activation.size() > 0) {  // A − B, map by map
                const ChannelMaps minus = mapsOf(*panel.minusSnapshot, *where, sample.inputs);
                if (minus.activation.size() == 0) maps = {};
                else {
                    maps.activation -= minus.activation;
                    if (where->pooled) maps.pooled -= minus.pooled;
                }
            }
        }
        const bool shown = maps.activation.size() > 0;
        const QString missing = !panel.ready() ? tr(" (no snapshot)") : shown ? QString() : tr(" (another network)");
        const int rows = where->pooled ? 2 : 1;
        for (int r = 0; r < rows; ++r) {
            const Matrix& image = r == 0 ? maps.activation : maps.pooled;
            fill(map(r, c), image);
            if (image.size() > 0) largest = std::max(largest, maxAbs(image));
            // Row names on the left of the first column, the run under its column: labels stay
            // short enough for small maps in a narrow dock.
            map(r, c)->valueAxis()->setLabel(c == 0 ? (r == 0 ? where->activationName : where->poolName) : QString());
            QString caption = panel.caption;
            map(r, c)->keyAxis()->setLabel(
                r + 1 == rows ? caption.replace(QStringLiteral(" · "), QStringLiteral("\n")) + missing : QString());
        }
    }
    DivergingColorScale scale;
    scale.fitToMaximum(largest);
    applyDivergingScale(scale_, scale);
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace ml
