#include "views/NeuronThumbnails.h"

#include "InputError.h"
#include "views/DivergingColorScale.h"

#include <QApplication>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <array>
#include <cmath>

namespace ml {

namespace {

constexpr std::size_t kCacheEntries = 64;  // runs x steps kept: 64 x 4096 x 18 floats for 2-8-8-2 at 64 x 64
constexpr int kLevels = 513;               // odd: the middle level is exactly 0 (white), as the heat-maps'

// The diverging scale as a table: level k for position k / (kLevels - 1), the last entry for NaN.
const std::array<QRgb, kLevels + 1>& colourTable() {
    static const std::array<QRgb, kLevels + 1> table = [] {
        std::array<QRgb, kLevels + 1> levels{};
        for (int k = 0; k < kLevels; ++k)
            levels[std::size_t(k)] = DivergingColorScale::colorAtPosition(double(k) / (kLevels - 1)).rgb();
        levels[kLevels] = DivergingColorScale().colorAt(NAN).rgb();
        return levels;
    }();
    return table;
}

double maxAbsFinite(const BatchMatrix& values) {
    if (values.allFinite()) return values.size() ? double(values.cwiseAbs().maxCoeff()) : 0.0;  // vectorised
    double largest = 0.0;
    for (Eigen::Index k = 0; k < values.size(); ++k)
        if (std::isfinite(values.data()[k])) largest = std::max(largest, std::abs(double(values.data()[k])));
    return largest;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
NeuronThumbnails::NeuronThumbnails(int inputs, int samples, std::shared_ptr<const std::vector<BatchMatrix>> columns,
                                   std::vector<double> limits)
    : inputs_(inputs), samples_(samples), columns_(std::move(columns)), limits_(std::move(limits)) {
    if (inputs_ != 2) return;
    images_.resize(columns_->size());
    for (int c = 0; c < columnCount(); ++c)
        for (int n = 0; n < values(c).cols(); ++n) images_[std::size_t(c)].push_back(imageOf(c, n));
}

// One pixel per grid point, row 0 at the top (the grid's order, nn/NeuronFunctions.h).
QImage NeuronThumbnails::imageOf(int column, int neuron) const {
    const auto& table = colourTable();
    const BatchMatrix& values = this->values(column);
    const float scale = float(0.5 * (kLevels - 1) / limit(column));
    const float middle = float(kLevels - 1) / 2 + 0.5f;  // + 0.5: truncation rounds to the nearest level
    // The levels of the whole column at once (vectorised); NaN, which no comparison orders, apart.
    const Eigen::ArrayXf cells = values.col(neuron).array();
    const bool anyNan = cells.hasNaN();
    const Eigen::ArrayXf known = anyNan ? Eigen::ArrayXf(cells.isNaN().select(0.0f, cells)) : cells;
    const Eigen::ArrayXi levels = (known * scale + middle).max(0.0f).min(float(kLevels - 1)).cast<int>();
    QImage image(samples_, samples_, QImage::Format_RGB32);
    for (int r = 0; r < samples_; ++r) {
        auto* line = reinterpret_cast<QRgb*>(image.scanLine(r));
        const int* level = levels.data() + Eigen::Index{r} * samples_;
        for (int c = 0; c < samples_; ++c) line[c] = table[std::size_t(level[c])];
        if (anyNan)
            for (int c = 0; c < samples_; ++c)
                if (std::isnan(cells(Eigen::Index{r} * samples_ + c))) line[c] = table[kLevels];
    }
    return image;
}

void NeuronThumbnails::paint(QPainter& painter, int column, int neuron, const QRectF& rect) const {
    if (!hasNeuron(column, neuron)) return;
    if (inputs_ == 2) {
        painter.save();
        painter.setRenderHint(QPainter::SmoothPixmapTransform, false);  // the grid's cells, not a blur
        painter.drawImage(rect, images_[std::size_t(column)][std::size_t(neuron)]);
        painter.restore();
        return;
    }
    // One input: the value (±limit, top to bottom) against the input (left to right).
    const BatchMatrix& values = this->values(column);
    const double half = rect.height() / 2.0, scale = half / limit(column);
    QPainterPath curve;
    bool drawing = false;
    for (Eigen::Index p = 0; p < values.rows(); ++p) {
        const double value = values(p, neuron);
        if (!std::isfinite(value)) {
            drawing = false;
            continue;
        }
        const QPointF at(rect.left() + rect.width() * double(p) / double(values.rows() - 1),
                         rect.center().y() - std::clamp(value * scale, -half, half));
        if (drawing) curve.lineTo(at);
        else curve.moveTo(at);
        drawing = true;
    }
    painter.save();
    painter.fillRect(rect, Qt::white);
    painter.setPen(QPen(QColor(0xc8, 0xc8, 0xc8), 1.0));
    painter.drawLine(QPointF(rect.left(), rect.center().y()), QPointF(rect.right(), rect.center().y()));
    painter.setPen(QPen(QColor(0x20, 0x20, 0x20), 1.4));
    painter.setBrush(Qt::NoBrush);
    painter.setClipRect(rect);
    painter.drawPath(curve);
    painter.restore();
}

// ---------------------------------------------------------------------------------------------
void ThumbnailSource::setExperiment(const Experiment& experiment) {
    experiment_ = experiment;
    unsupported_ = experiment.recorded.asBlocks
                       ? QObject::tr("a recorded model's layers are shown as blocks, not one network")
                       : QString::fromStdString(neuronFunctionsUnsupported(experiment.network));
    functions_.reset();
    triedLoading_ = false;
    cache_.clear();
    lastPanels_.clear();
    last_.clear();
}

void ThumbnailSource::setSamples(int samples) {
    if (samples == samples_) return;
    samples_ = std::max(2, samples);
    functions_.reset();
    triedLoading_ = false;
    cache_.clear();
    lastPanels_.clear();
    last_.clear();
}

// The grid over the training inputs, made the first time it is needed (loading the data then;
// a failure is the reason the thumbnails are not offered).
bool ThumbnailSource::ready() {
    if (functions_) return true;
    if (!experiment_ || !unsupported_.isEmpty() || triedLoading_) return false;
    triedLoading_ = true;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    try {
        const DataSplit data = loadExperimentData(*experiment_);
        functions_ = std::make_unique<NeuronFunctions>(experiment_->network, InputGrid::around(*data.train, samples_));
    } catch (const std::exception& error) {
        unsupported_ = QStringLiteral("the data %1 could not be read: %2")
                           .arg(QString::fromStdString(experiment_->data), QString::fromUtf8(error.what()));
    }
    QApplication::restoreOverrideCursor();
    return functions_ != nullptr;
}

std::shared_ptr<const ThumbnailSource::Columns> ThumbnailSource::columnsOf(int run, const SharedSnapshot& snapshot) {
    const std::pair<int, long> key(run, snapshot->step);
    if (auto found = cache_.find(key); found != cache_.end() && found->second.snapshot == snapshot) {
        found->second.lastUse = ++uses_;
        return found->second.columns;
    }
    Parameters parameters;
    for (const LayerSnapshot& layer : snapshot->layers) parameters.push_back(layer.parameters);
    auto columns = std::make_shared<Columns>();
    try {
        *columns = functions_->compute(parameters, snapshot->label);
    } catch (const InputError&) {
        return nullptr;  // an overlaid run of another network
    }
    columns->insert(columns->begin(), functions_->grid().points());
    if (cache_.size() >= kCacheEntries) forgetOldest();
    cache_[key] = {snapshot, columns, ++uses_};
    return columns;
}

void ThumbnailSource::forgetOldest() {
    auto oldest = std::min_element(cache_.begin(), cache_.end(),
                                   [](const auto& a, const auto& b) { return a.second.lastUse < b.second.lastUse; });
    if (oldest != cache_.end()) cache_.erase(oldest);
}

// A run's columns, or A − B of two runs' (the inputs stay the inputs: the same grid in both).
std::shared_ptr<const ThumbnailSource::Columns> ThumbnailSource::columnsOf(const RunSelection::Panel& panel) {
    std::shared_ptr<const Columns> a = columnsOf(panel.run, panel.snapshot);
    if (!a || panel.minus < 0) return a;
    std::shared_ptr<const Columns> b = columnsOf(panel.minus, panel.minusSnapshot);
    if (!b || b->size() != a->size()) return nullptr;
    auto difference = std::make_shared<Columns>(*a);
    for (std::size_t c = 1; c < difference->size(); ++c) {
        if ((*b)[c].rows() != (*a)[c].rows() || (*b)[c].cols() != (*a)[c].cols()) return nullptr;
        (*difference)[c] -= (*b)[c];
    }
    return difference;
}

std::vector<std::shared_ptr<const NeuronThumbnails>> ThumbnailSource::thumbnailsFor(
    const std::vector<RunSelection::Panel>& panels) {
    std::vector<std::pair<SharedSnapshot, SharedSnapshot>> asked;
    for (const RunSelection::Panel& panel : panels) asked.emplace_back(panel.snapshot, panel.minusSnapshot);
    if (asked == lastPanels_ && last_.size() == panels.size()) return last_;
    std::vector<std::shared_ptr<const NeuronThumbnails>> made(panels.size());
    if (!ready()) return made;
    std::vector<std::shared_ptr<const Columns>> columns;
    std::vector<double> limits;
    for (const RunSelection::Panel& panel : panels) {
        columns.push_back(panel.ready() ? columnsOf(panel) : nullptr);
        if (!columns.back()) continue;
        limits.resize(std::max(limits.size(), columns.back()->size()), 0.0);
        for (std::size_t c = 0; c < columns.back()->size(); ++c)
            limits[c] = std::max(limits[c], maxAbsFinite((*columns.back())[c]));
    }
    for (double& limit : limits)
        if (!(limit > 0.0)) limit = 1.0;
    const int inputs = functions_->grid().inputs(), samples = functions_->grid().samples();
    for (std::size_t k = 0; k < panels.size(); ++k)
        if (columns[k])
            made[k] = std::make_shared<const NeuronThumbnails>(
                inputs, samples, columns[k],
                std::vector<double>(limits.begin(), limits.begin() + std::ptrdiff_t(columns[k]->size())));
    lastPanels_ = std::move(asked);
    last_ = made;
    return made;
}

}  // namespace ml
