#include "views/DiagnosticsDock.h"

#include "diagnostics/CurvatureWriter.h"
#include "model/RunPalette.h"
#include "runfolder/RunFolderLayout.h"
#include "runfolder/RunFolderReader.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QTabWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <map>

namespace ml {

namespace {

float valueOf(const UnitDiagnostics& unit, DiagnosticsDock::Curve curve) {
    using Curve = DiagnosticsDock::Curve;
    switch (curve) {
    case Curve::GradientNorm: return unit.gradientNorm;
    case Curve::UpdateNorm: return unit.updateNorm;
    case Curve::UpdateToWeight: return unit.updateToWeight;
    case Curve::DistanceFromInitial: return unit.distanceFromInitial;
    case Curve::CosMomentGradient: return unit.cosMomentGradient;
    case Curve::GradientSnr: return unit.gradientSnr;
    }
    return NAN;
}

// Norms, ratios and the SNR span decades: a log axis; distance and cosine: linear.
bool logScaled(DiagnosticsDock::Curve curve) {
    using Curve = DiagnosticsDock::Curve;
    return curve != Curve::DistanceFromInitial && curve != Curve::CosMomentGradient;
}

void stylePlot(QCustomPlot* plot, const QString& xLabel, const QString& yLabel) {
    plot->xAxis->setLabel(xLabel);
    plot->yAxis->setLabel(yLabel);
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot->setMinimumHeight(160);
}

// A small see-through legend in the top-left corner (curves tend to rise to the right).
void styleLegend(QCustomPlot* plot, const QFont& font) {
    plot->legend->setVisible(true);
    plot->legend->setFont(QFont(font.family(), 8));
    plot->legend->setBrush(QColor(255, 255, 255, 190));
    plot->legend->setRowSpacing(-3);
    plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
}

// An empty plot says what would fill it: an empty frame after a training looked broken.
void showEmptyHint(QCustomPlot* plot, bool empty, const QString& text) {
    auto* hint = plot->findChild<QCPItemText*>(QStringLiteral("emptyHint"), Qt::FindDirectChildrenOnly);
    if (!hint) {
        hint = new QCPItemText(plot);
        hint->setObjectName(QStringLiteral("emptyHint"));
        hint->position->setType(QCPItemPosition::ptAxisRectRatio);
        hint->position->setCoords(0.5, 0.5);
        hint->setColor(QColor(100, 100, 100));
        hint->setTextAlignment(Qt::AlignCenter);
    }
    hint->setText(text);
    hint->setVisible(empty);
}

QString recordsHint() {
    return QObject::tr(
        "No diagnostics recorded.\nSet \u201cLive every N steps\u201d above, then Start;\n"
        "or open a run folder trained with --diagnostics-every N.");
}

// Only once there is something to name: an empty legend box over an empty plot looks broken.
void showLegendWithCurves(QCustomPlot* plot) { plot->legend->setVisible(plot->graphCount() > 0); }

}  // namespace

QString DiagnosticsDock::curveName(Curve curve) {
    switch (curve) {
    case Curve::GradientNorm: return tr("Gradient norm ‖g‖");
    case Curve::UpdateNorm: return tr("Update norm ‖Δw‖");
    case Curve::UpdateToWeight: return tr("Update / weight ‖Δw‖/‖w‖");
    case Curve::DistanceFromInitial: return tr("Distance from init ‖w − w₀‖");
    case Curve::CosMomentGradient: return tr("cos(m, g)");
    case Curve::GradientSnr: return tr("Gradient SNR ‖ḡ‖² / mean ‖g_s − ḡ‖²");
    }
    return {};
}

DiagnosticsDock::DiagnosticsDock(QWidget* parent) : QWidget(parent) {
    layer_ = new QComboBox;
    layer_->setToolTip(tr("The parameter layer shown in every tab"));
    liveEvery_ = new QSpinBox;
    liveEvery_->setRange(0, 1'000'000);
    liveEvery_->setSpecialValueText(tr("off"));
    liveEvery_->setToolTip(
        tr("While training in the app: compute the diagnostics every N steps (0: off). "
           "Takes effect at the next Start."));
    connect(liveEvery_, &QSpinBox::valueChanged, this, [this](int every) { Q_EMIT liveEveryChanged(every); });
    gradientSnr_ = new QCheckBox(tr("gradient SNR"));
    gradientSnr_->setChecked(true);
    gradientSnr_->setToolTip(
        tr("Also the gradient signal-to-noise ratio (from per-sample gradient statistics): "
           "cheap for dense layers, one more weight gradient per convolution. Takes effect at the next Start."));
    curvatureEvery_ = new QSpinBox;
    curvatureEvery_->setRange(0, 1'000'000);
    curvatureEvery_->setSpecialValueText(tr("off"));
    curvatureEvery_->setToolTip(tr("While training in the app: λ_max of the loss Hessian on the first %1 training "
                                   "samples every N steps (0: off). Takes effect at the next Start.")
                                    .arg(kDefaultCurvatureBatch));
    hessianSpectrum_ = new QCheckBox(tr("spectrum at the end"));
    hessianSpectrum_->setToolTip(tr("When training ends: every eigenvalue of the Hessian at each run's final weights "
                                    "(networks up to %1 parameters; the Spectrum tab)")
                                     .arg(HessianProbe::kMaxSpectrumParameters));

    curve_ = new QComboBox;
    for (Curve curve : {Curve::GradientNorm, Curve::UpdateNorm, Curve::UpdateToWeight, Curve::DistanceFromInitial,
                        Curve::CosMomentGradient, Curve::GradientSnr})
        curve_->addItem(curveName(curve), static_cast<int>(curve));
    strip_ = new QComboBox;
    strip_->addItem(tr("f_i (mean share)"), static_cast<int>(Strip::MeanShare));
    strip_->setToolTip(
        tr("f_i: what neuron-mean keeps of neuron i's first moment (1: all). Grey: undefined "
           "(a neuron whose first moment is zero, e.g. a dead ReLU)"));
    strip_->addItem(tr("CV of m_ij"), static_cast<int>(Strip::MomentCv));
    stripRun_ = new QComboBox;
    // Narrow docks (1366 x 768): the combo boxes shrink to a few characters rather than push the
    // row wider than the dock (their tooltips and the open list show the whole text).
    for (QComboBox* combo : {layer_, curve_, strip_, stripRun_}) {
        combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        combo->setMinimumContentsLength(6);
        combo->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    }

    curves_ = new QCustomPlot;
    stylePlot(curves_, tr("step"), curveName(Curve::GradientNorm));
    styleLegend(curves_, font());
    strips_ = new QCustomPlot;
    stylePlot(strips_, tr("step"), tr("neuron"));
    stripMap_ = new QCPColorMap(strips_->xAxis, strips_->yAxis);
    stripScale_ = new QCPColorScale(strips_);
    strips_->plotLayout()->addElement(0, 1, stripScale_);
    stripMap_->setColorScale(stripScale_);
    QCPColorGradient gradient(QCPColorGradient::gpThermal);
    gradient.setNanHandling(QCPColorGradient::nhNanColor);
    gradient.setNanColor(QColor(230, 230, 230));
    stripMap_->setGradient(gradient);
    stripMap_->setInterpolate(false);
    auto* margins = new QCPMarginGroup(strips_);
    strips_->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    stripScale_->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    curvature_ = new QCustomPlot;
    stylePlot(curvature_, tr("step"), tr("λ_max of the Hessian"));
    styleLegend(curvature_, font());
    spectrum_ = new QCustomPlot;
    stylePlot(spectrum_, tr("index (ascending), at the final weights"), tr("Hessian eigenvalue"));
    styleLegend(spectrum_, font());

    auto* curvesTab = new QWidget;
    auto* curvesLayout = new QVBoxLayout(curvesTab);
    curvesLayout->setContentsMargins(0, 0, 0, 0);
    curvesLayout->addWidget(controlRow({new QLabel(tr("Quantity")), curve_}));
    curvesLayout->addWidget(curves_, 1);
    auto* stripTab = new QWidget;
    auto* stripLayout = new QVBoxLayout(stripTab);
    stripLayout->setContentsMargins(0, 0, 0, 0);
    stripLayout->addWidget(controlRow({new QLabel(tr("Run")), stripRun_, new QLabel(tr("Show")), strip_}));
    stripLayout->addWidget(strips_, 1);
    tabs_ = new QTabWidget;
    tabs_->addTab(curvesTab, tr("Curves"));
    tabs_->addTab(stripTab, tr("Neurons"));
    auto* curvatureTab = new QWidget;
    auto* curvatureLayout = new QVBoxLayout(curvatureTab);
    curvatureLayout->setContentsMargins(0, 0, 0, 0);
    curvatureLayout->addWidget(
        controlRow({new QLabel(tr("λ_max every")), curvatureEvery_, new QLabel(tr("steps")), hessianSpectrum_}));
    curvatureLayout->addWidget(curvature_, 1);
    tabs_->addTab(curvatureTab, tr("Curvature"));
    tabs_->addTab(spectrum_, tr("Spectrum"));

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(controlRow({new QLabel(tr("Layer")), layer_}));
    layout->addWidget(controlRow({new QLabel(tr("Live every")), liveEvery_, new QLabel(tr("steps")), gradientSnr_}));
    layout->addWidget(tabs_, 1);

    redraw_ = new RedrawWhenShown(this, [this] { redrawAll(); });
    connect(curve_, &QComboBox::currentIndexChanged, this, [this] { redrawCurves(); });
    connect(layer_, &QComboBox::currentIndexChanged, this, [this] {
        redrawCurves();
        redrawStrip();
    });
    connect(strip_, &QComboBox::currentIndexChanged, this, [this] { redrawStrip(); });
    connect(stripRun_, &QComboBox::currentIndexChanged, this, [this] { redrawStrip(); });
}

QWidget* DiagnosticsDock::controlRow(std::initializer_list<QWidget*> widgets) {
    auto* row = new QWidget;
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    bool expanding = false;
    for (QWidget* widget : widgets) {
        layout->addWidget(widget);
        expanding = expanding || widget->sizePolicy().horizontalPolicy() == QSizePolicy::Expanding;
    }
    if (!expanding) layout->addStretch(1);  // combo boxes take the row's width themselves
    return row;
}

void DiagnosticsDock::begin(const QStringList& labels) {
    runs_.clear();
    for (const QString& label : labels) runs_.push_back({label, DecimationStride(kRecordBudget), {}, {}, {}});
    const QSignalBlocker blocker(stripRun_);
    stripRun_->clear();
    stripRun_->addItems(labels);
    refreshLayerChoices();
    redrawAll();
}

void DiagnosticsDock::addRecords(int run, const std::vector<DiagnosticsRecord>& records) {
    if (run < 0 || run >= runCount() || records.empty()) return;
    RunTrace& trace = runs_[static_cast<std::size_t>(run)];
    for (const DiagnosticsRecord& record : records) {
        if (!trace.recordPolicy.offer()) continue;
        trace.records.push_back(record);
        if (trace.recordPolicy.full(static_cast<long>(trace.records.size()))) keepEverySecond(trace.records);
    }
    refreshLayerChoices();
    redraw_->request();
}

void DiagnosticsDock::setCurvature(int run, std::vector<CurvaturePoint> points) {
    if (run < 0 || run >= runCount()) return;
    runs_[static_cast<std::size_t>(run)].curvature = std::move(points);
    redrawCurvature();
}

void DiagnosticsDock::addCurvature(int run, const std::vector<CurvaturePoint>& points) {
    if (run < 0 || run >= runCount() || points.empty()) return;
    auto& target = runs_[static_cast<std::size_t>(run)].curvature;
    target.insert(target.end(), points.begin(), points.end());
    redraw_->request();
}

void DiagnosticsDock::setSpectrum(int run, std::vector<double> eigenvalues) {
    if (run < 0 || run >= runCount()) return;
    runs_[static_cast<std::size_t>(run)].spectrum = std::move(eigenvalues);
    redraw_->request();
}

void DiagnosticsDock::addLive(const InstrumentRecords& records) {
    std::map<int, std::vector<DiagnosticsRecord>> byRun;
    for (const RunDiagnostics& one : records.diagnostics) byRun[one.run].push_back(one.record);
    for (const auto& [run, recorded] : byRun) addRecords(run, recorded);
    std::map<int, std::vector<CurvaturePoint>> curvature;
    for (const RunCurvature& one : records.curvature) curvature[one.run].push_back(one.point);
    for (const auto& [run, points] : curvature) addCurvature(run, points);
    for (std::size_t run = 0; run < records.spectra.size(); ++run)
        setSpectrum(static_cast<int>(run), records.spectra[run]);
}

void DiagnosticsDock::setCurve(Curve curve) { curve_->setCurrentIndex(curve_->findData(static_cast<int>(curve))); }
void DiagnosticsDock::setLayer(int layer) { layer_->setCurrentIndex(layer); }
void DiagnosticsDock::setStrip(Strip strip) { strip_->setCurrentIndex(strip_->findData(static_cast<int>(strip))); }
void DiagnosticsDock::setStripRun(int run) { stripRun_->setCurrentIndex(run); }
void DiagnosticsDock::showTab(int index) { tabs_->setCurrentIndex(index); }
long DiagnosticsDock::liveEvery() const { return liveEvery_->value(); }
void DiagnosticsDock::setLiveEvery(long every) { liveEvery_->setValue(static_cast<int>(every)); }

void DiagnosticsDock::showInstruments(const Experiment& experiment) {
    if (experiment.diagnosticsEvery > 0) setLiveEvery(experiment.diagnosticsEvery);
    gradientSnr_->setChecked(experiment.gradientSnr);
    curvatureEvery_->setValue(static_cast<int>(std::min<long>(experiment.curvatureEvery, curvatureEvery_->maximum())));
    hessianSpectrum_->setChecked(experiment.hessianSpectrum);
}

void DiagnosticsDock::applyInstruments(Experiment& experiment) const {
    if (liveEvery() > 0) experiment.diagnosticsEvery = liveEvery();
    experiment.gradientSnr = gradientSnr_->isChecked();
    experiment.curvatureEvery = curvatureEvery_->value();
    experiment.hessianSpectrum = hessianSpectrum_->isChecked();
}

// One entry per parameter layer of the first run that has records (all runs share the network).
void DiagnosticsDock::refreshLayerChoices() {
    std::size_t layers = 0;
    for (const RunTrace& run : runs_)
        if (!run.records.empty()) layers = std::max(layers, run.records.front().layers.size());
    if (static_cast<std::size_t>(layer_->count()) == layers) return;
    const QSignalBlocker blocker(layer_);
    const int current = std::max(0, layer_->currentIndex());
    layer_->clear();
    for (std::size_t l = 0; l < layers; ++l) {
        std::size_t neurons = 0;
        for (const RunTrace& run : runs_)
            if (!run.records.empty()) neurons = run.records.front().layers[l].size() - 1;
        layer_->addItem(tr("%1 (%2 neurons)").arg(l).arg(neurons));
    }
    layer_->setCurrentIndex(std::min(current, layer_->count() - 1));
}

void DiagnosticsDock::redrawCurves() {
    curves_->clearGraphs();
    const auto curve = static_cast<Curve>(curve_->currentData().toInt());
    const int layer = layer_->currentIndex();
    const bool log = logScaled(curve);
    curves_->yAxis->setScaleType(log ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (log) curves_->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    else curves_->yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    curves_->yAxis->setLabel(curveName(curve));
    for (int r = 0; r < runCount(); ++r) {
        const RunTrace& run = runs_[static_cast<std::size_t>(r)];
        QVector<double> steps, values;
        for (const DiagnosticsRecord& record : run.records) {
            if (layer < 0 || static_cast<std::size_t>(layer) >= record.layers.size()) continue;
            const double value = valueOf(record.layers[static_cast<std::size_t>(layer)][0], curve);
            if (!std::isfinite(value) || (log && value <= 0)) continue;  // undefined, or off a log axis
            steps << static_cast<double>(record.step);
            values << value;
        }
        if (run.records.empty()) continue;
        QCPGraph* graph = curves_->addGraph();
        graph->setName(run.label);
        graph->setPen(QPen(runColor(r), 1.6));
        graph->setData(steps, values, /*alreadySorted=*/true);
        if (steps.size() < 40) graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 4));
    }
    showLegendWithCurves(curves_);
    showEmptyHint(curves_, curves_->graphCount() == 0, recordsHint());
    curves_->rescaleAxes();
    curves_->replot();
}

