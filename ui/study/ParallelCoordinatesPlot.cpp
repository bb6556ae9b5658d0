#include "study/ParallelCoordinatesPlot.h"

#include "study/SensitivityPlot.h"

#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace ml {

namespace {

constexpr double kDivergedBand = 1.12;  // where diverged trials end, above the score axis (0 .. 1)

// Maps one axis's values onto 0 .. 1: logarithmic for positive values that span over a decade.
class AxisScale {
public:
    explicit AxisScale(const std::vector<double>& values) {
        for (const double v : values)
            if (std::isfinite(v)) low_ = std::min(low_, v), high_ = std::max(high_, v);
        log_ = low_ > 0 && high_ / low_ > 10;
    }
    bool empty() const { return low_ > high_; }
    double low() const { return low_; }
    double high() const { return high_; }
    double operator()(double v) const {
        if (!(high_ > low_)) return 0.5;
        return log_ ? std::log(v / low_) / std::log(high_ / low_) : (v - low_) / (high_ - low_);
    }

private:
    double low_ = INFINITY, high_ = -INFINITY;
    bool log_ = false;
};

}  // namespace

ParallelCoordinatesPlot::ParallelCoordinatesPlot(QWidget* parent)
    : QWidget(parent), plot_(new QCustomPlot(this)), scale_(new QCPColorScale(plot_)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    plot_->plotLayout()->addElement(0, 1, scale_);
    scale_->setGradient(QCPColorGradient(QCPColorGradient::gpJet).inverted());  // the best warm, none white
    scale_->axis()->setLabel(tr("score"));
    plot_->yAxis->setVisible(false);
    plot_->xAxis->grid()->setVisible(false);
    plot_->xAxis->setTickLength(0, 0);
    plot_->xAxis->setSubTickLength(0, 0);
    plot_->setToolTip(tr("One line per tuning trial; click one to open its run in the main window"));
    connect(plot_, &QCustomPlot::plottableClick, this, [this](QCPAbstractPlottable* plottable, int, QMouseEvent*) {
        for (const Polyline& line : lines_)
            if (line.curve == plottable && !line.folder.isEmpty()) Q_EMIT trialClicked(line.folder);
    });
}

int ParallelCoordinatesPlot::chosenCount() const {
    return static_cast<int>(std::count_if(lines_.begin(), lines_.end(), [](const Polyline& l) { return l.chosen; }));
}

int ParallelCoordinatesPlot::divergedCount() const {
    return static_cast<int>(std::count_if(lines_.begin(), lines_.end(), [](const Polyline& l) { return l.diverged; }));
}

QString ParallelCoordinatesPlot::folderOf(int polyline) const {
    return polyline >= 0 && polyline < polylineCount() ? lines_[static_cast<std::size_t>(polyline)].folder : QString();
}

