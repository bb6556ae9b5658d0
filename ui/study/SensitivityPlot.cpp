#include "study/SensitivityPlot.h"

#include "model/RunPalette.h"
#include "views/DivergingColorScale.h"

#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace ml {

QString selectionScoreTitle(const QString& selection) {
    if (selection == "best-validation-accuracy") return QObject::tr("1 − best validation accuracy");
    if (selection == "steps-to-target") return QObject::tr("steps to the target (validation)");
    return QObject::tr("final validation loss");
}

SensitivityPlot::SensitivityPlot(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->addLayer(QStringLiteral("chosen"), plot_->layer("main"), QCustomPlot::limBelow);
    plot_->legend->setVisible(true);
    plot_->legend->setBrush(QColor(255, 255, 255, 190));  // the curves stay visible behind it
    plot_->setToolTip(tr("Click a trial to open its run in the main window"));
    connect(plot_, &QCustomPlot::plottableClick, this,
            [this](QCPAbstractPlottable* plottable, int index, QMouseEvent*) {
                for (int line = 0; line < plot_->graphCount(); ++line)
                    if (plot_->graph(line) == plottable && !trialFolder(line, index).isEmpty())
                        Q_EMIT trialClicked(trialFolder(line, index));
            });
}

std::vector<SensitivityPlot::PointScore> SensitivityPlot::pointScores(const StudyResults& results, const QString& task,
                                                                      const QString& optimizer) {
    const std::map<int, TuningTrial> trials = results.tuningTrials(task, optimizer);
    std::vector<PointScore> points;
    std::vector<std::vector<double>> scores;
    for (const auto& entry : trials) {
        const TuningTrial& t = entry.second;  // not a structured binding: clang 14 cannot capture one
        auto it = std::find_if(points.begin(), points.end(), [&](const PointScore& p) { return p.values == t.values; });
        if (it == points.end()) {
            points.push_back({t.values, NAN, t.folder, 0});
            scores.emplace_back();
            it = points.end() - 1;
        }
        scores[static_cast<std::size_t>(it - points.begin())].push_back(t.score);
        it->divergedTrials += std::isfinite(t.score) ? 0 : 1;
    }
    for (std::size_t i = 0; i < points.size(); ++i) {
        std::vector<double>& v = scores[i];
        std::sort(v.begin(), v.end());  // infinity (diverged) last
        const std::size_t n = v.size();
        points[i].score = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }
    return points;
}

int SensitivityPlot::lineCount() const { return lines_; }

// Each optimizer's chosen point, a ring in its colour (a red one when it sits on an edge of what
// was searched), and the searched range's edges as dashed vertical lines.
void SensitivityPlot::drawChoices(const StudyResults& results) {
    for (const ChosenPoint& c : chosen_) {
        QCPGraph* ring = plot_->addGraph();
        ring->setLayer(QStringLiteral("chosen"));  // below the trials: a click opens the trial
        ring->setLineStyle(QCPGraph::lsNone);
        ring->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle,
                                              QPen(c.onEdge ? QColor(200, 30, 30) : runColor(c.optimizer), 2.5),
                                              Qt::NoBrush, 15));
        ring->addData(c.value, c.score);
        ring->setName(tr("%1: chosen%2").arg(results.optimizers[c.optimizer], c.onEdge ? tr(" (on an edge)") : ""));
        ring->removeFromLegend();
        ring->setSelectable(QCP::stNone);
    }
    for (const double edge : edges_) {
        auto* line = new QCPItemStraightLine(plot_);
        line->point1->setCoords(edge, 0);
        line->point2->setCoords(edge, 1);
        line->setPen(QPen(QColor(110, 110, 110), 1.2, Qt::DashLine));
        line->setSelectable(false);
        line->setLayer(QStringLiteral("chosen"));
    }
}

QString SensitivityPlot::trialFolder(int line, int point) const {
    if (line < 0 || line >= static_cast<int>(folders_.size()) || point < 0 ||
        point >= static_cast<int>(folders_[line].size()))
        return {};
    return folders_[line][point];
}

void SensitivityPlot::show(const StudyResults& results, const QString& task, const QString& parameter, bool logY) {
    plot_->clearGraphs();
    plot_->clearItems();
    folders_.clear();
    chosen_.clear();
    edges_.clear();
    bool positive = true, positiveScores = true;
    for (int o = 0; o < results.optimizers.size(); ++o) {
        const std::vector<PointScore> points = pointScores(results, task, results.optimizers[o]);
        std::map<double, const PointScore*> byValue;  // the best point at each value, sorted by value
        int diverged = 0, tried = 0;
        for (const PointScore& p : points) {
            const auto value = p.values.find(parameter);
            if (value == p.values.end()) continue;
            ++tried;
            diverged += p.divergedTrials;
            if (!std::isfinite(p.score)) continue;
            const PointScore*& best = byValue[value->second];
            if (!best || p.score < best->score) best = &p;
            positive = positive && value->second > 0;
            positiveScores = positiveScores && p.score > 0;
        }
        if (tried == 0) continue;
        QCPGraph* graph = plot_->addGraph();
        folders_.emplace_back();
        for (const auto& [value, point] : byValue) {
            graph->addData(value, point->score);
            folders_.back().push_back(point->folder);
        }
        graph->setPen(QPen(runColor(o), 1.5));
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, runColor(o), 7));
        graph->setName(diverged ? tr("%1 (%n diverged)", nullptr, diverged).arg(results.optimizers[o])
                                : results.optimizers[o]);
        const StudyOptimizerResult* result = results.result(task, results.optimizers[o]);
        if (const ChoiceParameter* choice = result ? result->fragility.parameter(parameter) : nullptr) {
            if (std::isfinite(result->fragility.score))
                chosen_.push_back({o, choice->value, result->fragility.score, choice->onEdge()});
            edges_.insert(choice->searchedLow);
            edges_.insert(choice->searchedHigh);
        }
    }
    lines_ = plot_->graphCount();
    drawChoices(results);
    plot_->xAxis->setLabel(parameter);
    plot_->yAxis->setLabel(selectionScoreTitle(results.selection));
    setLogarithmic(plot_->xAxis, positive);
    const bool logScores = logY && positiveScores;
    setLogarithmic(plot_->yAxis, logScores);
    plot_->rescaleAxes();
    for (const double edge : edges_) plot_->xAxis->setRange(plot_->xAxis->range().expanded(edge));
    // Room around the outermost trials (a factor on the log axis, a margin on the linear one).
    const QCPRange x = plot_->xAxis->range();
    plot_->xAxis->setRange(positive ? QCPRange(x.lower / 1.5, x.upper * 1.5)
                                    : QCPRange(x.lower - 0.05 * x.size(), x.upper + 0.05 * x.size()));
    const QCPRange y = plot_->yAxis->range();
    if (logScores) plot_->yAxis->setRange(y.lower / 1.2, y.upper * 1.2);
    else plot_->yAxis->scaleRange(1.1, y.center());
    plot_->replot();
}

}  // namespace ml
