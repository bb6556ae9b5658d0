#include "views/ConvergencePlot.h"

#include "model/RunPalette.h"
#include "views/DivergingColorScale.h"
#include "common/RenderQueue.h"
#include "common/ReservedGraphData.h"
#include "views/ViewControls.h"

#include <QCheckBox>
#include <QEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QToolTip>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QSlider>
#include <QToolButton>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <optional>

namespace ml {

namespace {

QString xAxisLabel(ConvergencePlot::XAxis axis) {
    switch (axis) {
    case ConvergencePlot::XAxis::Step: return QObject::tr("step");
    case ConvergencePlot::XAxis::Epoch: return QObject::tr("epoch");
    case ConvergencePlot::XAxis::WallTime: return QObject::tr("training time (s)");
    }
    return {};
}

constexpr int kMaxMarkedEvaluations = 60;
constexpr int kMaxWidePenPoints = 300;
constexpr int kLegendColumns = 5;
constexpr int kTitleRow = 0, kLegendRow = 1, kNoteRow = 2, kLossRow = 3, kAccuracyRow = 4;
// Where there is room, the accuracy strip gets a third of the two plots' height, however many runs.
constexpr double kLossStretch = 2.0, kAccuracyStretch = 1.05;
// QCPLayoutGrid first gives every row its minimum (an axis rect's default: 50 px inside 15-px
// margins) and only shares what is left by the stretch factors: on a 1366 x 768 screen nothing
// was left, and the strip, with the x axis's labels below it, came out taller than the loss plot.
// The strip's minimum is smaller, and the gap between the two plots thinner.
constexpr int kAccuracyMinimumHeight = 28;
constexpr int kGapBetweenPlots = 4;
constexpr double kLossOffsetPerRun = 0.015;      // "Offset curves": loss x (1 + 1.5 % x run)
constexpr double kAccuracyOffsetPerRun = 0.003;  // accuracy + 0.3 points x run
const QColor kHiddenText(170, 170, 170);

QCPAxis* bottomAxis(QCPAxisRect* rect) { return rect->axis(QCPAxis::atBottom); }
QCPAxis* leftAxis(QCPAxisRect* rect) { return rect->axis(QCPAxis::atLeft); }

}  // namespace

ConvergencePlot::ConvergencePlot(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(buildControls());
    buildPlot();
    layout->addWidget(plot_, 1);
    setLogScale(logScale_);
    updateAxisLabels();
    updateNote();
    refresh();
}

QWidget* ConvergencePlot::buildControls() {
    auto* bar = new QWidget(this);
    auto* row = new QHBoxLayout(bar);
    row->setContentsMargins(6, 4, 6, 0);

    xAxisChoice_ = new QComboBox(bar);
    xAxisChoice_->addItem(tr("Step"), int(XAxis::Step));
    xAxisChoice_->addItem(tr("Epoch"), int(XAxis::Epoch));
    xAxisChoice_->addItem(tr("Training time"), int(XAxis::WallTime));
    xAxisChoice_->setToolTip(tr("What the horizontal axis counts (training time excludes evaluations)"));
    connect(xAxisChoice_, &QComboBox::currentIndexChanged, this,
            [this] { setXAxis(static_cast<XAxis>(xAxisChoice_->currentData().toInt())); });

    logChoice_ = new QCheckBox(tr("Log loss axis"), bar);
    logChoice_->setChecked(logScale_);
    connect(logChoice_, &QCheckBox::toggled, this, &ConvergencePlot::setLogScale);

    smoothingSlider_ = new QSlider(Qt::Horizontal, bar);
    smoothingSlider_->setRange(0, 99);
    smoothingSlider_->setMinimumWidth(50);  // narrower on a small screen
    smoothingSlider_->setMaximumWidth(120);
    smoothingSlider_->setToolTip(tr("Exponential moving average of the plotted points (0 = raw values)"));
    smoothingLabel_ = new QLabel(bar);
    smoothingLabel_->setMinimumWidth(smoothingLabel_->fontMetrics().horizontalAdvance("0.00 "));
    connect(smoothingSlider_, &QSlider::valueChanged, this, [this](int value) { setSmoothing(value / 100.0); });

    auto* fit = new QToolButton(bar);
    fit->setText(tr("Fit"));
    fit->setToolTip(tr("Show all data and follow new data again (or double-click the plot)"));
    connect(fit, &QToolButton::clicked, this, &ConvergencePlot::fitToData);

    allowNarrowCombo(xAxisChoice_);
    row->addWidget(new QLabel(tr("X axis:"), bar));
    row->addWidget(xAxisChoice_);
    row->addSpacing(12);
    row->addWidget(logChoice_);
    row->addSpacing(12);
    row->addWidget(new QLabel(tr("Smoothing:"), bar));
    row->addWidget(smoothingSlider_);
    row->addWidget(smoothingLabel_);
    row->addStretch(1);
    row->addWidget(fit);
    setSmoothing(0.0);
    return bar;
}

void ConvergencePlot::buildPlot() {
    plot_ = new QCustomPlot(this);
    plot_->setAutoAddPlottableToLegend(false);
    plot_->setNoAntialiasingOnDrag(true);
    plot_->plotLayout()->clear();

    // Rows: title, legend (outside the data, one entry per run), loss, accuracy.
    title_ = new QCPTextElement(plot_, QString(), QFont(font().family(), font().pointSize() + 1, QFont::Bold));
    legend_ = new QCPLegend;
    lossRect_ = new QCPAxisRect(plot_);
    accuracyRect_ = new QCPAxisRect(plot_);
    plot_->plotLayout()->addElement(kTitleRow, 0, title_);
    // The legend shares its row with an empty spacer: an empty QCPLegend's maximum width is 0,
    // which would otherwise squeeze the whole column of the plot layout.
    auto* legendRow = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(kLegendRow, 0, legendRow);
    legendRow->addElement(0, 0, legend_);
    legendRow->addElement(0, 1, new QCPLayoutElement(plot_));
    legendRow->setColumnStretchFactor(1, 0.001);
    QFont noteFont = font();
    note_ = new QCPTextElement(plot_, QString(), noteFont);
    note_->setTextColor(QColor(80, 80, 80));
    note_->setMargins(QMargins(4, 0, 4, 2));
    plot_->plotLayout()->addElement(kNoteRow, 0, note_);
    plot_->plotLayout()->addElement(kLossRow, 0, lossRect_);
    plot_->plotLayout()->addElement(kAccuracyRow, 0, accuracyRect_);
    plot_->plotLayout()->setRowStretchFactor(kLegendRow, 0.001);
    plot_->plotLayout()->setRowStretchFactor(kNoteRow, 0.001);
    plot_->plotLayout()->setRowStretchFactor(kLossRow, kLossStretch);
    plot_->plotLayout()->setRowStretchFactor(kAccuracyRow, kAccuracyStretch);

    margins_ = new QCPMarginGroup(plot_);
    for (QCPAxisRect* rect : {lossRect_, accuracyRect_}) {
        rect->setMarginGroup(QCP::msLeft | QCP::msRight, margins_);
        for (QCPAxis* axis : rect->axes()) axis->grid()->setSubGridVisible(false);
        leftAxis(rect)->grid()->setPen(QPen(QColor(200, 200, 200), 0, Qt::DotLine));
        bottomAxis(rect)->grid()->setPen(QPen(QColor(200, 200, 200), 0, Qt::DotLine));
    }
    lossRect_->setRangeDrag(Qt::Horizontal | Qt::Vertical);
    lossRect_->setRangeZoom(Qt::Horizontal | Qt::Vertical);
    accuracyRect_->setMinimumSize(0, kAccuracyMinimumHeight);
    QMargins lossMinimum = lossRect_->minimumMargins(), accuracyMinimum = accuracyRect_->minimumMargins();
    lossMinimum.setBottom(kGapBetweenPlots);
    accuracyMinimum.setTop(kGapBetweenPlots);
    lossRect_->setMinimumMargins(
        lossMinimum);  // the loss plot's bottom margin is its x axis's when the strip is hidden
    accuracyRect_->setMinimumMargins(accuracyMinimum);
    accuracyRect_->setRangeDrag(Qt::Vertical);
    accuracyRect_->setRangeZoom(Qt::Vertical);
    leftAxis(accuracyRect_)->setLabel(tr("test acc."));  // "test accuracy" is taller than a low strip
    // Two or three tick labels, which a low strip can tell apart (steps like 0.15 allowed: with
    // "readable" steps only, 0.62 .. 0.99 had one label, 0.8, or three crowded ones).
    leftAxis(accuracyRect_)->ticker()->setTickCount(2);
    leftAxis(accuracyRect_)->ticker()->setTickStepStrategy(QCPAxisTicker::tssMeetTickCount);
    leftAxis(accuracyRect_)->setRange(0.0, 1.0);
    // The accuracy plot shares the loss plot's x range.
    connect(bottomAxis(lossRect_), qOverload<const QCPRange&>(&QCPAxis::rangeChanged), bottomAxis(accuracyRect_),
            qOverload<const QCPRange&>(&QCPAxis::setRange));

    legend_->setLayer("legend");
    legend_->setFillOrder(QCPLegend::foColumnsFirst);
    legend_->setBorderPen(Qt::NoPen);
    legend_->setMargins(QMargins(4, 0, 4, 0));

    placeholder_ = new QCPItemText(plot_);
    placeholder_->setClipAxisRect(lossRect_);
    placeholder_->position->setType(QCPItemPosition::ptAxisRectRatio);
    placeholder_->position->setAxisRect(lossRect_);
    placeholder_->position->setCoords(0.5, 0.5);
    placeholder_->setColor(QColor(120, 120, 120));
    placeholder_->setText(tr("No training data yet: press Start (F5), or open a CLI run folder"));

    hoverLine_ = new QCPItemStraightLine(plot_);
    hoverLine_->setClipAxisRect(lossRect_);
    for (QCPItemPosition* end : {hoverLine_->point1, hoverLine_->point2})
        end->setAxes(bottomAxis(lossRect_), leftAxis(lossRect_));
    hoverLine_->setPen(QPen(QColor(120, 120, 120), 1.0, Qt::DotLine));
    hoverLine_->setVisible(false);
    for (QCPAxisRect* rect : {lossRect_, accuracyRect_}) {
        auto* marker = new QCPItemStraightLine(plot_);
        marker->setClipAxisRect(rect);
        // Two positive values: the line stays vertical on a logarithmic loss axis too.
        for (QCPItemPosition* end : {marker->point1, marker->point2}) end->setAxes(bottomAxis(rect), leftAxis(rect));
        marker->setPen(QPen(QColor(90, 90, 90), 1.2, Qt::DashLine));
        marker->setVisible(false);
        stepMarkers_.push_back(marker);
    }
    plot_->setMouseTracking(true);
    plot_->installEventFilter(this);  // Leave hides the hover line (never exported)
    connect(plot_, &QCustomPlot::mouseMove, this, &ConvergencePlot::showHover);
    connect(plot_, &QCustomPlot::legendClick, this,
            [this](QCPLegend*, QCPAbstractLegendItem* item, QMouseEvent*) { legendClicked(item); });
    plot_->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(plot_, &QWidget::customContextMenuRequested, this, &ConvergencePlot::showContextMenu);

    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    connect(plot_, &QCustomPlot::mousePress, this, [this](QMouseEvent* event) {
        // Panning the data stops following it; a click on the legend does not.
        if (lossRect_->rect().contains(event->pos()) || accuracyRect_->rect().contains(event->pos()))
            followData_ = false;
    });
    connect(plot_, &QCustomPlot::mouseWheel, this, [this] { followData_ = false; });
    connect(plot_, &QCustomPlot::mouseDoubleClick, this, &ConvergencePlot::fitToData);
}

void ConvergencePlot::setHistory(const MetricsHistory* history) {
    history_ = history;
    generation_ = ~std::uint64_t{0};
    refresh();
}

void ConvergencePlot::setTitle(const QString& title) {
    title_->setText(title);
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

QString ConvergencePlot::title() const { return title_->text(); }

void ConvergencePlot::setXAxis(XAxis axis) {
    if (axis == xAxis_) return;
    xAxis_ = axis;
    xAxisChoice_->setCurrentIndex(xAxisChoice_->findData(int(axis)));
    updateAxisLabels();
    followData_ = true;
    redrawAll();
    placeStepMarker();
}

void ConvergencePlot::setLogScale(bool logarithmic) {
    logScale_ = logarithmic;
    logChoice_->setChecked(logarithmic);
    QCPAxis* axis = leftAxis(lossRect_);
    setLogarithmic(axis, logarithmic);
    axis->setNumberFormat(logarithmic ? "gb" : "g");
    axis->setNumberPrecision(logarithmic ? 0 : 3);
    followData_ = true;
    redrawAll();
}

void ConvergencePlot::setSmoothing(double weight) {
    smoothing_ = std::clamp(weight, 0.0, 0.99);
    const int position = static_cast<int>(std::lround(smoothing_ * 100));
    if (smoothingSlider_->value() != position) smoothingSlider_->setValue(position);
    smoothingLabel_->setText(QString::number(smoothing_, 'f', 2));
    if (note_) updateNote();
    redrawAll();
}

void ConvergencePlot::updateAxisLabels() {
    // The bottom-most rect carries the x-axis label and tick labels (the strip shares the loss plot's x range).
    bottomAxis(lossRect_)->setLabel(accuracyShown_ ? QString() : xAxisLabel(xAxis_));
    bottomAxis(lossRect_)->setTickLabels(!accuracyShown_);
    bottomAxis(accuracyRect_)->setLabel(xAxisLabel(xAxis_));
    leftAxis(lossRect_)->setLabel(tr("loss"));  // the note under the legend explains the line styles
}

int ConvergencePlot::plottedPoints() const {
    int points = 0;
    for (const Feed& feed : feeds_) points += feed.graph->dataCount();
    return points;
}

void ConvergencePlot::rebuildGraphs() {
    plot_->clearGraphs();
    legend_->clearItems();
    feeds_.clear();
    if (!history_) return;
    legend_->setWrap(std::min(history_->runCount(), kLegendColumns));  // before adding items: wrap applies on insertion
    QCPAxis* x = bottomAxis(lossRect_);
    hidden_.assign(std::size_t(history_->runCount()), false);
    // Later runs first, so that run 0 is drawn on top of a later run that repeats it exactly.
    for (int run = history_->runCount() - 1; run >= 0; --run) {
        const QColor color = runColor(history_->look(run));
        const QString label = QString::fromStdString(history_->label(run));

        QCPGraph* train = plot_->addGraph(x, leftAxis(lossRect_));
        train->setName(label);
        // A point per step: the graph's points keep one block at the Train track's cap.
        train->setData(QSharedPointer<ReservedGraphData>::create(history_->capacity()));
        feeds_.push_back(
            {train, Feed::Kind::TrainLoss, color, run, MetricsHistory::Track::Train, MetricsHistory::kTrainLoss});

        QCPGraph* test = plot_->addGraph(x, leftAxis(lossRect_));
        test->setName(tr("%1 (test)").arg(label));
        feeds_.push_back(
            {test, Feed::Kind::TestLoss, color, run, MetricsHistory::Track::Evaluation, MetricsHistory::kTestLoss});

        QCPGraph* accuracy = plot_->addGraph(bottomAxis(accuracyRect_), leftAxis(accuracyRect_));
        accuracy->setName(tr("%1 (accuracy)").arg(label));
        feeds_.push_back({accuracy, Feed::Kind::Accuracy, color, run, MetricsHistory::Track::Evaluation,
                          MetricsHistory::kTestAccuracy});
    }
    for (const Feed& feed : feeds_) applyStyle(feed, 0);
    for (int run = 0; run < history_->runCount(); ++run)  // the legend in run order
        for (const Feed& feed : feeds_)
            if (feed.run == run && feed.kind == Feed::Kind::TrainLoss) feed.graph->addToLegend(legend_);
    updateLegendNames();
    legend_->setVisible(history_->runCount() > 0);
    fitLegendAndNote();  // the legend's columns and the note's lines fit the plot's width
}

void ConvergencePlot::appendNewPoints(Feed& feed, bool fromScratch) {
    const DecimatingHistory& track = history_->track(feed.run, feed.track);
    const std::uint64_t decimations = history_->decimations(feed.run, feed.track);
    if (fromScratch || decimations != feed.decimations) {
        feed.graph->data()->clear();
        feed.drawn = 0;
        feed.emaSum = feed.emaWeight = 0.0;
        feed.decimations = decimations;
    }
    if (feed.drawn >= track.size()) return;
    const QVector<double>& values = track.series(feed.series);
    QCPGraphDataContainer& points = *feed.graph->data();  // one by one: appends into its block
    for (int i = feed.drawn; i < track.size(); ++i) {
        double value = values[i];
        if (!std::isfinite(value)) continue;
        if (smoothing_ > 0.0) {  // debiased EMA: sum / (1 - w^n)
            feed.emaSum = smoothing_ * feed.emaSum + (1.0 - smoothing_) * value;
            feed.emaWeight = smoothing_ * feed.emaWeight + (1.0 - smoothing_);
            value = feed.emaSum / feed.emaWeight;
        }
        if (offset_)
            value = feed.kind == Feed::Kind::Accuracy ? value + kAccuracyOffsetPerRun * feed.run
                                                      : value * (1.0 + kLossOffsetPerRun * feed.run);
        double key = track.steps()[i];
        if (xAxis_ == XAxis::Epoch) key = history_->epochAt(track, i);
        else if (xAxis_ == XAxis::WallTime) key = track.series(MetricsHistory::kWallSeconds)[i];
        points.add(QCPGraphData(key, value));
    }
    feed.drawn = track.size();
    applyStyle(feed, track.size());
}

void ConvergencePlot::applyStyle(const Feed& feed, int points) {
    // Pens wider than 1 px (and dashed ones) go through QPainterPathStroker: 1,000 points that
    // oscillate over the whole height took 300 ms per replot, 200,000 several seconds; 1-px
    // solid and dashed pens take Qt's fast cosmetic line path (about 7 ms for 2 x 200,000).
    const bool dense = points > kMaxWidePenPoints;
    switch (feed.kind) {
    case Feed::Kind::TrainLoss: feed.graph->setPen(QPen(feed.color, dense ? 1.0 : 1.6)); break;
    case Feed::Kind::TestLoss: feed.graph->setPen(QPen(feed.color, 1.0, Qt::DashLine)); break;
    case Feed::Kind::Accuracy: feed.graph->setPen(QPen(feed.color, dense ? 1.0 : 1.6)); break;
    }
    // Dots mark evaluations only while they are few enough to tell apart.
    if (feed.kind != Feed::Kind::TrainLoss)
        feed.graph->setScatterStyle(points <= kMaxMarkedEvaluations ? QCPScatterStyle(QCPScatterStyle::ssDisc, 4)
                                                                    : QCPScatterStyle(QCPScatterStyle::ssNone));
}

void ConvergencePlot::refresh() {
    bool fromScratch = false;
    const std::uint64_t generation = history_ ? history_->generation() : 0;
    if (!history_ || generation != generation_) {
        generation_ = generation;
        rebuildGraphs();
        followData_ = true;
        fromScratch = true;
    }
    if (history_)
        for (Feed& feed : feeds_) appendNewPoints(feed, fromScratch);
    showAccuracyRect(history_ && history_->hasAccuracy());
    if (followData_) fitAxes();
    updatePlaceholder();
    // New data arrives with snapshots for the diagrams: the replot takes a turn of the event loop
    // of its own (RenderQueue) instead of sharing the delivery's frame with them.
    RenderQueue::instance().request(plot_, [plot = plot_] { plot->replot(); });
}

void ConvergencePlot::redrawAll() {
    if (!plot_) return;
    if (history_)
        for (Feed& feed : feeds_) appendNewPoints(feed, true);
    if (followData_) fitToData();
    else plot_->replot(QCustomPlot::rpQueuedReplot);
}

void ConvergencePlot::fitToData() {
    fitAxes();
    updatePlaceholder();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void ConvergencePlot::fitAxes() {
    followData_ = true;
    bool any = false;
    for (const Feed& feed : feeds_) any = any || !feed.graph->data()->isEmpty();
    if (any) {
        QCPAxis* x = bottomAxis(lossRect_);
        x->rescale();
        if (x->range().size() <= 0.0) x->setRange(x->range().lower - 0.5, x->range().upper + 0.5);
        QCPAxis* y = leftAxis(lossRect_);
        y->rescale();
        const QCPRange range = y->range();
        if (logScale_) y->setRange(range.lower / 1.25, range.upper * 1.25);
        else y->setRange(std::min(0.0, range.lower), range.upper + 0.05 * std::max(range.size(), 1e-12));
        QCPAxis* accuracy = leftAxis(accuracyRect_);
        accuracy->rescale();
        accuracy->setRange(std::max(0.0, accuracy->range().lower - 0.03),
                           std::min(1.0, accuracy->range().upper) + 0.03);
    }
}

void ConvergencePlot::showAccuracyRect(bool show) {
    if (show == accuracyShown_) return;
    accuracyShown_ = show;
    if (show) {
        plot_->plotLayout()->addElement(kAccuracyRow, 0, accuracyRect_);
        plot_->plotLayout()->setRowStretchFactor(kAccuracyRow, kAccuracyStretch);
        accuracyRect_->setVisible(true);
    } else {
        plot_->plotLayout()->take(accuracyRect_);
        plot_->plotLayout()->simplify();
        accuracyRect_->setVisible(false);
    }
    updateAxisLabels();
}

void ConvergencePlot::updatePlaceholder() {
    bool any = false;
    for (const Feed& feed : feeds_) any = any || !feed.graph->data()->isEmpty();
    placeholder_->setVisible(!any);
}

void ConvergencePlot::updateNote() {
    fitLegendAndNote();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

// The legend in as many columns as its widest entry allows, and the note broken into lines, at
// the plot's width: a fork's long labels ("momentum@500→neuron-mean") were cut off at 1366 px.
void ConvergencePlot::fitLegendAndNote() {
    const int room = std::max(120, plot_->width() - 24);
    if (legend_->itemCount() > 0) {
        int widest = 1, entries = 0;  // itemCount() counts a wrapped grid's empty cells too
        for (int i = 0; i < legend_->itemCount(); ++i)
            if (QCPAbstractLegendItem* item = legend_->item(i))
                widest = std::max(widest, item->minimumOuterSizeHint().width()), ++entries;
        // At most two rows, so that a low plot keeps its height for the curves (a long entry may then
        // run short at the right, never over the data).
        const int fitting = std::clamp(room / (widest + legend_->columnSpacing()), 1, kLegendColumns);
        const int columns = std::min(std::max(fitting, (entries + 1) / 2), std::max(entries, 1));
        if (columns != legend_->columnCount()) {
            legend_->setFillOrder(QCPLayoutGrid::foColumnsFirst, false);
            legend_->setWrap(columns);
            legend_->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);  // re-flows the entries
        }
    }
    const QFontMetrics metrics(note_->font());
    QStringList lines;
    for (const QString& part : noteText().split(QStringLiteral("   "), Qt::SkipEmptyParts)) {
        if (!lines.isEmpty() && metrics.horizontalAdvance(lines.back() + QStringLiteral("   ") + part) <= room)
            lines.back() += QStringLiteral("   ") + part;
        else lines << part;
    }
    note_->setText(lines.join(QLatin1Char('\n')));
}

QString ConvergencePlot::noteText() const {
    QString text = tr("solid: training (batch) loss   dashed: test loss   smoothing: %1")
                       .arg(smoothing_ > 0.0 ? tr("EMA %1").arg(smoothing_, 0, 'f', 2) : tr("none (raw values)"));
    if (offset_) text += tr("   curves offset by 1.5 % per run");
    return text;
}

void ConvergencePlot::setRunDetails(const QStringList& details) {
    runDetails_ = details;
    updateLegendNames();
    fitLegendAndNote();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void ConvergencePlot::updateLegendNames() {
    if (!history_) return;
    for (const Feed& feed : feeds_) {
        if (feed.kind != Feed::Kind::TrainLoss) continue;
        QString name = QString::fromStdString(history_->label(feed.run));
        const QString details = runDetails_.value(feed.run);
        if (!details.isEmpty()) name += " (" + details + ")";
        feed.graph->setName(name);
    }
}

void ConvergencePlot::setRunVisible(int run, bool visible) {
    if (run < 0 || run >= int(hidden_.size())) return;
    hidden_[std::size_t(run)] = !visible;
    for (const Feed& feed : feeds_) {
        if (feed.run != run) continue;
        feed.graph->setVisible(visible);
        if (auto* item = legend_->itemWithPlottable(feed.graph)) item->setTextColor(visible ? Qt::black : kHiddenText);
    }
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

bool ConvergencePlot::runVisible(int run) const {
    return run >= 0 && run < int(hidden_.size()) && !hidden_[std::size_t(run)];
}

void ConvergencePlot::legendClicked(QCPAbstractLegendItem* item) {
    auto* plottableItem = qobject_cast<QCPPlottableLegendItem*>(item);
    if (!plottableItem) return;
    for (const Feed& feed : feeds_)
        if (feed.graph == plottableItem->plottable()) return setRunVisible(feed.run, !runVisible(feed.run));
}

void ConvergencePlot::setOffsetCurves(bool offset) {
    offset_ = offset;
    updateNote();
    redrawAll();
}

QString ConvergencePlot::valuesAt(double key) const {
    auto nearest = [key](const QCPGraph* graph) -> std::optional<QCPGraphData> {
        const auto data = graph->data();
        if (data->isEmpty()) return std::nullopt;
        auto it = data->findBegin(key, true);
        auto next = it + 1;
        if (next != data->constEnd() && std::abs(next->key - key) < std::abs(it->key - key)) it = next;
        return *it;
    };
    QStringList lines;
    lines << QString("%1 %2").arg(xAxisLabel(xAxis_)).arg(QLocale::system().toString(key, 'g', 6));
    if (!history_) return {};
    for (int run = 0; run < history_->runCount(); ++run) {
        if (!runVisible(run)) continue;
        QStringList parts;
        for (const Feed& feed : feeds_) {
            if (feed.run != run) continue;
            const std::optional<QCPGraphData> point = nearest(feed.graph);
            if (!point) continue;
            double value = point->value;  // back from the offset to the value drawn without it
            if (offset_)
                value = feed.kind == Feed::Kind::Accuracy ? value - kAccuracyOffsetPerRun * run
                                                          : value / (1.0 + kLossOffsetPerRun * run);
            const QString number = QString::number(value, 'g', 4);
            switch (feed.kind) {
            case Feed::Kind::TrainLoss: parts.prepend(tr("loss %1").arg(number)); break;
            case Feed::Kind::TestLoss: parts << tr("test %1").arg(number); break;
            case Feed::Kind::Accuracy:
                if (history_->hasAccuracy()) parts << tr("accuracy %1").arg(number);
                break;
            }
        }
        if (!parts.isEmpty()) lines << QString::fromStdString(history_->label(run)) + ": " + parts.join(", ");
    }
    return lines.size() > 1 ? lines.join('\n') : QString();
}

void ConvergencePlot::showHover(QMouseEvent* event) {
    const bool inside =
        lossRect_->rect().contains(event->pos()) || (accuracyShown_ && accuracyRect_->rect().contains(event->pos()));
    const QString text = inside ? valuesAt(bottomAxis(lossRect_)->pixelToCoord(event->pos().x())) : QString();
    hoverLine_->setVisible(!text.isEmpty());
    if (text.isEmpty()) {
        QToolTip::hideText();
    } else {
        const double key = bottomAxis(lossRect_)->pixelToCoord(event->pos().x());
        hoverLine_->point1->setCoords(key, 0.0);
        hoverLine_->point2->setCoords(key, 1.0);
        QToolTip::showText(event->globalPosition().toPoint(), text, plot_);
    }
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

bool ConvergencePlot::eventFilter(QObject* watched, QEvent* event) {
    if (watched == plot_ && event->type() == QEvent::Resize) updateNote();
    if (watched == plot_ && event->type() == QEvent::Leave && hoverLine_->visible()) {
        hoverLine_->setVisible(false);
        plot_->replot(QCustomPlot::rpQueuedReplot);
    }
    return QWidget::eventFilter(watched, event);
}

void ConvergencePlot::showContextMenu(const QPoint& position) {
    QMenu menu(this);
    menu.addAction(tr("Fit (show all data)"), this, &ConvergencePlot::fitToData);
    QAction* log = menu.addAction(tr("Log loss axis"));
    log->setCheckable(true);
    log->setChecked(logScale_);
    connect(log, &QAction::toggled, this, &ConvergencePlot::setLogScale);
    QAction* offset = menu.addAction(tr("Offset curves (reveal identical runs)"));
    offset->setCheckable(true);
    offset->setChecked(offset_);
    connect(offset, &QAction::toggled, this, &ConvergencePlot::setOffsetCurves);
    if (std::find(hidden_.begin(), hidden_.end(), true) != hidden_.end())
        menu.addAction(tr("Show all runs"), this, [this] {
            for (int run = 0; run < int(hidden_.size()); ++run) setRunVisible(run, true);
        });
    menu.addSeparator();
    menu.addAction(tr("Export figure…"), this, &ConvergencePlot::exportRequested);
    hoverLine_->setVisible(false);
    menu.exec(plot_->mapToGlobal(position));
}

void ConvergencePlot::setMarkedStep(long step) {
    markedStep_ = step;
    placeStepMarker();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

bool ConvergencePlot::stepMarkerShown() const { return !stepMarkers_.empty() && stepMarkers_.front()->visible(); }

double ConvergencePlot::keyOfStep(long step) const {
    if (!history_ || step < 0) return NAN;
    switch (xAxis_) {
    case XAxis::Step: return static_cast<double>(step);
    case XAxis::Epoch:
        return history_->stepsPerEpoch() > 0
                   ? static_cast<double>(step) / static_cast<double>(history_->stepsPerEpoch())
                   : NAN;
    case XAxis::WallTime: {  // the first run's training time at its stored point nearest the step
        if (history_->runCount() == 0) return NAN;
        const DecimatingHistory& track = history_->track(0, MetricsHistory::Track::Train);
        if (track.size() == 0) return NAN;
        const QVector<double>& steps = track.steps();
        const auto at = std::lower_bound(steps.begin(), steps.end(), static_cast<double>(step));
        const int index = static_cast<int>(std::min<qsizetype>(at - steps.begin(), steps.size() - 1));
        return track.series(MetricsHistory::kWallSeconds)[index];
    }
    }
    return NAN;
}

void ConvergencePlot::placeStepMarker() {
    const double key = keyOfStep(markedStep_);
    for (QCPItemStraightLine* marker : stepMarkers_) {
        marker->setVisible(std::isfinite(key));
        marker->point1->setCoords(key, 1.0);
        marker->point2->setCoords(key, 2.0);
    }
}

}  // namespace ml