void DiagnosticsDock::redrawStrip() {
    const int r = stripRun_->currentIndex();
    const int layer = layer_->currentIndex();
    const bool share = static_cast<Strip>(strip_->currentData().toInt()) == Strip::MeanShare;
    stripScale_->axis()->setLabel(share ? tr("f_i") : tr("CV of m_ij"));
    QCPColorMapData* data = stripMap_->data();
    const RunTrace* run = r >= 0 && r < runCount() ? &runs_[static_cast<std::size_t>(r)] : nullptr;
    const bool empty = !run || run->records.empty() || layer < 0 ||
                       static_cast<std::size_t>(layer) >= run->records.front().layers.size();
    showEmptyHint(strips_, empty, recordsHint());
    if (empty) {
        data->setSize(0, 0);
        strips_->replot();
        return;
    }
    const auto& records = run->records;
    const int columns = static_cast<int>(records.size());
    const int neurons = static_cast<int>(records.front().layers[static_cast<std::size_t>(layer)].size()) - 1;
    data->setSize(columns, neurons);
    // Cell centres at the recorded steps and at neurons 0 .. n-1.
    data->setRange(QCPRange(static_cast<double>(records.front().step), static_cast<double>(records.back().step)),
                   QCPRange(0, std::max(neurons - 1, 0)));
    double highest = 0;
    for (int c = 0; c < columns; ++c) {
        const auto& units = records[static_cast<std::size_t>(c)].layers[static_cast<std::size_t>(layer)];
        for (int i = 0; i < neurons; ++i) {
            const UnitDiagnostics& unit = units[static_cast<std::size_t>(1 + i)];
            const double value = share ? unit.meanShare : unit.momentCv;
            data->setCell(c, i, std::isfinite(value) ? value : NAN);  // inf CV (mean 0): shown as missing
            if (std::isfinite(value)) highest = std::max(highest, value);
        }
    }
    stripMap_->setDataRange(share ? QCPRange(0, 1) : QCPRange(0, highest > 0 ? highest : 1));
    strips_->rescaleAxes();
    strips_->replot();
}