void ParallelCoordinatesPlot::show(const StudyResults& results, const QString& task, const QString& optimizer) {
    plot_->clearGraphs();
    plot_->clearItems();
    lines_.clear();
    axes_.clear();

    // The trials of this optimizer: every searched value and the score; an axis per searched key.
    using Trial = TuningTrial;
    const std::map<int, Trial> trials = results.tuningTrials(task, optimizer, &axes_);
    const StudyOptimizerResult* result = results.result(task, optimizer);
    const auto chosen = [&](const Trial& t) {
        if (!result || !result->fragility.known) return false;
        // sensitivity.csv keeps 9 significant digits, results.json every one.
        for (const ChoiceParameter& c : result->fragility.parameters)
            if (!t.values.count(c.parameter) || std::abs(t.values.at(c.parameter) - c.value) > 1e-8 * std::abs(c.value))
                return false;
        return true;
    };

    std::vector<AxisScale> scales;
    for (const QString& axis : axes_) {
        std::vector<double> values;
        for (const auto& [number, t] : trials) values.push_back(t.values.count(axis) ? t.values.at(axis) : NAN);
        scales.emplace_back(values);
    }
    std::vector<double> scores;
    for (const auto& [number, t] : trials) scores.push_back(t.score);
    const AxisScale scoreScale(scores);
    axes_ << selectionScoreTitle(results.selection);
    const double scoreAxis = static_cast<double>(axes_.size() - 1);

    // Dimmer lines first, so that the best and the chosen ones stay on top.
    std::vector<std::pair<int, const Trial*>> order;
    for (const auto& [number, t] : trials) order.emplace_back(number, &t);
    std::stable_sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
        const auto rank = [&](const Trial& t) { return chosen(t) ? 2 : std::isfinite(t.score) ? 1 : 0; };
        if (rank(*a.second) != rank(*b.second)) return rank(*a.second) < rank(*b.second);
        return a.second->score > b.second->score;
    });
    const QCPRange scoreRange(scoreScale.low(), scoreScale.high());
    scale_->setDataRange(scoreScale.empty() ? QCPRange(0, 1) : scoreRange);
    scale_->setDataScaleType(!scoreScale.empty() && scoreScale.low() > 0 && scoreScale.high() / scoreScale.low() > 10
                                 ? QCPAxis::stLogarithmic
                                 : QCPAxis::stLinear);
    for (const auto& [number, t] : order) {
        auto* curve = plot_->addGraph();
        for (int a = 0; a + 1 < axes_.size(); ++a) {
            const auto value = t->values.find(axes_[a]);
            if (value != t->values.end()) curve->addData(a, scales[static_cast<std::size_t>(a)](value->second));
        }
        const bool diverged = !std::isfinite(t->score), isChosen = chosen(*t);
        curve->addData(scoreAxis, diverged ? kDivergedBand : scoreScale(t->score));
        const QColor colour = diverged ? QColor(150, 150, 150)
                                       : scale_->gradient().color(t->score, scoreRange,
                                                                  scale_->dataScaleType() == QCPAxis::stLogarithmic);
        curve->setPen(isChosen ? QPen(Qt::black, 3.5) : diverged ? QPen(colour, 1.2, Qt::DashLine) : QPen(colour, 1.6));
        curve->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, isChosen ? 7 : 4));
        curve->setName(tr("trial %1").arg(number));
        lines_.push_back({curve, t->folder, isChosen, diverged});
    }

    // The axes: a vertical line each, its ends labelled; the diverged band above the score axis.
    QSharedPointer<QCPAxisTickerText> ticks(new QCPAxisTickerText);
    for (int a = 0; a < axes_.size(); ++a) {
        ticks->addTick(a, axes_[a]);
        auto* line = new QCPItemLine(plot_);
        line->start->setCoords(a, 0);
        line->end->setCoords(a, 1);
        line->setPen(QPen(QColor(60, 60, 60), 1.2));
        const AxisScale& s = a + 1 < axes_.size() ? scales[static_cast<std::size_t>(a)] : scoreScale;
        if (s.empty()) continue;
        for (const auto& [y, value, alignment] :
             {std::tuple{1.0, s.high(), Qt::AlignBottom}, std::tuple{0.0, s.low(), Qt::AlignTop}}) {
            auto* label = new QCPItemText(plot_);
            label->position->setCoords(a, y);
            label->setPositionAlignment(alignment | Qt::AlignHCenter);
            label->setText(QString::number(value, 'g', 3));
            label->setFont(QFont(font().family(), 8));
        }
    }
    if (divergedCount() > 0) {
        auto* label = new QCPItemText(plot_);
        label->position->setCoords(scoreAxis, kDivergedBand);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        label->setText(tr("  diverged (%1)").arg(divergedCount()));
        label->setColor(QColor(110, 110, 110));
    }
    plot_->xAxis->setTicker(ticks);
    plot_->xAxis->setRange(-0.3, scoreAxis + 0.6);
    plot_->yAxis->setRange(-0.12, kDivergedBand + 0.08);
    plot_->replot();
}

}  // namespace ml
