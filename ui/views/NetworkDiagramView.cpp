#include "views/NetworkDiagramView.h"

#include "common/RedrawWhenShown.h"
#include "common/RenderQueue.h"
#include "views/ConvLayerDrawing.h"
#include "views/LayerBlockList.h"
#include "views/NeuronNames.h"
#include "views/SharingGroups.h"
#include "views/ViewControls.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QSignalBlocker>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ml {

namespace {

constexpr double kMargin = 8.0;
constexpr double kConnectionHitDistance = 4.0;  // pixels
constexpr double kMinLineWidth = 0.7;
constexpr double kMaxLineWidth = 5.0;
const QColor kInputFill(0xe0, 0xe0, 0xe0);
const QColor kSkeleton(0xb8, 0xb8, 0xb8);
const QColor kSelection(0xff, 0x98, 0x00);

double distanceToSegment(QPointF p, QPointF a, QPointF b) {
    const QPointF ab = b - a;
    const double lengthSquared = QPointF::dotProduct(ab, ab);
    const double t = lengthSquared > 0.0 ? std::clamp(QPointF::dotProduct(p - a, ab) / lengthSquared, 0.0, 1.0) : 0.0;
    const QPointF d = p - (a + t * ab);
    return std::hypot(d.x(), d.y());
}

QString preciseValue(float value) { return QString::number(static_cast<double>(value), 'g', 4); }

}  // namespace

// ---------------------------------------------------------------------------------------------
DiagramLayout::DiagramLayout(const std::vector<int>& sizes, const std::vector<std::vector<int>>& shown,
                             const QRectF& area, bool thumbnails)
    : shown_(shown) {
    if (sizes.empty()) return;
    const int columns = static_cast<int>(sizes.size());
    int slotCount = 1;
    for (int c = 0; c < columns; ++c) {
        hidden_.push_back(sizes[static_cast<std::size_t>(c)] - drawnNeurons(c));
        slotCount = std::max(slotCount, drawnNeurons(c) + (hidden_.back() > 0 ? 1 : 0));
    }
    spacing_ = area.height() / slotCount;
    const double columnWidth = area.width() / columns;
    // A thumbnail needs pixels to show a function: nearly the whole slot, up to 80 px square.
    radius_ = thumbnails ? std::clamp(std::min(spacing_ * 0.43, columnWidth * 0.3), 3.0, 40.0)
                         : std::clamp(std::min(spacing_ * 0.36, columnWidth * 0.12), 3.0, 20.0);
    for (int c = 0; c < columns; ++c) {
        const int used = drawnNeurons(c) + (hidden_[static_cast<std::size_t>(c)] > 0 ? 1 : 0);
        x_.push_back(area.left() + columnWidth * (c + 0.5));
        top_.push_back(area.center().y() - (used - 1) * spacing_ / 2.0);
    }
}

QPointF DiagramLayout::center(int column, int slot) const {
    const auto c = static_cast<std::size_t>(column);
    return {x_[c], top_[c] + slot * spacing_};
}

int DiagramLayout::slotOf(int column, int neuron) const {
    const std::vector<int>& drawn = shown_[static_cast<std::size_t>(column)];
    const auto found = std::lower_bound(drawn.begin(), drawn.end(), neuron);
    return found != drawn.end() && *found == neuron ? static_cast<int>(found - drawn.begin()) : -1;
}

QPointF DiagramLayout::ellipsisPosition(int column) const { return center(column, drawnNeurons(column)); }

// ---------------------------------------------------------------------------------------------
NetworkDiagramView::NetworkDiagramView(QWidget* parent) : QWidget(parent) {
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMouseTracking(false);
}

void NetworkDiagramView::showSnapshot(SharedSnapshot snapshot) {
    const std::vector<int> before = snapshot_ ? units_.columnSizes() : std::vector<int>();
    snapshot_ = std::move(snapshot);
    units_ = networkUnits(*snapshot_, network_);
    const bool shapeChanged = before != units_.columnSizes();
    if (shapeChanged) selectedLayer_ = -2, selectedNeuron_ = -1;
    ownValues_ = true;
    caption_ = QString::fromStdString(snapshot_->label) + QStringLiteral(" · step %1").arg(snapshot_->step);
    recomputeValues();
    redraw();
}

void NetworkDiagramView::showPanel(SharedSnapshot snapshot, std::vector<Matrix> values, const QString& caption) {
    snapshot_ = std::move(snapshot);
    units_ = networkUnits(*snapshot_, network_);
    ownValues_ = false;
    values_ = std::move(values);
    values_.resize(snapshot_->layers.size());
    for (std::size_t l = 0; l < values_.size(); ++l)
        values_[l] = unitMeans(values_[l], units_.layers[l].columnsPerInput);
    caption_ = caption;
    shown_.clear();
    chooseShownNeurons();
    fitToDrawn();
    redraw();
}

void NetworkDiagramView::setQuantity(Quantity quantity) {
    quantity_ = quantity;
    if (ownValues_) recomputeValues();
    redraw();
}

void NetworkDiagramView::setNetwork(const NetworkSpec& network) {
    network_ = network;
    if (!snapshot_) return;
    if (!ownValues_) return clear();  // showPanel's values were grouped by the old units: wait for the next
    units_ = networkUnits(*snapshot_, network_);
    recomputeValues();
    redraw();
}

void NetworkDiagramView::setColorLimit(double limit) {
    scale_.setFixedLimit(limit);
    redraw();
}

void NetworkDiagramView::clear() {
    snapshot_.reset();
    thumbnails_.reset();
    values_.clear();
    selectedLayer_ = -2;
    selectedNeuron_ = -1;
    redraw();
}