void DiagnosticsDock::redrawCurvature() {
    curvature_->clearGraphs();
    std::vector<QVector<double>> drawn;  // threshold series already drawn: runs with the same lr and mu share them
    for (int r = 0; r < runCount(); ++r) {
        const RunTrace& run = runs_[static_cast<std::size_t>(r)];
        if (run.curvature.empty()) continue;
        QVector<double> steps, lambda, sgd, heavyBall;
        for (const CurvaturePoint& point : run.curvature) {
            steps << static_cast<double>(point.step);
            lambda << point.lambdaMax;
            sgd << point.sgdThreshold;
            heavyBall << point.heavyBallThreshold;
        }
        QCPGraph* graph = curvature_->addGraph();
        graph->setName(tr("%1 λ_max").arg(run.label));
        graph->setPen(QPen(runColor(r), 1.8));
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 4));
        graph->setData(steps, lambda, true);
        const auto threshold = [&](const QVector<double>& values, Qt::PenStyle style, const QString& name) {
            if (std::find(drawn.begin(), drawn.end(), values) != drawn.end()) return;
            drawn.push_back(values);
            QCPGraph* line = curvature_->addGraph();
            // Named by its value when constant (the usual case: no learning-rate schedule).
            const bool constant =
                std::all_of(values.begin(), values.end(), [&](double v) { return v == values.front(); });
            line->setName(constant ? tr("%1 %2 = %3").arg(run.label, name).arg(values.front(), 0, 'g', 4)
                                   : tr("%1 %2").arg(run.label, name));
            QPen pen(runColor(r), 1.2, style);
            line->setPen(pen);
            line->setData(steps, values, true);
        };
        threshold(sgd, Qt::DashLine, tr("2/lr"));
        // Only meaningful for heavy-ball momentum; equal to 2/lr without momentum.
        if (heavyBall != sgd) threshold(heavyBall, Qt::DashDotLine, tr("(2+2μ)/lr"));
    }
    showLegendWithCurves(curvature_);
    showEmptyHint(curvature_, curvature_->graphCount() == 0,
                  tr("No curvature recorded.\nSet \u201c\u03bb_max every N steps\u201d above, then Start."));
    curvature_->rescaleAxes();
    curvature_->yAxis->scaleRange(1.1);
    curvature_->replot();
}

