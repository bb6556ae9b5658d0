#pragma once
// Convergence of all runs overlaid, drawn from a MetricsHistory:
//   top     training (batch) loss, solid, and test loss, dashed with dots, one colour per run
//   bottom  test accuracy (only when the data set has classes)
// Controls above the plot: x-axis (step / epoch / wall time), log-scale loss axis, EMA smoothing
// (TensorBoard style, debiased, applied per plotted point), and "Fit". Mouse: drag pans, the
// wheel zooms; once the user pans or zooms the axes stop following new data until "Fit".
// Hovering shows every run's values at the step under the pointer; clicking a legend entry hides
// or shows that run; the context menu offers fit, log axis, offset curves and export. A line under
// the legend explains the line styles and states the smoothing (so every exported figure does).
// Identical curves: later runs are drawn first, so run 1 stays on top of a run that repeats it,
// and "Offset curves" shifts run i by i x 1.5 % (loss) or i x 0.3 points (accuracy).
// refresh() appends only the points added since the last call (a full redraw only after the
// history decimated, was reset, or a display setting changed) and queues one replot on the
// RenderQueue (a turn of the event loop of its own, not the training delivery's). Each run's
// training-loss curve keeps its points in one block at the Train track's cap (ReservedGraphData),
// refilled in place after a decimation.
#include "model/MetricsHistory.h"

#include <QColor>
#include <QStringList>
#include <QWidget>

#include <cstdint>
#include <vector>

class QCheckBox;
class QComboBox;
class QCPAbstractLegendItem;
class QCPAxisRect;
class QMouseEvent;
class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;
class QCPLegend;
class QCPMarginGroup;
class QCPTextElement;
class QCustomPlot;
class QLabel;
class QSlider;

namespace ml {

class ConvergencePlot : public QWidget {
    Q_OBJECT
public:
    enum class XAxis { Step, Epoch, WallTime };

    explicit ConvergencePlot(QWidget* parent = nullptr);

    // The history stays owned by the caller and must outlive the plot (or be unset with nullptr).
    void setHistory(const MetricsHistory* history);
    void setTitle(const QString& title);
    QString title() const;
    void setXAxis(XAxis axis);
    void setLogScale(bool logarithmic);
    bool logScale() const { return logScale_; }
    void setSmoothing(double weight);  // 0 (raw) .. 0.99
    double smoothing() const { return smoothing_; }
    void fitToData();
    // Appended to each run's legend entry, e.g. its key hyper-parameters ("lr 0.01"); empty: none.
    void setRunDetails(const QStringList& details);
    void setRunVisible(int run, bool visible);
    bool runVisible(int run) const;
    void setOffsetCurves(bool offset);
    bool offsetCurves() const { return offset_; }
    // What hovering at x-axis value `key` shows: each visible run's values at the nearest point.
    QString valuesAt(double key) const;
    QString noteText() const;  // the line under the legend
    // A vertical line at the training step the step scrubber shows (-1: none, the views are live).
    void setMarkedStep(long step);
    long markedStep() const { return markedStep_; }
    bool stepMarkerShown() const;

    QCustomPlot* plot() const { return plot_; }
    QCPLegend* legend() const { return legend_; }
    int plottedPoints() const;  // all graphs together (tests)

public Q_SLOTS:
    void refresh();

Q_SIGNALS:
    void exportRequested();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;  // "Export figure…" in the context menu

private:
    // One graph fed from one series of one run's track.
    struct Feed {
        enum class Kind { TrainLoss, TestLoss, Accuracy };
        QCPGraph* graph = nullptr;
        Kind kind = Kind::TrainLoss;
        QColor color;
        int run = 0;
        MetricsHistory::Track track = MetricsHistory::Track::Train;
        int series = 0;
        int drawn = 0;  // points of the track already added to the graph
        std::uint64_t decimations = 0;
        double emaSum = 0.0;  // smoothing state
        double emaWeight = 0.0;
    };
    QWidget* buildControls();
    void buildPlot();
    void rebuildGraphs();
    void appendNewPoints(Feed& feed, bool fromScratch);
    static void applyStyle(const Feed& feed, int points);
    void redrawAll();
    void fitAxes();  // fitToData without the replot
    void showAccuracyRect(bool show);
    void updateAxisLabels();
    void updatePlaceholder();
    void updateNote();
    void updateLegendNames();
    void showHover(QMouseEvent* event);
    void showContextMenu(const QPoint& position);
    void legendClicked(QCPAbstractLegendItem* item);

    const MetricsHistory* history_ = nullptr;
    std::uint64_t generation_ = ~std::uint64_t{0};
    std::vector<Feed> feeds_;
    XAxis xAxis_ = XAxis::Step;
    void placeStepMarker();
    void fitLegendAndNote();
    double keyOfStep(long step) const;  // on the current x axis; NaN where unknown
    long markedStep_ = -1;
    std::vector<QCPItemStraightLine*> stepMarkers_;  // in the loss plot and the accuracy strip
    bool logScale_ = true;
    double smoothing_ = 0.0;
    bool followData_ = true;

    QComboBox* xAxisChoice_ = nullptr;
    QCheckBox* logChoice_ = nullptr;
    QSlider* smoothingSlider_ = nullptr;
    QLabel* smoothingLabel_ = nullptr;
    QCustomPlot* plot_ = nullptr;
    QCPTextElement* title_ = nullptr;
    QCPAxisRect* lossRect_ = nullptr;
    QCPAxisRect* accuracyRect_ = nullptr;
    QCPLegend* legend_ = nullptr;
    QCPMarginGroup* margins_ = nullptr;
    QCPItemText* placeholder_ = nullptr;
    bool accuracyShown_ = true;
    bool offset_ = false;
    QStringList runDetails_;
    std::vector<bool> hidden_;  // per run, by a legend click
    QCPTextElement* note_ = nullptr;
    QCPItemStraightLine* hoverLine_ = nullptr;
};

}  // namespace ml
