#pragma once
// Hyper-parameter sensitivity of one task: every tuning trial's selection score (validation)
// against one searched hyper-parameter, one line per optimizer, on a log x axis (learning rates
// span decades), and on request a log y axis (scores that span decades too; only when every drawn
// score is positive, else the axis stays linear). Diverged trials (infinite score) cannot be drawn; the legend counts them.
// Clicking a trial's point emits its run folder (the study window opens it in the main views).
#include "study/StudyResults.h"

#include <QWidget>

#include <vector>

class QCustomPlot;

namespace ml {

class SensitivityPlot : public QWidget {
    Q_OBJECT
public:
    explicit SensitivityPlot(QWidget* parent = nullptr);

    void show(const StudyResults& results, const QString& task, const QString& parameter, bool logY = false);
    QCustomPlot* plot() const { return plot_; }
    int lineCount() const;                           // optimizers drawn
    QString trialFolder(int line, int point) const;  // the run folder of a drawn point

Q_SIGNALS:
    void trialClicked(const QString& folder);

private:
    QCustomPlot* plot_;
    std::vector<std::vector<QString>> folders_;  // [line][point], the points in their drawn order
};

// The selection metric's score as an axis names it ("final validation loss").
QString selectionScoreTitle(const QString& selection);

}  // namespace ml