void NetworkDiagramView::setSelectedNeuron(int layer, int neuron) {
    selectedLayer_ = layer < 0 || neuron < 0 ? -2 : layer;
    selectedNeuron_ = neuron;
    redraw();
}

void NetworkDiagramView::setThumbnails(std::shared_ptr<const NeuronThumbnails> thumbnails) {
    if (thumbnails == thumbnails_) return;
    thumbnails_ = std::move(thumbnails);
    redraw();
}

void NetworkDiagramView::recomputeValues() {
    values_.clear();
    shown_.clear();
    if (!snapshot_) return;
    for (int l = 0; l < static_cast<int>(snapshot_->layers.size()); ++l)
        values_.push_back(unitMeans(extractQuantity(*snapshot_, l, quantity_),
                                    units_.layers[static_cast<std::size_t>(l)].columnsPerInput));
    chooseShownNeurons();
    fitToDrawn();
}

// Fit the scale to what is drawn: the connections between drawn neurons, and their biases.
void NetworkDiagramView::fitToDrawn() {
    double maximum = 0.0;
    for (std::size_t l = 0; l < values_.size(); ++l) {
        const Matrix& values = values_[l];
        if (values.size() == 0) continue;
        for (const int j : shown_[l + 1]) {
            for (const int i : shown_[l]) maximum = std::max(maximum, std::abs(double(values(j, i))));
            maximum = std::max(maximum, std::abs(double(values(j, values.cols() - 1))));
        }
    }
    fittedLimit_ = maximum;
    scale_.fitToMaximum(maximum);
}

// Per column, the kMaxDrawnNeurons neurons with the largest summed |quantity| over their
// incoming and outgoing connections (all neurons of narrower columns), in index order.
void NetworkDiagramView::chooseShownNeurons() {
    const std::vector<int> sizes = units_.columnSizes();
    for (std::size_t c = 0; c < sizes.size(); ++c) {
        std::vector<int> neurons(static_cast<std::size_t>(sizes[c]));
        std::iota(neurons.begin(), neurons.end(), 0);
        if (sizes[c] > kMaxDrawnNeurons) {
            Eigen::VectorXd score = Eigen::VectorXd::Zero(sizes[c]);
            if (c > 0 && values_[c - 1].size() > 0)  // incoming, without the bias column
                score += values_[c - 1].leftCols(values_[c - 1].cols() - 1).cwiseAbs().rowwise().sum().cast<double>();
            if (c < values_.size() && values_[c].size() > 0)  // outgoing
                score += values_[c].leftCols(sizes[c]).cwiseAbs().colwise().sum().transpose().cast<double>();
            // Stable: equal scores (e.g. a quantity that is not kept) keep the first neurons.
            std::stable_sort(neurons.begin(), neurons.end(), [&score](int a, int b) { return score(a) > score(b); });
            neurons.resize(kMaxDrawnNeurons);
            std::sort(neurons.begin(), neurons.end());
        }
        shown_.push_back(std::move(neurons));
    }
}

float NetworkDiagramView::valueAt(int layer, int row, int column) const {
    const Matrix& values = values_[static_cast<std::size_t>(layer)];
    return values.size() == 0 ? NAN : values(row, column);
}

QString NetworkDiagramView::title() const {
    if (!snapshot_) return tr("No snapshot yet: start a run.");
    if (compact_) return caption_;  // the shared legend names the quantity
    return QStringLiteral("%1 · %2").arg(caption_, displayName(quantity_));
}

NetworkDiagramView::Frame NetworkDiagramView::frameFor(QSize size) const {
    const QFontMetricsF metrics(font());
    Frame frame;
    const QRectF all(kMargin, kMargin, size.width() - 2 * kMargin, size.height() - 2 * kMargin);
    const double titleHeight = metrics.height() * 1.6;
    // Compact (one of several small multiples): no legend (the panel shows the shared one) and
    // one line of notes instead of the column captions.
    const double legendWidth =
        compact_ ? 0.0 : std::max(96.0, metrics.horizontalAdvance(QStringLiteral("-0.000123")) + 34.0);
    frame.titleArea = QRectF(all.left(), all.top(), all.width(), titleHeight);
    frame.legendArea =
        QRectF(all.right() - legendWidth, all.top() + titleHeight, legendWidth, all.height() - titleHeight);
    // Below the network: column captions (up to two lines in narrow columns, one more for a run's
    // group sizes) and one line of notes.
    frame.captionLines = snapshot_ && !sharingCaption(*snapshot_, 0).isEmpty() ? 3 : 2;
    // Thumbnails: a line above the columns for each column's colour limit.
    const double limitsHeight = thumbnails_ ? metrics.height() : 0.0;
    frame.networkArea = QRectF(
        all.left(), all.top() + titleHeight + limitsHeight, all.width() - legendWidth - (compact_ ? 0.0 : kMargin),
        all.height() - titleHeight - limitsHeight - metrics.height() * (compact_ ? 1.4 : frame.captionLines + 2.0));
    if (snapshot_)
        frame.layout = DiagramLayout(units_.columnSizes(), shown_, frame.networkArea, thumbnails_ != nullptr);
    return frame;
}

QPointF NetworkDiagramView::neuronCenter(int layer, int neuron) const {
    const Frame frame = frameFor(size());
    const int column = layer + 1;
    if (column < 0 || column >= frame.layout.columnCount()) return {};
    const int slot = frame.layout.slotOf(column, neuron);
    return slot < 0 ? QPointF() : frame.layout.center(column, slot);
}

