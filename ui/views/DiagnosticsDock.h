#pragma once
// The Diagnostics dock: what core/diagnostics measures, for every shown run (docs/diagnostics.md).
//   Curves     one layer's quantity over steps, one curve per run in the run's colour; the
//              quantity (gradient norm, update norm, update/weight, distance from init,
//              cos(m, g), gradient SNR) and the layer chosen in combo boxes
//   Neurons    a heat-strip of one run and layer: neuron (rows) x recorded step (columns), f_i
//              (share of first-moment energy along the neuron mean: what neuron-mean keeps) or
//              the coefficient of variation of the incoming first moments
//   Curvature  lambda_max over steps per run with the stability thresholds 2/lr (dashed) and
//              (2 + 2 mu)/lr (dash-dotted) in the run's colour (Cohen et al. 2021)
// Data: addRecords / setCurvature, from a run folder's diagnostics.csv / curvature.csv
// (loadFolderDiagnostics) or live from the TrainingFeed when "Live every N steps" is > 0.
#include "diagnostics/DiagnosticsRecords.h"
#include "views/RedrawWhenShown.h"

#include <QStringList>
#include <QWidget>

#include <string>
#include <vector>

class QCheckBox;
class QComboBox;
class QCPColorMap;
class QCPColorScale;
class QCustomPlot;
class QSpinBox;
class QTabWidget;

namespace ml {

struct RunFolder;

class DiagnosticsDock : public QWidget {
    Q_OBJECT
public:
    enum class Curve { GradientNorm, UpdateNorm, UpdateToWeight, DistanceFromInitial, CosMomentGradient, GradientSnr };
    enum class Strip { MeanShare, MomentCv };
    static QString curveName(Curve curve);

    explicit DiagnosticsDock(QWidget* parent = nullptr);

    // Forgets everything; one (empty) entry per run label.
    void begin(const QStringList& labels);
    void addRecords(int run, const std::vector<DiagnosticsRecord>& records);
    void setCurvature(int run, std::vector<CurvaturePoint> points);
    void addCurvature(int run, const std::vector<CurvaturePoint>& points);  // live: appends

    void setCurve(Curve curve);
    void setLayer(int layer);
    void setStrip(Strip strip);
    void setStripRun(int run);
    void showTab(int index);  // 0 curves, 1 neurons, 2 curvature

    // "Live every N steps" (0: off): read by the main window when training starts.
    long liveEvery() const;
    void setLiveEvery(long every);

    QCustomPlot* curvesPlot() const { return curves_; }
    QCustomPlot* stripPlot() const { return strips_; }
    QCustomPlot* curvaturePlot() const { return curvature_; }
    QCPColorMap* stripMap() const { return stripMap_; }
    int runCount() const { return static_cast<int>(runs_.size()); }
    long recordCount(int run) const { return static_cast<long>(runs_[static_cast<std::size_t>(run)].records.size()); }

Q_SIGNALS:
    void liveEveryChanged(long every);

private:
    struct RunTrace {
        QString label;
        std::vector<DiagnosticsRecord> records;
        std::vector<CurvaturePoint> curvature;
    };
    QWidget* controlRow(std::initializer_list<QWidget*> widgets);
    void refreshLayerChoices();
    void redrawCurves();
    void redrawStrip();
    void redrawCurvature();
    void redrawAll();

    std::vector<RunTrace> runs_;
    QTabWidget* tabs_ = nullptr;
    QComboBox* curve_ = nullptr;
    QComboBox* layer_ = nullptr;
    QComboBox* strip_ = nullptr;
    QComboBox* stripRun_ = nullptr;
    QSpinBox* liveEvery_ = nullptr;
    QCustomPlot* curves_ = nullptr;
    QCustomPlot* strips_ = nullptr;
    QCustomPlot* curvature_ = nullptr;
    QCPColorMap* stripMap_ = nullptr;
    QCPColorScale* stripScale_ = nullptr;
    RedrawWhenShown* redraw_ = nullptr;  // live records arriving while the dock is hidden cost nothing
};

// Reads each run's diagnostics.csv and curvature.csv (where present) into the dock, after
// begin(). Returns "LABEL: PROBLEM" for each file that could not be read (what was read is kept).
std::vector<std::string> loadFolderDiagnostics(const RunFolder& folder, DiagnosticsDock& dock);

}  // namespace ml
