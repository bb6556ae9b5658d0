#pragma once
// The study's results table: one row per task and optimizer with its tuned configuration, the
// final seeds, test loss and test accuracy (median [IQR] and mean with its 95 % CI) and the
// median steps to the target. Each number cell keeps its exact value under Qt::UserRole (what
// sorting and the tests read); the text rounds it to 4 significant digits.
#include "study/StudyResults.h"

#include <QTableWidget>

namespace ml {

class StudyResultsTable : public QTableWidget {
    Q_OBJECT
public:
    enum Column {
        Task, Optimizer, Configuration, Seeds, LossMedian, LossMean, LossCiLow, LossCiHigh,
        AccuracyMedian, AccuracyMean, AccuracyCiLow, AccuracyCiHigh, StepsToTarget, ColumnCount
    };

    explicit StudyResultsTable(QWidget* parent = nullptr);
    void setResults(const StudyResults& results);
};

}  // namespace ml