NetworkDiagramView::Hit NetworkDiagramView::hitAt(const Frame& frame, QPointF point) const {
    const DiagramLayout& layout = frame.layout;
    Hit hit;
    // The nearest neuron within reach: in a small multiple the reach of two neighbours overlaps,
    // and the first one found took clicks meant for the second.
    double nearestNeuron = layout.radius() + 2.0;
    for (int c = 0; c < layout.columnCount(); ++c) {
        for (int n = 0; n < layout.drawnNeurons(c); ++n) {
            const QPointF d = point - layout.center(c, n);
            const double distance = std::hypot(d.x(), d.y());
            if (distance <= nearestNeuron)
                nearestNeuron = distance, hit = {Hit::Kind::Neuron, c - 1, layout.neuronAt(c, n), -1};
        }
    }
    if (hit.kind == Hit::Kind::Neuron) return hit;
    double nearest = kConnectionHitDistance;
    for (int c = 0; c + 1 < layout.columnCount(); ++c) {
        for (int j = 0; j < layout.drawnNeurons(c + 1); ++j) {
            for (int i = 0; i < layout.drawnNeurons(c); ++i) {
                const double distance = distanceToSegment(point, layout.center(c, i), layout.center(c + 1, j));
                if (distance <= nearest)
                    nearest = distance,
                    hit = {Hit::Kind::Connection, c, layout.neuronAt(c + 1, j), layout.neuronAt(c, i)};
            }
        }
    }
    return hit;
}

QString NetworkDiagramView::toolTipAt(QPointF point) const {
    if (!snapshot_) return {};
    const Frame frame = frameFor(size());
    const Hit hit = hitAt(frame, point);
    const QString quantity = displayName(quantity_);
    const QString missing = missingQuantityReason(*snapshot_);
    auto valueText = [&missing](float value) { return std::isnan(value) ? missing : preciseValue(value); };
    switch (hit.kind) {
    case Hit::Kind::None: return {};
    case Hit::Kind::Connection: {
        const UnitLayer& layer = units_.layers[static_cast<std::size_t>(hit.layer)];
        if (layer.columnsPerInput > 1)  // a kernel (or a flattened channel): no single connection to follow
            return tr("%1 → %2\n%3: %4")
                .arg(unitName(units_, hit.layer, hit.column), unitName(units_, hit.layer + 1, hit.row),
                     kernelTooltip(layer, quantity), valueText(valueAt(hit.layer, hit.row, hit.column)));
        return tr("%1 → %2 (click to follow it)\n%3: %4")
            .arg(neuronName(hit.layer, hit.column), neuronName(hit.layer + 1, hit.row), quantity,
                 valueText(valueAt(hit.layer, hit.row, hit.column)));
    }
    case Hit::Kind::Neuron: {
        if (hit.layer < 0) return unitName(units_, 0, hit.row);
        // values_ holds per-unit means (a conv kernel is one column), so its bias column is its own
        // last one, not the parameter matrix's.
        const int biasColumn = static_cast<int>(values_[static_cast<std::size_t>(hit.layer)].cols()) - 1;
        QStringList lines{tr("%1 (click to inspect)").arg(unitName(units_, hit.layer + 1, hit.row)),
                          tr("bias %1: %2").arg(quantity, valueText(valueAt(hit.layer, hit.row, biasColumn)))};
        if (thumbnails_ && thumbnails_->hasNeuron(hit.layer + 1, hit.row))
            lines << tr("inside: its output over the inputs' range, on the column's scale ±%1")
                         .arg(formatValue(thumbnails_->limit(hit.layer + 1)));
        return (lines + sharingLines(*snapshot_, hit.layer)).join(QLatin1Char('\n'));
    }
    }
    return {};
}

bool NetworkDiagramView::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty()) {
            QToolTip::hideText();
            event->ignore();
        } else {
            QToolTip::showText(help->globalPos(), text, this);
        }
        return true;
    }
    return QWidget::event(event);
}

void NetworkDiagramView::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || !snapshot_) return QWidget::mousePressEvent(event);
    const Hit hit = hitAt(frameFor(size()), event->position());
    if (hit.kind == Hit::Kind::Connection) {
        // A kernel line stands for k*k connections: the inspector shows the whole channel.
        if (units_.layers[static_cast<std::size_t>(hit.layer)].columnsPerInput > 1) {
            setSelectedNeuron(hit.layer, hit.row);
            return Q_EMIT neuronClicked(hit.layer, hit.row);
        }
        return Q_EMIT connectionClicked(hit.layer, hit.row, hit.column);
    }
    if (hit.kind != Hit::Kind::Neuron || hit.layer < 0) return QWidget::mousePressEvent(event);
    setSelectedNeuron(hit.layer, hit.row);
    Q_EMIT neuronClicked(hit.layer, hit.row);
}

void NetworkDiagramView::redraw() {
    cacheValid_ = false;
    RenderQueue::instance().request(this, [this] {
        if (cacheValid_) return;  // a paint drew it meanwhile
        drawCache();
        update();
    });
}

void NetworkDiagramView::drawCache() const {
    const qreal ratio = devicePixelRatioF();
    const QSize pixels = size() * ratio;
    if (cache_.size() != pixels) cache_ = QImage(pixels, QImage::Format_ARGB32_Premultiplied);
    cache_.setDevicePixelRatio(ratio);
    QPainter painter(&cache_);
    render(painter, size());  // paints every pixel (white first)
    cacheValid_ = true;
}

void NetworkDiagramView::paintEvent(QPaintEvent*) {
    if (!cacheValid_ || cache_.size() != size() * devicePixelRatioF()) drawCache();
    QPainter painter(this);
    painter.drawImage(QPointF(0, 0), cache_);
}

