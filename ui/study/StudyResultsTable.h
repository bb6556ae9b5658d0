#pragma once
// The study's results table: one row per task and optimizer with its tuned configuration, the
// final seeds, test loss and test accuracy (median [IQR] and mean with its 95 % CI) and the
// median steps to the target, and P(better than the baseline): the probability that a seed of this
// optimizer ends with a lower test loss than the baseline's (stats::probabilityBetter: paired by
// seed over the seeds both finished, else all pairs). Each number cell keeps its exact value under
// Qt::UserRole (what sorting and the tests read); the text rounds it to 4 significant digits, and so
// does the tuned configuration (its exact values in the tooltip). A configuration whose chosen
// value sits on an edge of what was searched is marked ⚠; its tooltip says which edge, the
// validation scores around the choice and how stable the choice is over the tuning seeds.
#include "study/StudyResults.h"

#include <QTableWidget>

namespace ml {

class StudyResultsTable : public QTableWidget {
    Q_OBJECT
public:
    enum Column {
        Task,
        Optimizer,
        Configuration,
        Seeds,
        LossMedian,
        LossMean,
        LossCiLow,
        LossCiHigh,
        AccuracyMedian,
        AccuracyMean,
        AccuracyCiLow,
        AccuracyCiHigh,
        StepsToTarget,
        BetterThanBaseline,
        ColumnCount
    };

    // The configuration cell's data under this role: true when the choice is on an edge (the mark).
    static constexpr int kOnEdgeRole = Qt::UserRole + 1;

    explicit StudyResultsTable(QWidget* parent = nullptr);
    // `baseline`: an optimizer label of the study (P(better) is empty when it is not one).
    void setResults(const StudyResults& results, const QString& baseline);
};

// The choice's fragility in words (rich text, one line each): edges, the edge of what diverges,
// the validation scores around it and its stability. Empty while phase 1 is unfinished.
QString choiceExplanation(const ChoiceFragility& fragility);

}  // namespace ml
