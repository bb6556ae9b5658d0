#pragma once
// Band plot of one task and one series (training loss, test loss or test accuracy) over the final
// seeds: per optimizer its centre line (median or mean) and a translucent band between the lower
// and upper curve (interquartile range or 95 % bootstrap CI) — a QCustomPlot channel fill between
// two graphs. The optimizer's colour is its run colour (model/RunPalette.h).
#include "study/StudyResults.h"

#include <QWidget>

class QCustomPlot;

namespace ml {

class StudyBandPlot : public QWidget {
    Q_OBJECT
public:
    enum class Statistic { MedianIqr, MeanCi };

    explicit StudyBandPlot(QWidget* parent = nullptr);

    // `results` must outlive the plot's next show() call (the window owns both).
    void show(const StudyResults& results, const QString& task, const QString& series, Statistic statistic, bool logY);
    QCustomPlot* plot() const { return plot_; }
    int bandCount() const { return bands_; }  // filled bands drawn (one per optimizer with final runs)

private:
    QCustomPlot* plot_;
    int bands_ = 0;
};

// "test loss" for "test_loss": the series' name as axes and menus show it.
QString seriesTitle(const QString& series);

}  // namespace ml