void NetworkDiagramView::render(QPainter& painter, QSize size) const {
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setFont(font());
    painter.fillRect(QRect(QPoint(0, 0), size), Qt::white);
    const Frame frame = frameFor(size);
    paintTitle(painter, frame);
    if (snapshot_) {
        paintConnections(painter, frame);
        paintPools(painter, frame);
        paintNeurons(painter, frame);
        paintThumbnailLimits(painter, frame);
        paintNotes(painter, frame);
        if (compact_) return painter.restore();
        scale_.paintLegend(
            painter, frame.legendArea.adjusted(0, 0, 0, -painter.fontMetrics().height() * 3.5),
            (ownValues_ || !caption_.contains(QStringLiteral(" − ")) ? QString() : QStringLiteral("Δ ")) +
                displayName(quantity_));
        painter.setPen(Qt::black);
        painter.drawText(QRectF(frame.legendArea.left(), frame.legendArea.bottom() - painter.fontMetrics().height() * 3,
                                frame.legendArea.width(), painter.fontMetrics().height() * 3),
                         Qt::AlignLeft | Qt::AlignBottom | Qt::TextWordWrap,
                         thumbnails_ ? thumbnailLegend() : tr("width: |value|\nfill: bias"));
    }
    painter.restore();
}

void NetworkDiagramView::paintTitle(QPainter& painter, const Frame& frame) const {
    QFont bold = painter.font();
    bold.setBold(true);
    painter.save();
    painter.setFont(bold);
    painter.setPen(Qt::black);
    // The run names give way (in their middle: a fork's "momentum@500→neuron-mean" keeps both
    // ends), never the step: "momentum − neu…mean · step 300 · momentum" (an
    // A − B title of two long labels once lost the step to a middle elision).
    const QString text = title();
    const qsizetype stepAt = text.indexOf(QStringLiteral(" · step "));
    const QString tail = stepAt >= 0 ? text.mid(stepAt) : QString();
    const QFontMetrics metrics = painter.fontMetrics();
    const int room = static_cast<int>(frame.titleArea.width());
    const QString shown =
        metrics.horizontalAdvance(text) <= room || tail.isEmpty() || metrics.horizontalAdvance(tail) >= room
            ? metrics.elidedText(text, Qt::ElideMiddle, room)
            : metrics.elidedText(text.left(stepAt), Qt::ElideMiddle, room - metrics.horizontalAdvance(tail)) + tail;
    painter.drawText(frame.titleArea, Qt::AlignLeft | Qt::AlignVCenter, shown);
    painter.restore();
}

void NetworkDiagramView::paintConnections(QPainter& painter, const Frame& frame) const {
    struct Line {
        QPointF from, to;
        float value;
    };
    const DiagramLayout& layout = frame.layout;
    std::vector<Line> lines;
    for (int c = 0; c + 1 < layout.columnCount(); ++c) {
        for (int j = 0; j < layout.drawnNeurons(c + 1); ++j)
            for (int i = 0; i < layout.drawnNeurons(c); ++i)
                lines.push_back({layout.center(c, i), layout.center(c + 1, j),
                                 valueAt(c, layout.neuronAt(c + 1, j), layout.neuronAt(c, i))});
    }
    // Small magnitudes first, so that the strong connections lie on top.
    std::sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) {
        return std::abs(a.value) < std::abs(b.value) || (std::isnan(b.value) && !std::isnan(a.value));
    });
    for (const Line& line : lines) {
        if (std::isnan(line.value)) {
            painter.setPen(QPen(kSkeleton, 1.0, Qt::DashLine));
            painter.drawLine(line.from, line.to);
            continue;
        }
        const double magnitude = std::min(1.0, std::abs(double(line.value)) / scale_.limit());
        const double width = kMinLineWidth + (kMaxLineWidth - kMinLineWidth) * magnitude;
        // A grey edge keeps near-zero (white) connections visible on the white background.
        painter.setPen(QPen(kSkeleton, width + 1.2, Qt::SolidLine, Qt::FlatCap));
        painter.drawLine(line.from, line.to);
        painter.setPen(QPen(scale_.colorAt(line.value), width, Qt::SolidLine, Qt::FlatCap));
        painter.drawLine(line.from, line.to);
    }
}

