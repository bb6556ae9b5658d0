#include "study/StudyResultsTable.h"

#include "model/RunPalette.h"
#include "study/StudyAggregate.h"

#include <QHeaderView>

#include <cmath>

namespace ml {

namespace {

// Sorts by the exact value (UserRole), never by the rounded text; "none" (NaN) sorts last.
class NumberItem : public QTableWidgetItem {
public:
    explicit NumberItem(double value) {
        setData(Qt::UserRole, value);
        setText(std::isnan(value)   ? QStringLiteral("–")
                : std::isinf(value) ? QStringLiteral("never")
                                    : QString::number(value, 'g', 4));
        setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    bool operator<(const QTableWidgetItem& other) const override {
        const double a = data(Qt::UserRole).toDouble(), b = other.data(Qt::UserRole).toDouble();
        if (std::isnan(a) || std::isnan(b)) return !std::isnan(a) && std::isnan(b);
        return a < b;
    }
};

const StudyOptimizerResult* resultOf(const StudyResults& results, const QString& task, const QString& optimizer) {
    for (const StudyOptimizerResult& r : results.optimizerResults)
        if (r.task == task && r.optimizer == optimizer) return &r;
    return nullptr;
}

QString scoreText(double score) { return std::isinf(score) ? QObject::tr("diverged") : QString::number(score, 'g', 3); }

}  // namespace

QString choiceExplanation(const ChoiceFragility& f) {
    if (!f.known) return {};
    QStringList lines;
    for (const ChoiceParameter& p : f.parameters) {
        const QString range = QObject::tr("%1 … %2").arg(p.searchedLow, 0, 'g', 4).arg(p.searchedHigh, 0, 'g', 4);
        if (p.onEdge())
            lines << QObject::tr(
                         "⚠ %1 = %2 is on the %3 edge of what was searched (%4): the best value may lie beyond it.")
                         .arg(p.parameter)
                         .arg(p.value, 0, 'g', 4)
                         .arg(p.below == "edge" && p.above == "edge" ? QObject::tr("lower and upper")
                              : p.below == "edge"                    ? QObject::tr("lower")
                                                                     : QObject::tr("upper"))
                         .arg(range);
        if (p.below == "bound" || p.above == "bound")
            lines << QObject::tr("%1 = %2 is the hyper-parameter's own bound: nothing lies beyond it.")
                         .arg(p.parameter)
                         .arg(p.value, 0, 'g', 4);
        if (p.below == "diverged" || p.above == "diverged")
            lines << QObject::tr("%1: the next value %2 (%3) diverged: the choice is at the edge of what diverges.")
                         .arg(p.parameter, p.above == "diverged" ? QObject::tr("above") : QObject::tr("below"))
                         .arg(p.above == "diverged" ? p.upperValue : p.lowerValue, 0, 'g', 4);
        QStringList curve;
        if (!std::isnan(p.lowerValue))
            curve << QObject::tr("%1 at %2").arg(scoreText(p.lowerScore)).arg(p.lowerValue, 0, 'g', 4);
        curve << QObject::tr("<b>%1 at %2</b>").arg(scoreText(f.score)).arg(p.value, 0, 'g', 4);
        if (!std::isnan(p.upperValue))
            curve << QObject::tr("%1 at %2").arg(scoreText(p.upperScore)).arg(p.upperValue, 0, 'g', 4);
        lines << QObject::tr("Validation around the choice (%1): %2").arg(p.parameter, curve.join(" · "));
    }
    lines << (std::isnan(f.stability) ? QObject::tr("One tuning seed: stability not measurable.")
                                      : QObject::tr("Chosen again in %1 % of the resamples of its %2 tuning seeds.")
                                            .arg(qRound(100 * f.stability))
                                            .arg(f.tuningSeeds));
    return lines.join("<br>");
}

StudyResultsTable::StudyResultsTable(QWidget* parent) : QTableWidget(parent) {
    setColumnCount(ColumnCount);
    // Two short lines per header keep 14 columns within a 1366 px window; each CI column names
    // the mean it bounds.
    setHorizontalHeaderLabels({tr("Task"), tr("Optimizer"), tr("Tuned"), tr("Seeds"), tr("Loss\nmedian"),
                               tr("Loss\nmean"), tr("Loss mean\nCI low"), tr("Loss mean\nCI high"), tr("Acc.\nmedian"),
                               tr("Acc.\nmean"), tr("Acc. mean\nCI low"), tr("Acc. mean\nCI high"),
                               tr("Steps to\ntarget"), tr("P(better)")});
    horizontalHeaderItem(Configuration)
        ->setToolTip(tr("The configuration phase 1 chose on validation data; ⚠ marks a value on an edge of what "
                        "was searched (its tooltip says which, the scores around it and how stable the choice is)"));
    horizontalHeaderItem(StepsToTarget)
        ->setToolTip(tr("Median over the seeds of the first step whose test loss reached the target"));
    for (const int column : {LossCiLow, LossCiHigh})
        horizontalHeaderItem(column)->setToolTip(
            tr("95 % bootstrap confidence interval of the mean test loss over the seeds"));
    for (const int column : {AccuracyCiLow, AccuracyCiHigh})
        horizontalHeaderItem(column)->setToolTip(
            tr("95 % bootstrap confidence interval of the mean test accuracy over the seeds"));
    horizontalHeaderItem(LossMedian)
        ->setToolTip(tr("Median of the final test loss over the seeds; the tooltip gives the interquartile range"));
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    verticalHeader()->hide();
    horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    horizontalHeader()->setStretchLastSection(true);
    setSortingEnabled(true);
}

void StudyResultsTable::setResults(const StudyResults& results, const QString& baseline) {
    setSortingEnabled(false);
    clearContents();
    setRowCount(static_cast<int>(results.optimizerResults.size()));
    for (int row = 0; row < rowCount(); ++row) {
        const StudyOptimizerResult& r = results.optimizerResults[static_cast<std::size_t>(row)];
        auto* task = new QTableWidgetItem(r.task);
        auto* optimizer = new QTableWidgetItem(r.optimizer);
        optimizer->setForeground(runColor(static_cast<int>(results.optimizers.indexOf(r.optimizer))));
        auto* configuration = new QTableWidgetItem(r.configuration.isEmpty() ? tr("(tuning unfinished)")
                                                                             : roundedConfiguration(r.configuration));
        configuration->setToolTip(r.configuration.toHtmlEscaped() +
                                  (r.fragility.known ? "<br>" + choiceExplanation(r.fragility) : QString()));
        if (r.fragility.onEdge()) {  // the mark: a better value may lie outside what was searched
            configuration->setText(configuration->text() + " ⚠");
            configuration->setForeground(QColor(190, 90, 0));
        }
        configuration->setData(kOnEdgeRole, r.fragility.onEdge());
        setItem(row, Task, task);
        setItem(row, Optimizer, optimizer);
        setItem(row, Configuration, configuration);
        setItem(row, Seeds, new NumberItem(r.seeds));
        const double values[] = {r.testLoss.median,    r.testLoss.mean,       r.testLoss.ciLow,
                                 r.testLoss.ciHigh,    r.testAccuracy.median, r.testAccuracy.mean,
                                 r.testAccuracy.ciLow, r.testAccuracy.ciHigh, r.stepsToTargetMedian};
        for (int c = LossMedian; c <= StepsToTarget; ++c) setItem(row, c, new NumberItem(values[c - LossMedian]));
        const StudyOptimizerResult* base = resultOf(results, r.task, baseline);
        const stats::BetterProbability better =
            base ? stats::probabilityBetter(r.finalTestLoss, base->finalTestLoss) : stats::BetterProbability{};
        setItem(row, BetterThanBaseline, new NumberItem(r.optimizer == baseline ? NAN : better.probability));
        if (r.optimizer == baseline) item(row, BetterThanBaseline)->setText(tr("baseline"));
        else if (better.pairs > 0)
            item(row, BetterThanBaseline)
                ->setToolTip(better.paired ? tr("over %1 seeds both finished (paired by seed)").arg(better.pairs)
                                           : tr("over all %1 pairs of seeds (no seed in common)").arg(better.pairs));
        item(row, LossMedian)
            ->setToolTip(tr("interquartile range %1 … %2").arg(r.testLoss.q1, 0, 'g', 4).arg(r.testLoss.q3, 0, 'g', 4));
        item(row, AccuracyMedian)
            ->setToolTip(
                tr("interquartile range %1 … %2").arg(r.testAccuracy.q1, 0, 'g', 4).arg(r.testAccuracy.q3, 0, 'g', 4));
    }
    setColumnHidden(StepsToTarget, std::isnan(results.target));
    if (!std::isnan(results.target))
        horizontalHeaderItem(StepsToTarget)->setText(tr("Steps to\n%1").arg(results.target));
    horizontalHeaderItem(BetterThanBaseline)->setText(tr("P(better than\n%1)").arg(baseline));
    horizontalHeaderItem(BetterThanBaseline)
        ->setToolTip(tr("Probability that a seed of this optimizer ends with a lower test loss than a seed of %1 "
                        "(paired by seed over the seeds both finished; ties count one half)")
                         .arg(baseline));
    setSortingEnabled(true);
}

}  // namespace ml
