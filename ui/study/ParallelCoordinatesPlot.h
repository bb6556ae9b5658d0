#pragma once
// The tuning trials of one optimizer on one task across every searched hyper-parameter and the
// selection score (validation; lower is better): one vertical axis per parameter and one for the
// score, one polyline per trial through its values, coloured by its score. Each axis spans the
// values tried (a log axis for positive values spanning more than a decade), labelled with its
// ends. The chosen trials (the chosen point on each of its tuning seeds) are drawn thick and dark
// on top; diverged trials, which have no score, are dashed grey lines that end on a "diverged" band
// above the score axis. Clicking a polyline emits its trial's run folder.
#include "study/StudyResults.h"

#include <QWidget>

#include <vector>

class QCPColorScale;
class QCPGraph;
class QCustomPlot;

namespace ml {

class ParallelCoordinatesPlot : public QWidget {
    Q_OBJECT
public:
    explicit ParallelCoordinatesPlot(QWidget* parent = nullptr);

    void show(const StudyResults& results, const QString& task, const QString& optimizer);
    QCustomPlot* plot() const { return plot_; }
    int polylineCount() const { return static_cast<int>(lines_.size()); }  // one per tuning trial
    int chosenCount() const;                                               // polylines drawn as chosen
    int divergedCount() const;                                             // polylines drawn apart
    QStringList axes() const { return axes_; }                             // the parameters, then the score
    QString folderOf(int polyline) const;                                  // the trial's run folder

Q_SIGNALS:
    void trialClicked(const QString& folder);

private:
    struct Polyline {
        QCPGraph* curve;  // keys 0 .. axes - 1: a graph (the pgfplots export draws graphs)
        QString folder;
        bool chosen, diverged;
    };
    QCustomPlot* plot_;
    QCPColorScale* scale_;
    std::vector<Polyline> lines_;
    QStringList axes_;
};

}  // namespace ml