void NetworkDiagramView::paintNeurons(QPainter& painter, const Frame& frame) const {
    const DiagramLayout& layout = frame.layout;
    const double r = layout.radius();
    const QFontMetricsF metrics(painter.font());
    for (int c = 0; c < layout.columnCount(); ++c) {
        const int biasColumn = c == 0 ? -1 : static_cast<int>(values_[static_cast<std::size_t>(c - 1)].cols()) - 1;
        for (int slot = 0; slot < layout.drawnNeurons(c); ++slot) {
            const int n = layout.neuronAt(c, slot);
            const QPointF center = layout.center(c, slot);
            const bool thumbnail = thumbnails_ && thumbnails_->hasNeuron(c, n);
            if (c - 1 == selectedLayer_ && n == selectedNeuron_) {
                painter.setPen(QPen(kSelection, 3.0));
                painter.setBrush(Qt::NoBrush);
                if (thumbnail)
                    painter.drawRect(QRectF(center.x() - r - 4.0, center.y() - r - 4.0, 2 * r + 8.0, 2 * r + 8.0));
                else painter.drawEllipse(center, r + 4.0, r + 4.0);
            }
            if (thumbnail) {
                paintThumbnail(painter, center, r, c, n);
                continue;
            }
            const bool hasBias = c > 0 && biasColumn >= 0;
            const QColor fill = hasBias ? scale_.colorAt(valueAt(c - 1, n, biasColumn)) : kInputFill;
            if (isChannelColumn(units_, c)) {
                paintChannel(painter, center, r, fill);
            } else {
                painter.setPen(QPen(QColor(0x30, 0x30, 0x30), 1.2));
                painter.setBrush(fill);
                painter.drawEllipse(center, r, r);
            }
            paintIndex(painter, center, r, n, fill);
        }
        const int size = layout.drawnNeurons(c) + layout.hiddenNeurons(c);
        const double columnWidth = frame.networkArea.width() / layout.columnCount();
        if (layout.hiddenNeurons(c) > 0) {
            // Within its own column, so that neighbouring columns' notes never overlap.
            QString more = tr("⋮ +%1 more").arg(layout.hiddenNeurons(c));
            if (metrics.horizontalAdvance(more) > columnWidth) more = tr("+%1").arg(layout.hiddenNeurons(c));
            painter.setPen(Qt::black);
            const QPointF at = layout.ellipsisPosition(c);
            painter.drawText(
                QRectF(at.x() - columnWidth / 2, at.y() - metrics.height() / 2, columnWidth, metrics.height()),
                Qt::AlignCenter, more);
        }
        if (compact_) continue;
        painter.setPen(Qt::darkGray);
        const QPointF bottom(layout.center(c, 0).x(), frame.networkArea.bottom());
        painter.drawText(
            QRectF(bottom.x() - columnWidth / 2, bottom.y() + 2, columnWidth, frame.captionLines * metrics.height()),
            Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap, captionOf(c, layout.columnCount(), size));
    }
}

// Under a column: its name and size, and for a run that shares state, its group size.
QString NetworkDiagramView::captionOf(int column, int columnCount, int size) const {
    const QString groups = column > 0 ? sharingCaption(*snapshot_, column - 1) : QString();
    const QString caption = column < columnNames_.size() ? QStringLiteral("%1: %2").arg(columnNames_[column]).arg(size)
                            : isChannelColumn(units_, column) ? channelCaption(units_, column)
                                                              : layerCaption(column, columnCount, size);
    return groups.isEmpty() ? caption : caption + QLatin1Char('\n') + groups;
}

// The neuron's index inside its circle (as in "layer 1, neuron 0"), when the circle can hold it.
void NetworkDiagramView::paintIndex(QPainter& painter, QPointF center, double radius, int neuron,
                                    const QColor& fill) const {
    QFont small = painter.font();
    small.setPointSizeF(std::max(6.0, std::min(small.pointSizeF(), radius * 0.9)));
    const QString text = QString::number(neuron);
    if (QFontMetricsF(small).horizontalAdvance(text) > 1.8 * radius) return;
    painter.save();
    painter.setFont(small);
    painter.setPen(fill.lightnessF() < 0.5 ? Qt::white : Qt::black);
    painter.drawText(QRectF(center.x() - radius, center.y() - radius, 2 * radius, 2 * radius), Qt::AlignCenter, text);
    painter.restore();
}

// What the squares hold, under the colour legend: the output over the inputs, which way they run.
QString NetworkDiagramView::thumbnailLegend() const {
    const bool plane = thumbnails_->columnCount() > 0 && thumbnails_->values(0).cols() == 2;
    return tr("width: |value|\ninside: output\n%1").arg(plane ? tr("over x₁ →, x₂ ↑") : tr("x₁ →, value ↑"));
}

// The neuron's function over the input range in a square as wide as the circle it replaces.
void NetworkDiagramView::paintThumbnail(QPainter& painter, QPointF center, double radius, int column,
                                        int neuron) const {
    const QRectF square(center.x() - radius, center.y() - radius, 2 * radius, 2 * radius);
    thumbnails_->paint(painter, column, neuron, square);
    painter.setPen(QPen(QColor(0x30, 0x30, 0x30), 1.0));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(square);
}

// Above each column of thumbnails, its colour limit (one per column, shared by every canvas).
void NetworkDiagramView::paintThumbnailLimits(QPainter& painter, const Frame& frame) const {
    if (!thumbnails_) return;
    const DiagramLayout& layout = frame.layout;
    const double columnWidth = frame.networkArea.width() / std::max(1, layout.columnCount());
    painter.save();
    QFont small = painter.font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    painter.setFont(small);
    painter.setPen(Qt::darkGray);
    const double height = QFontMetricsF(small).height();
    for (int c = 0; c < layout.columnCount() && c < thumbnails_->columnCount(); ++c) {
        if (layout.drawnNeurons(c) == 0) continue;
        const QPointF top = layout.center(c, 0) - QPointF(0.0, layout.radius());
        painter.drawText(QRectF(top.x() - columnWidth / 2, top.y() - height - 1.0, columnWidth, height),
                         Qt::AlignCenter, QStringLiteral("±%1").arg(formatValue(thumbnails_->limit(c))));
    }
    painter.restore();
}

// A thin box right of each conv column that a pooling layer follows.
void NetworkDiagramView::paintPools(QPainter& painter, const Frame& frame) const {
    const DiagramLayout& layout = frame.layout;
    for (int c = 1; c < layout.columnCount(); ++c) {
        const QString& pool = units_.layers[static_cast<std::size_t>(c - 1)].poolAfter;
        if (pool.isEmpty() || layout.drawnNeurons(c) == 0) continue;
        const double r = layout.radius();
        // The label goes above the box only where there is room under the title; the column
        // caption names the pooling too.
        const double top = layout.center(c, 0).y() - r;
        const bool labelFits = top - 1.5 * QFontMetricsF(painter.font()).height() >= frame.networkArea.top();
        paintPool(painter, top, layout.center(c, layout.drawnNeurons(c) - 1).y() + r,
                  layout.center(c, 0).x() + poolOffset(r), labelFits ? pool : QString());
    }
}

