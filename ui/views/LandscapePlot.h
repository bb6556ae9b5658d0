#pragma once
// A loss landscape drawn: the grid as a QCPColorMap (banded grey levels, like filled contours, on
// a logarithmic colour scale when every loss is positive), each run's projected trajectory as a
// curve in its run colour, and one marker per run at the replayed step (setStep follows the
// step scrubber; -1 = the last recorded point).
#include "landscape/Landscape.h"

#include <QColor>
#include <QString>
#include <QWidget>

#include <vector>

class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QCPCurve;

namespace ml {

class LandscapePlot : public QWidget {
    Q_OBJECT
public:
    struct Track {
        QString label;
        QColor color;
        std::vector<long> steps;  // of the trajectory's points, ascending
    };

    explicit LandscapePlot(QWidget* parent = nullptr);

    // `tracks[k]` describes landscape.projected[k]; axis titles name the plane's directions.
    void show(const Landscape& landscape, std::vector<Track> tracks, const QString& xTitle, const QString& yTitle);
    void clear();
    void setStep(long step);

    QCustomPlot* plot() const { return plot_; }
    QCPColorMap* colorMap() const { return map_; }
    const std::vector<QCPCurve*>& trajectories() const { return curves_; }
    const std::vector<QCPCurve*>& markers() const { return markers_; }

private:
    void removeCurves();
    QCustomPlot* plot_;
    QCPColorMap* map_;
    QCPColorScale* scale_;
    std::vector<Track> tracks_;
    std::vector<std::vector<Eigen::Vector2d>> points_;
    std::vector<QCPCurve*> curves_;
    std::vector<QCPCurve*> markers_;
    long step_ = -1;
};

}  // namespace ml
