#include "views/UpdateExplainer.h"

#include "model/RunPalette.h"
#include "views/NeuronHistoryPlot.h"
#include "views/NeuronNames.h"
#include "common/RedrawWhenShown.h"

#include <QFontDatabase>
#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QSignalBlocker>
#include <QToolButton>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace ml {

namespace {

// The bars on the left axis, in this order; Δw sits last, on the right axis.
// Short: the dock is narrow at 1366 x 768 (the formulas below spell each one out).
// T: the layer-wise trust ratio (lars, lamb).
const QStringList kPartNames{"g", "a\u2032", "M(a\u2032)", "carried", "a", "D", "T", "\u0394w \u2192"};
constexpr int kUpdateBar = 8;

std::vector<double> leftParts(const UpdateExplanation& e) {
    const double none = std::nan("");
    return {e.gradient,
            e.hasFirstMoment ? e.ownMomentum : none,
            e.hasFirstMoment ? e.neuronMean : none,
            e.hasFirstMoment ? e.carried : none,
            e.hasFirstMoment ? e.firstMoment : none,
            e.hasSecondMoment ? e.denominator : none,
            e.hasTrustRatio ? e.trustRatio : none};
}

}  // namespace

UpdateExplainer::UpdateExplainer(RunSelection* selection, QWidget* parent) : QWidget(parent), selection_(selection) {
    title_ = new QLabel(this);
    title_->setWordWrap(true);
    play_ = new QToolButton(this);
    play_->setCheckable(true);
    play_->setText(tr("Play"));
    play_->setToolTip(tr("Replay the recorded steps (the step scrubber's \u25b6); press again to pause"));
    connect(play_, &QToolButton::toggled, this, &UpdateExplainer::setPlaying);
    // Runs differ by orders of magnitude (adam's D beside momentum's a): by default each run's
    // bars are drawn on a scale of their own, its largest part at full height.
    perRunScale_ = new QCheckBox(tr("one scale per run"), this);
    perRunScale_->setChecked(true);
    perRunScale_->setToolTip(
        tr("Each run's bars divided by its largest |part| (and its update by |\u0394w|), so "
           "that a run with small values stays visible; the formulas below keep the true numbers"));
    connect(perRunScale_, &QCheckBox::toggled, this, [this] { draw(); });

    plot_ = new QCustomPlot(this);
    plot_->setMinimumSize(320, 160);
    plot_->yAxis->setLabel(tr("g, moments, D"));
    plot_->yAxis2->setVisible(true);
    plot_->yAxis2->setLabel(tr("\u0394w"));
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    // Every other label one line lower: at 1366 x 768 neighbours ("M(a′)", "carried") would touch.
    for (int i = 0; i < kPartNames.size(); ++i) ticker->addTick(i + 1, (i % 2 ? "\n" : "") + kPartNames[i]);
    plot_->xAxis->setTicker(ticker);
    plot_->xAxis->setRange(0.4, kPartNames.size() + 0.6);
    plot_->xAxis->grid()->setVisible(false);
    leftBars_ = new QCPBarsGroup(plot_);
    rightBars_ = new QCPBarsGroup(plot_);
    plot_->xAxis->setTickLabelFont(QFont(font().family(), font().pointSize() - 1));
    // The legend in a row of its own above the bars, which it would otherwise cover.
    plot_->axisRect()->insetLayout()->take(plot_->legend);
    plot_->plotLayout()->insertRow(0);
    plot_->plotLayout()->addElement(0, 0, plot_->legend);
    plot_->plotLayout()->setRowStretchFactor(0, 0.001);
    plot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
    plot_->legend->setBorderPen(Qt::NoPen);
    plot_->legend->setFont(QFont(font().family(), font().pointSize() - 1));
    plot_->legend->setVisible(true);

    formulas_ = new QPlainTextEdit(this);
    formulas_->setReadOnly(true);
    formulas_->setLineWrapMode(QPlainTextEdit::NoWrap);
    formulas_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(plot_);
    split->addWidget(formulas_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);

    auto* bar = new QHBoxLayout;
    bar->addWidget(play_);
    bar->addWidget(title_, 1);
    bar->addWidget(perRunScale_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(split, 1);

    auto* hidden = new RedrawWhenShown(this, [this] { refresh(); });
    for (auto signal : {&RunSelection::selectionChanged, &RunSelection::stepChanged})
        connect(selection_, signal, this, [hidden] { hidden->request(); });
    // While training follows the latest step, every new snapshot changes what is shown.
    connect(selection_, &RunSelection::snapshotsArrived, this, [this, hidden] {
        if (selection_->step() < 0) hidden->request();
    });
    refresh();
}

void UpdateExplainer::setRunSpecs(std::vector<RunSpec> specs) {
    specs_ = std::move(specs);
    refresh();
}

void UpdateExplainer::appendRunSpecs(const std::vector<RunSpec>& specs) {
    specs_.insert(specs_.end(), specs.begin(), specs.end());
    refresh();
}

void UpdateExplainer::setConnection(int layer, int neuron, int input) {
    layer_ = layer;
    neuron_ = neuron;
    column_ = layer < 0 || neuron < 0 ? -1 : input;
    refresh();
}

bool UpdateExplainer::playing() const { return play_->isChecked(); }

void UpdateExplainer::setPlaying(bool playing) {
    showPlaying(playing);
    Q_EMIT playToggled(playing);
}

void UpdateExplainer::showPlaying(bool playing) {
    const QSignalBlocker quiet(play_);
    play_->setChecked(playing);
    play_->setText(playing ? tr("Pause") : tr("Play"));
}

void UpdateExplainer::refresh() {
    explanations_.clear();
    unexplained_.clear();
    QStringList text;
    if (column_ < 0) {
        title_->setText(tr("Click a connection (diagram edge or heat-map cell) to take its update apart."));
    } else {
        SharedSnapshot any;
        for (const int run : selection_->shown()) {
            const SharedSnapshot now = selection_->store().at(run, selection_->step());
            if (!now) continue;
            any = any ? any : now;
            const QString label = selection_->labels().value(run);
            if (run >= static_cast<int>(specs_.size())) {
                text << tr("%1: its optimizer settings are not known here").arg(label);
                continue;
            }
            const SharedSnapshot before = now->step > 1 ? selection_->store().at(run, now->step - 1) : nullptr;
            const UpdateExplanation e =
                explainUpdate(specs_[static_cast<std::size_t>(run)], *now, before.get(), layer_, neuron_, column_);
            text << tr("%1 (%2) \u00b7 step %3")
                        .arg(label, QString::fromStdString(specs_[static_cast<std::size_t>(run)].optimizer))
                        .arg(now->step);
            text << (e.explained ? QString::fromStdString(e.formula)
                                 : tr("not explained: %1").arg(QString::fromStdString(e.reason)));
            text << QString();
            if (e.explained) explanations_.emplace_back(run, e);
            else if (unexplained_.isEmpty()) unexplained_ = QString::fromStdString(e.reason);
        }
        QString name = neuronName(layer_ + 1, neuron_);
        if (any && layer_ < static_cast<int>(any->layers.size())) {
            const LayerSnapshot& layer = any->layers[static_cast<std::size_t>(layer_)];
            const int inputs = static_cast<int>(layer.parameters.cols()) - 1;
            name = tr("connection %1 \u2192 %2")
                       .arg(connectionName(layer_, column_, inputs, {}, static_cast<int>(layer.columnsPerInput)), name);
        }
        title_->setText(any ? name : name + tr(" \u00b7 waiting for a snapshot"));
        if (std::any_of(explanations_.begin(), explanations_.end(),
                        [](const auto& e) { return e.second.carriedInferred; }))
            text << tr(
                "(inferred: the step before was not recorded, so the carried part is a \u2212 gain\u00b7g and a\u2032, M(a\u2032) are unknown)");
    }
    formulas_->setPlainText(text.join('\n'));
    draw();
}

void UpdateExplainer::draw() {
    plot_->clearPlottables();
    auto* left = leftBars_;
    auto* right = rightBars_;
    const double width = 0.8 / std::max<std::size_t>(1, explanations_.size());
    double leftLimit = 0.0, rightLimit = 0.0;
    const bool perRun = perRunScale_->isChecked() && explanations_.size() > 1;
    plot_->yAxis->setLabel(perRun ? tr("g, moments, D \u00f7 the run's largest") : tr("g, moments, D"));
    plot_->yAxis2->setLabel(perRun ? tr("\u0394w \u00f7 the run's |\u0394w|") : tr("\u0394w"));
    for (const auto& [run, e] : explanations_) {
        const QColor color = runColor(selection_->look(run));
        auto* bars = new QCPBars(plot_->xAxis, plot_->yAxis);
        bars->setName(selection_->labels().value(run));
        bars->setBrush(color);
        bars->setPen(QPen(color.darker(130)));
        bars->setWidth(width);
        bars->setBarsGroup(left);
        std::vector<double> parts = leftParts(e);
        double largest = 0.0;
        for (double part : parts)
            if (std::isfinite(part)) largest = std::max(largest, std::abs(part));
        const double partScale = perRun && largest > 0 ? 1.0 / largest : 1.0;
        const double updateScale = perRun && e.update != 0 ? 1.0 / std::abs(e.update) : 1.0;
        for (double& part : parts) part *= partScale;
        for (std::size_t i = 0; i < parts.size(); ++i) {
            if (!std::isfinite(parts[i])) continue;
            bars->addData(static_cast<double>(i + 1), parts[i]);
            leftLimit = std::max(leftLimit, std::abs(parts[i]));
        }
        auto* update = new QCPBars(plot_->xAxis, plot_->yAxis2);
        update->setBrush(QBrush(color, Qt::Dense3Pattern));
        update->setPen(QPen(color.darker(130)));
        update->setWidth(width);
        update->setBarsGroup(right);
        update->addData(kUpdateBar, e.update * updateScale);
        update->removeFromLegend();
        rightLimit = std::max(rightLimit, std::abs(e.update * updateScale));
    }
    // Symmetric ranges: zero at the same height on both axes, so signs compare at a glance.
    plot_->yAxis->setRange(-1.1 * (leftLimit > 0 ? leftLimit : 1.0), 1.1 * (leftLimit > 0 ? leftLimit : 1.0));
    plot_->yAxis2->setRange(-1.1 * (rightLimit > 0 ? rightLimit : 1.0), 1.1 * (rightLimit > 0 ? rightLimit : 1.0));
    plot_->legend->setVisible(!explanations_.empty());
    // Nothing explained yet: the title says what to click; an empty frame with axis labels
    // squashed into the dock said nothing.
    plot_->setVisible(!explanations_.empty());
    perRunScale_->setVisible(explanations_.size() > 1);
    fitLegend();
    plot_->replot();
}

void UpdateExplainer::fitLegend() {
    // As many entries per legend row as the plot's width holds (4 runs at 1366 x 768 take two rows).
    const QFontMetrics metrics(plot_->legend->font());
    int widest = 0;
    for (int i = 0; i < plot_->legend->itemCount(); ++i)
        if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot_->legend->item(i)))
            widest = std::max(widest, metrics.horizontalAdvance(item->plottable()->name()));
    const int entryWidth = widest + plot_->legend->iconSize().width() + plot_->legend->iconTextPadding() + 16;
    plot_->legend->setWrap(std::max(1, (plot_->width() - 20) / std::max(1, entryWidth)));
    plot_->legend->setFillOrder(QCPLegend::foColumnsFirst, true);
}

void UpdateExplainer::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitLegend();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace ml