void NetworkDiagramView::paintNotes(QPainter& painter, const Frame& frame) const {
    QStringList notes;
    if (units_.hasConv() && !compact_)
        notes << tr(
            "Squares are channels; a line from a channel stands for its k×k kernel (or its flattened pixels), coloured by the mean.");
    // A small multiple's caption already names the quantity: its note is the reason alone.
    if (std::any_of(values_.begin(), values_.end(), [](const Matrix& m) { return m.size() == 0; })) {
        const QString reason = snapshot_ ? missingQuantityReason(*snapshot_) : QString();
        notes << (compact_ ? reason : tr("%1: %2.").arg(displayName(quantity_), reason));
    }
    const DiagramLayout& layout = frame.layout;
    for (int c = 0; c < layout.columnCount() && !compact_; ++c) {  // small multiples: no room for it
        if (layout.hiddenNeurons(c) == 0) continue;
        notes
            << tr("Wide layers: the %1 neurons with the largest |%2| are drawn; the heat-map view shows every connection.")
                   .arg(kMaxDrawnNeurons)
                   .arg(displayName(quantity_));
        break;
    }
    if (notes.isEmpty()) return;
    const QFontMetricsF metrics(painter.font());
    painter.setPen(QColor(0xa0, 0x40, 0x00));
    const QRectF box(frame.networkArea.left(),
                     frame.networkArea.bottom() + metrics.height() * (compact_ ? 0.1 : frame.captionLines + 0.3),
                     frame.networkArea.width(), metrics.height() * 1.6);
    const QString text = notes.join(QLatin1Char(' '));
    // A small multiple has room for one line: elided rather than cut through the middle.
    if (compact_)
        painter.drawText(box, Qt::AlignLeft | Qt::AlignTop, metrics.elidedText(text, Qt::ElideRight, box.width()));
    else painter.drawText(box, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, text);
}

// ---------------------------------------------------------------------------------------------
ColourLegend::ColourLegend(QWidget* parent) : QWidget(parent) { setMinimumWidth(sizeHint().width()); }

QSize ColourLegend::sizeHint() const {
    return {fontMetrics().horizontalAdvance(QStringLiteral("-0.000123")) + 34, 160};
}

void ColourLegend::setScale(double limit, const QString& title) {
    scale_.setFixedLimit(limit);
    title_ = title;
    update();
}

void ColourLegend::paint(QPainter& painter, const QRectF& rect) const {
    painter.save();
    painter.setFont(font());
    painter.setRenderHint(QPainter::Antialiasing);
    const double line = painter.fontMetrics().height();
    scale_.paintLegend(painter, rect.adjusted(0, 0, 0, -line * 3.5), title_);
    painter.setPen(Qt::black);
    painter.drawText(QRectF(rect.left(), rect.bottom() - line * 3, rect.width(), line * 3),
                     Qt::AlignLeft | Qt::AlignBottom | Qt::TextWordWrap, tr("one scale\nfor all runs"));
    painter.restore();
}

void ColourLegend::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), Qt::white);
    paint(painter, QRectF(rect()).adjusted(2, 8, -2, -8));
}

NetworkDiagramPanel::NetworkDiagramPanel(RunSelection* selection, QWidget* parent)
    : QWidget(parent), selection_(selection), quantities_(new QuantitySelector(this)),
      limit_(new ColorLimitSpinBox(this)), thumbnailToggle_(new QCheckBox(tr("Neuron functions"), this)),
      blocks_(new LayerBlockList(this)), grid_(new QWidget(this)), legend_(new ColourLegend(this)) {
    thumbnailToggle_->setObjectName(QStringLiteral("neuronFunctions"));
    offerThumbnails();
    auto* body = new QWidget(this);
    auto* column = new QVBoxLayout(body);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(2);
    auto* row = new QHBoxLayout;
    row->setSpacing(0);
    blocks_->setParent(body);
    grid_->setParent(body);
    legend_->setParent(body);
    column->addWidget(blocks_);
    column->addLayout(row, 1);
    row->addWidget(grid_, 1);
    row->addWidget(legend_);
    connect(blocks_, &LayerBlockList::layerPicked, this, [this] {
        setSelectedNeuron(-1, -1);
        refresh();
    });
    layOutPanel(this, {{tr("Colour"), quantities_}, {QString(), limit_}, {QString(), thumbnailToggle_}}, body);
    grid_->installEventFilter(this);
    ensureCanvases(1);
    connect(quantities_, &QuantitySelector::quantityChanged, this, &NetworkDiagramPanel::refresh);
    connect(limit_, &ColorLimitSpinBox::limitChanged, this, &NetworkDiagramPanel::refresh);
    connect(thumbnailToggle_, &QCheckBox::toggled, this, [this](bool shown) {
        refresh();
        Q_EMIT thumbnailsToggled(shown);
    });
    connect(selection_, &RunSelection::selectionChanged, this, &NetworkDiagramPanel::refresh);
    connect(selection_, &RunSelection::stepChanged, this, &NetworkDiagramPanel::refresh);
    auto* redraw = new RedrawWhenShown(this, [this] { refresh(); });
    connect(selection_, &RunSelection::snapshotsArrived, this, [this, redraw] {
        if (selection_->step() < 0) redraw->request();  // a replayed step does not move with new data
    });
    refresh();
}

void NetworkDiagramPanel::setQuantity(Quantity quantity) { quantities_->setQuantity(quantity); }

