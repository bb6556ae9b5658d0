#pragma once
// Hyper-parameter sensitivity of one task: the selection score (validation) against one searched
// hyper-parameter, one line per optimizer: at each value the best point tried there (the other
// searched keys at their best), a point's score the median over its tuning seeds, on a log x
// axis (learning rates span decades), and on request a log y axis (scores that span decades too;
// only when every drawn score is positive, else the axis stays linear). Diverged trials (infinite
// score) cannot be drawn; the legend counts them.
// Clicking a trial's point emits its run folder (the study window opens it in the main views).
// Each optimizer's chosen point is ringed (in red when it sits on an edge of what was searched),
// and the searched range's edges are dashed vertical lines: a choice on one may have a better
// value beyond it.
#include "study/StudyResults.h"

#include <QWidget>

#include <map>
#include <set>
#include <vector>

class QCustomPlot;

namespace ml {

class SensitivityPlot : public QWidget {
    Q_OBJECT
public:
    explicit SensitivityPlot(QWidget* parent = nullptr);

    void show(const StudyResults& results, const QString& task, const QString& parameter, bool logY = false);
    QCustomPlot* plot() const { return plot_; }
    int lineCount() const;                                                                // optimizers drawn
    int chosenCount() const { return static_cast<int>(chosen_.size()); }                  // chosen points ringed
    std::vector<double> searchedEdges() const { return {edges_.begin(), edges_.end()}; }  // dashed lines, in order
    QString trialFolder(int line, int point) const;  // the run folder of a drawn point

    // The points one optimizer tried (its trials grouped by their values), each scored by the
    // median over its tuning seeds; the folder is the point's first trial.
    struct PointScore {
        std::map<QString, double> values;
        double score;
        QString folder;
        int divergedTrials;
    };
    static std::vector<PointScore> pointScores(const StudyResults& results, const QString& task,
                                               const QString& optimizer);

Q_SIGNALS:
    void trialClicked(const QString& folder);

private:
    struct ChosenPoint {
        int optimizer;
        double value, score;
        bool onEdge;
    };
    void drawChoices(const StudyResults& results);

    QCustomPlot* plot_;
    int lines_ = 0;
    std::vector<ChosenPoint> chosen_;
    std::set<double> edges_;
    std::vector<std::vector<QString>> folders_;  // [line][point], the points in their drawn order
};

// The selection metric's score as an axis names it ("final validation loss").
QString selectionScoreTitle(const QString& selection);

}  // namespace ml