void DiagnosticsDock::redrawSpectrum() {
    spectrum_->clearGraphs();
    for (int r = 0; r < runCount(); ++r) {
        const std::vector<double>& eigenvalues = runs_[static_cast<std::size_t>(r)].spectrum;
        if (eigenvalues.empty()) continue;
        QVector<double> index, values;
        for (std::size_t i = 0; i < eigenvalues.size(); ++i) {
            index << static_cast<double>(i);
            values << eigenvalues[i];
        }
        QCPGraph* graph = spectrum_->addGraph();
        graph->setName(runs_[static_cast<std::size_t>(r)].label);
        graph->setPen(QPen(runColor(r), 1.2));
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 4));
        graph->setData(index, values, true);
    }
    showLegendWithCurves(spectrum_);
    showEmptyHint(
        spectrum_, spectrum_->graphCount() == 0,
        tr("No Hessian spectrum.\nTick \u201cspectrum at the end\u201d on the Curvature tab, then Start\n(small networks)."));
    spectrum_->rescaleAxes();
    spectrum_->yAxis->scaleRange(1.1);
    spectrum_->replot();
}

void DiagnosticsDock::redrawAll() {
    redrawCurves();
    redrawStrip();
    redrawCurvature();
    redrawSpectrum();
}

std::vector<std::string> loadFolderDiagnostics(const RunFolder& folder, DiagnosticsDock& dock) {
    std::vector<std::string> problems;
    for (std::size_t r = 0; r < folder.runs.size(); ++r) {
        const RunRecord& run = folder.runs[r];
        const QDir directory(run.directory);
        const int index = static_cast<int>(r);
        try {
            const QString diagnostics = directory.filePath(runfolder::kDiagnostics);
            if (QFile::exists(diagnostics)) dock.addRecords(index, readDiagnosticsFile(diagnostics));
            const QString curvature = directory.filePath(runfolder::kCurvature);
            if (QFile::exists(curvature)) dock.setCurvature(index, readCurvatureFile(curvature));
            const QString spectrum = directory.filePath(runfolder::kHessianSpectrum);
            if (QFile::exists(spectrum)) dock.setSpectrum(index, readSpectrumFile(spectrum));
        } catch (const std::exception& error) {
            problems.push_back(run.spec.label + ": " + error.what());
        }
    }
    return problems;
}

bool DiagnosticsDock::hasRecords() const {
    return std::any_of(runs_.begin(), runs_.end(), [](const RunTrace& run) { return !run.records.empty(); });
}

bool DiagnosticsDock::hasCurvature() const {
    return std::any_of(runs_.begin(), runs_.end(), [](const RunTrace& run) { return !run.curvature.empty(); });
}

bool DiagnosticsDock::hasSpectrum() const {
    return std::any_of(runs_.begin(), runs_.end(), [](const RunTrace& run) { return !run.spectrum.empty(); });
}

}  // namespace ml