void NetworkDiagramPanel::setNetwork(const NetworkSpec& network) {
    network_ = network;
    for (NetworkDiagramView* canvas : canvases_) canvas->setNetwork(network);
}
Quantity NetworkDiagramPanel::quantity() const { return quantities_->quantity(); }

void NetworkDiagramPanel::setExperiment(const Experiment& experiment) {
    blocks_->showLayers(experiment.recorded);
    shownBlocks_.clear();
    if (experiment.recorded.asBlocks) {  // no network: each canvas draws one layer from its matrices
        network_.reset();
        for (NetworkDiagramView* canvas : canvases_) canvas->clear();
    } else {
        setNetwork(experiment.network);
    }
    thumbnails_.setExperiment(experiment);
    offerThumbnails();
}

bool NetworkDiagramPanel::inBlockMode() const { return blocks_->count() > 0; }

int NetworkDiagramPanel::pickedBlock() const { return inBlockMode() ? blocks_->currentLayer() : -1; }

int NetworkDiagramPanel::canvasLayer(int layer) const {
    if (!inBlockMode()) return layer;
    return layer >= 0 && layer == pickedBlock() ? 0 : -1;
}

// The snapshot's one layer as a network of its own: the header and the layer's parameters (its
// shape for the drawing; the colours come with the values), nothing else copied.
SharedSnapshot NetworkDiagramPanel::blockOf(const SharedSnapshot& snapshot, int layer) {
    for (const Block& shown : shownBlocks_)
        if (shown.whole == snapshot && shown.layer == layer) return shown.alone;
    auto block = std::make_shared<Snapshot>();
    block->run = snapshot->run;
    block->label = snapshot->label;
    block->step = snapshot->step;
    block->epoch = snapshot->epoch;
    block->batchLoss = snapshot->batchLoss;
    block->scope = snapshot->scope;
    block->bias = snapshot->bias;
    block->weightsOnly = snapshot->weightsOnly;
    block->statistic = snapshot->statistic;
    block->secondMomentScope = snapshot->secondMomentScope;
    const LayerSnapshot& source = snapshot->layers[static_cast<std::size_t>(layer)];
    LayerSnapshot only;
    only.parameters = source.parameters;
    only.neuronMeans = source.neuronMeans;
    only.columnsPerInput = source.columnsPerInput;
    block->layers.push_back(std::move(only));
    shownBlocks_.push_back({snapshot, layer, block});
    return block;
}

bool NetworkDiagramPanel::thumbnailsShown() const { return thumbnailToggle_->isChecked(); }

void NetworkDiagramPanel::setThumbnailsShown(bool shown) { thumbnailToggle_->setChecked(shown); }

void NetworkDiagramPanel::setThumbnailSamples(int samples) {
    thumbnails_.setSamples(samples);
    refresh();
}

// The toggle keeps its state for the next network that has neuron functions; meanwhile disabled,
// with the reason (also after the data could not be read).
void NetworkDiagramPanel::offerThumbnails() {
    const QString reason = thumbnails_.unsupportedReason();
    thumbnailToggle_->setEnabled(reason.isEmpty());
    thumbnailToggle_->setToolTip(
        reason.isEmpty()
            ? tr("Draw each neuron as its output over the range of the training inputs, at the shown step: an "
                 "image over the plane (two inputs) or a curve (one input)")
            : tr("Neuron functions are drawn for dense networks with one or two inputs: %1").arg(reason));
}

void NetworkDiagramPanel::ensureCanvases(int count) {
    count = std::max(1, count);
    if (static_cast<int>(canvases_.size()) == count) return;
    while (static_cast<int>(canvases_.size()) > count) {
        delete canvases_.back();
        canvases_.pop_back();
    }
    while (static_cast<int>(canvases_.size()) < count) {
        auto* canvas = new NetworkDiagramView(grid_);
        if (network_) canvas->setNetwork(*network_);
        // In block mode a canvas draws the picked layer as its layer 0.
        connect(canvas, &NetworkDiagramView::neuronClicked, this, [this](int layer, int neuron) {
            if (inBlockMode()) layer = pickedBlock();
            setSelectedNeuron(layer, neuron);
            Q_EMIT neuronClicked(layer, neuron);
        });
        connect(canvas, &NetworkDiagramView::connectionClicked, this, [this](int layer, int neuron, int input) {
            Q_EMIT connectionClicked(inBlockMode() ? pickedBlock() : layer, neuron, input);
        });
        canvas->show();
        canvases_.push_back(canvas);
    }
    for (NetworkDiagramView* canvas : canvases_) canvas->setCompact(count > 1);
    // The grid is never smaller than its canvases at their minimum, in the squarest arrangement
    // (nine runs: 3 x 3): at the window's minimum size they once shrank to 71 x 40 px.
    const QSize least = canvases_.front()->minimumSizeHint();
    const int columns = static_cast<int>(std::ceil(std::sqrt(double(count))));
    const int rows = (count + columns - 1) / columns;
    grid_->setMinimumSize(least.width() * columns, least.height() * rows);
    arrangeCanvases();
}

// Columns of the small multiples: as many as keep each canvas near a 4:3 shape in `area` (with
// neuron functions, 9:10).
// Within that, as many as leave every canvas at least its minimum size where the area allows.
int NetworkDiagramPanel::gridColumns(QSize area) const {
    const int n = static_cast<int>(canvases_.size());
    const double aspect = area.height() > 0 ? double(area.width()) / area.height() : 1.0;
    // Thumbnails stack their squares in columns: canvases nearer a square shape give them room.
    const double canvasAspect = thumbnailsShown() && thumbnailToggle_->isEnabled() ? 0.9 : 1.33;
    const int shapely = std::clamp(static_cast<int>(std::lround(std::sqrt(n * aspect / canvasAspect))), 1, n);
    const QSize least = canvases_.front()->minimumSizeHint();
    const int mostColumns = std::max(1, area.width() / std::max(1, least.width()));
    const int mostRows = std::max(1, area.height() / std::max(1, least.height()));
    const int fewestColumns = (n + mostRows - 1) / mostRows;
    return fewestColumns <= mostColumns ? std::clamp(shapely, fewestColumns, std::min(mostColumns, n)) : shapely;
}

