#pragma once
// The Diagnostics dock: what core/diagnostics measures, for every shown run (docs/guide/diagnostics.md).
//   Curves     one layer's quantity over steps, one curve per run in the run's colour; the
//              quantity (gradient norm, update norm, update/weight, distance from init,
//              cos(m, g), gradient SNR) and the layer chosen in combo boxes
//   Neurons    a heat-strip of one run and layer: neuron (rows) x recorded step (columns), f_i
//              (share of first-moment energy along the neuron mean: what neuron-mean keeps) or
//              the coefficient of variation of the incoming first moments
//   Curvature  lambda_max over steps per run with the stability thresholds 2/lr (dashed) and
//              (2 + 2 mu)/lr (dash-dotted) in the run's colour (Cohen et al. 2021)
//   Spectrum   every Hessian eigenvalue at the final weights, per run (small networks)
// Data: addRecords / setCurvature / setSpectrum, from a run folder's diagnostics.csv /
// curvature.csv / hessian_spectrum.csv (loadFolderDiagnostics), derived from the saved snapshots
// of a run without diagnostics.csv (session/SnapshotDiagnostics.h, no gradient SNR there), or
// live: addLive, the instruments' records as the TrainingFeed delivers them.
// Its controls are the app's instrument settings for the next Start (instrumentsOf / showInstruments):
// "Live every N steps" and "gradient SNR" (diagnostics), "λ_max every N steps" and "Hessian
// spectrum at the end" (curvature) — the experiment keys diagnostics-every, gradient-snr,
// curvature-every and hessian-spectrum.
#include "diagnostics/DiagnosticsRecords.h"
#include "instruments/InstrumentRecords.h"
#include "runfolder/DecimationStride.h"
#include "experiment/Experiment.h"
#include "common/RedrawWhenShown.h"

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
    // Records kept per run (a run folder's or a live run's): beyond it, every second one is dropped
    // and the stride doubles (runfolder/DecimationStride.h), so the whole run stays covered.
    static constexpr int kRecordBudget = 2048;

    enum class Curve { GradientNorm, UpdateNorm, UpdateToWeight, DistanceFromInitial, CosMomentGradient, GradientSnr };
    enum class Strip { MeanShare, MomentCv };
    static QString curveName(Curve curve);

    explicit DiagnosticsDock(QWidget* parent = nullptr);

    // Forgets everything; one (empty) entry per run label.
    void begin(const QStringList& labels);
    void addRecords(int run, const std::vector<DiagnosticsRecord>& records);
    void setCurvature(int run, std::vector<CurvaturePoint> points);
    void addCurvature(int run, const std::vector<CurvaturePoint>& points);  // live: appends
    void setSpectrum(int run, std::vector<double> eigenvalues);             // ascending
    // Live: one delivery of the instruments' records (one redraw per run and delivery).
    void addLive(const InstrumentRecords& records);

    void setCurve(Curve curve);
    void setLayer(int layer);
    void setStrip(Strip strip);
    void setStripRun(int run);
    void showTab(int index);  // 0 curves, 1 neurons, 2 curvature, 3 spectrum

    // "Live every N steps" (0: off): read by the main window when training starts.
    long liveEvery() const;
    void setLiveEvery(long every);
    // The instruments an experiment asks for, shown in the controls (a preset, an opened file) ...
    void showInstruments(const Experiment& experiment);
    // ... and what the controls ask for, written into the experiment at Start (curvature-every,
    // gradient-snr, hessian-spectrum; diagnostics-every when live diagnostics are on).
    void applyInstruments(Experiment& experiment) const;

    QCustomPlot* curvesPlot() const { return curves_; }
    QCustomPlot* stripPlot() const { return strips_; }
    QCustomPlot* curvaturePlot() const { return curvature_; }
    QCustomPlot* spectrumPlot() const { return spectrum_; }
    QCPColorMap* stripMap() const { return stripMap_; }
    int runCount() const { return static_cast<int>(runs_.size()); }
    // Whether any run has per-layer records, curvature points, a spectrum (what each tab draws).
    bool hasRecords() const;
    bool hasCurvature() const;
    bool hasSpectrum() const;
    long recordCount(int run) const { return static_cast<long>(runs_[static_cast<std::size_t>(run)].records.size()); }

Q_SIGNALS:
    void liveEveryChanged(long every);

private:
    struct RunTrace {
        QString label;
        // Live diagnostics of a run left training for hours would grow without bound (a record holds
        // every neuron: ~4.5 KB for 784-128-10), so records are thinned by the project's one policy.
        DecimationStride recordPolicy{kRecordBudget};
        std::vector<DiagnosticsRecord> records;
        std::vector<CurvaturePoint> curvature;
        std::vector<double> spectrum;
    };
    QWidget* controlRow(std::initializer_list<QWidget*> widgets);
    void refreshLayerChoices();
    void redrawCurves();
    void redrawStrip();
    void redrawCurvature();
    void redrawSpectrum();
    void redrawAll();

    std::vector<RunTrace> runs_;
    QTabWidget* tabs_ = nullptr;
    QComboBox* curve_ = nullptr;
    QComboBox* layer_ = nullptr;
    QComboBox* strip_ = nullptr;
    QComboBox* stripRun_ = nullptr;
    QSpinBox* liveEvery_ = nullptr;
    QCheckBox* gradientSnr_ = nullptr;
    QSpinBox* curvatureEvery_ = nullptr;
    QCheckBox* hessianSpectrum_ = nullptr;
    QCustomPlot* spectrum_ = nullptr;
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
