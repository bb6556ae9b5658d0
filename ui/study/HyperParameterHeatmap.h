#pragma once
// The tuning trials of one optimizer on one task over two searched hyper-parameters (for example
// lr × momentum): one cell per distinct pair of values, coloured by the selection score
// (validation; lower is better), empty where no trial was, a diverged trial marked as such.
// Axes are the values in order (a grid stays a grid; quasi-random points each get a column and a
// row). Clicking a cell emits its trial's run folder. The colour range is robust: from the best
// score to the worst that is not an outlier (Tukey's fence, on the log scores when the colour axis
// is logarithmic), so one nearly diverged trial does not wash out the map; cells beyond it take the
// end colour and the colour bar says so.
#include "study/StudyResults.h"

#include <QWidget>

#include <vector>

class QCPColorMap;
class QCPColorScale;
class QCustomPlot;

namespace ml {

class HyperParameterHeatmap : public QWidget {
    Q_OBJECT
public:
    explicit HyperParameterHeatmap(QWidget* parent = nullptr);

    void show(const StudyResults& results, const QString& task, const QString& optimizer, const QString& x,
              const QString& y);
    QCustomPlot* plot() const { return plot_; }
    int trialCount() const { return static_cast<int>(cells_.size()); }  // cells that hold a trial
    int clippedCount() const { return clipped_; }                       // trials worse than the colour range
    QString folderAt(int column, int row) const;                        // the trial's run folder; empty where none

Q_SIGNALS:
    void trialClicked(const QString& folder);

private:
    struct Cell {
        int column, row;
        QString folder;
    };
    QCustomPlot* plot_;
    QCPColorMap* map_ = nullptr;
    QCPColorScale* scale_;
    std::vector<Cell> cells_;
    int clipped_ = 0;
};

}  // namespace ml