void NetworkDiagramPanel::arrangeCanvases() {
    const int n = static_cast<int>(canvases_.size());
    const int columns = gridColumns(grid_->size());
    const int rows = (n + columns - 1) / columns;
    const double w = grid_->width() / double(columns), h = grid_->height() / double(std::max(1, rows));
    for (int k = 0; k < n; ++k)
        canvases_[static_cast<std::size_t>(k)]->setGeometry(
            QRect(int((k % columns) * w), int((k / columns) * h), int(w), int(h)));
}

// The canvases are laid out by hand (a grid whose shape follows the area): on every resize.
bool NetworkDiagramPanel::eventFilter(QObject* watched, QEvent* event) {
    if (watched == grid_ && event->type() == QEvent::Resize) arrangeCanvases();
    return QWidget::eventFilter(watched, event);
}

void NetworkDiagramPanel::refresh() {
    const std::vector<RunSelection::Panel> panels = selection_->panels();
    quantities_->offer(selection_->availableQuantities());
    const Quantity quantity = quantities_->quantity();
    ensureCanvases(static_cast<int>(panels.size()));
    std::vector<std::shared_ptr<const NeuronThumbnails>> thumbnails(panels.size());
    if (thumbnailsShown() && thumbnailToggle_->isEnabled()) {
        thumbnails = thumbnails_.thumbnailsFor(panels);
        offerThumbnails();  // the data may have failed to load
    }
    double shared = 0.0;
    for (std::size_t k = 0; k < canvases_.size(); ++k) {
        NetworkDiagramView* canvas = canvases_[k];
        canvas->setQuantity(quantity);
        if (k >= panels.size() || !panels[k].ready()) {
            canvas->clear();
            continue;
        }
        std::vector<Matrix> values;
        const int layers = static_cast<int>(panels[k].snapshot->layers.size());
        const int block = pickedBlock();
        if (inBlockMode() && block >= 0 && block < layers) {
            values.push_back(RunSelection::values(panels[k], block, quantity));
            canvas->setThumbnails(nullptr);
            const QString name = blocks_->layerName(block);
            canvas->setColumnNames({tr("inputs of %1").arg(name), name});
            canvas->showPanel(blockOf(panels[k].snapshot, block), std::move(values),
                              panels[k].caption + QStringLiteral(" · ") + name);
            canvas->setSelectedNeuron(canvasLayer(selectedLayer_), selectedNeuron_);
            shared = std::max(shared, canvas->fittedLimit());
            continue;
        }
        for (int l = 0; l < layers; ++l) values.push_back(RunSelection::values(panels[k], l, quantity));
        canvas->setColumnNames({});
        canvas->setThumbnails(thumbnails[k]);
        canvas->showPanel(panels[k].snapshot, std::move(values), panels[k].caption);
        canvas->setSelectedNeuron(selectedLayer_, selectedNeuron_);
        shared = std::max(shared, canvas->fittedLimit());
    }
    // Only the blocks of the panels on screen stay kept (each panel's latest is at the back).
    if (shownBlocks_.size() > panels.size())
        shownBlocks_.erase(shownBlocks_.begin(), shownBlocks_.end() - static_cast<std::ptrdiff_t>(panels.size()));
    // One locked scale for every panel: the user's limit, or the largest fitted one.
    const double limit = limit_->limit() > 0.0 ? limit_->limit() : (shared > 0.0 ? shared : 1.0);
    for (NetworkDiagramView* canvas : canvases_) canvas->setColorLimit(limit);
    // Several canvases share one legend beside them (they draw none themselves).
    legend_->setVisible(canvases_.size() > 1);
    legend_->setScale(limit, (selection_->isDifference() ? QStringLiteral("Δ ") : QString()) + displayName(quantity));
    arrangeCanvases();
}

void NetworkDiagramPanel::setSelectedNeuron(int layer, int neuron) {
    selectedLayer_ = layer;
    selectedNeuron_ = neuron;
    if (inBlockMode() && layer >= 0 && layer != pickedBlock()) {  // a neuron of another block: draw that one
        const QSignalBlocker quiet(blocks_);
        blocks_->setCurrentLayer(layer);
        refresh();
    }
    for (NetworkDiagramView* canvas : canvases_) canvas->setSelectedNeuron(canvasLayer(layer), neuron);
}

void NetworkDiagramPanel::renderAll(QPainter& painter, QSize size) const {
    const int n = static_cast<int>(canvases_.size());
    if (n > 1) {  // the shared legend on the right
        const int width = legend_->sizeHint().width();
        legend_->paint(painter, QRectF(size.width() - width, 8, width - 4, size.height() - 16));
        size.setWidth(size.width() - width);
    }
    const int columns = gridColumns(size);
    const int rows = (n + columns - 1) / columns;
    const QSize cell(size.width() / columns, size.height() / std::max(1, rows));
    for (int k = 0; k < n; ++k) {
        painter.save();
        painter.translate((k % columns) * cell.width(), (k / columns) * cell.height());
        canvases_[static_cast<std::size_t>(k)]->render(painter, cell);
        painter.restore();
    }
}

}  // namespace ml
