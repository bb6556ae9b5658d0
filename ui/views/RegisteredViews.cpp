// The shipped views' registrations (views/ViewRegistry.h): each view's dock, its factory, what it
// does when a comparison starts over or a run folder opens, and its figures with the reason when
// it has nothing to show.
#include "model/RunComparison.h"
#include "session/SnapshotDiagnostics.h"
#include "views/ConvergencePlot.h"
#include "views/DiagnosticsDock.h"
#include "views/FeatureMapView.h"
#include "views/LandscapeView.h"
#include "views/LayerHeatmapView.h"
#include "views/NetworkDiagramView.h"
#include "views/NeuronInspector.h"
#include "views/RunHistoryPanel.h"
#include "views/SummaryPanel.h"
#include "views/UpdateExplainer.h"
#include "views/ViewRegistry.h"

#include <QCoreApplication>
#include <QEventLoop>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>

namespace ml {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("ml::ViewRegistry", text); }

// The common part of a registered view (each NAMEEntry below): its widget (owned by its Qt parent) and the shared objects.
template <typename Widget>
class ViewOf : public View {
public:
    ViewOf(Widget* widget, const ViewContext& context) : widget_(widget), context_(context) {}
    QWidget* widget() const override { return widget_; }

protected:
    Widget* widget_;
    ViewContext context_;
};

class ConvergenceEntry : public ViewOf<ConvergencePlot> {
public:
    explicit ConvergenceEntry(const ViewContext& context) : ViewOf(new ConvergencePlot, context) {
        widget_->setHistory(&context.comparison->history());
        QObject::connect(context.comparison, &RunComparison::changed, widget_, &ConvergencePlot::refresh);
        // The scrubber's step, marked on the plot (live: no mark).
        QObject::connect(context.selection, &RunSelection::stepChanged, widget_,
                         [plot = widget_, selection = context.selection] { plot->setMarkedStep(selection->step()); });
    }
    std::vector<ViewFigure> figures() const override {
        return {{"convergence", tr("Convergence plot"), widget_->plot(), {}, noRunsReason(context_)}};
    }
};

// A run folder without saved snapshots keeps the final weights only: show them, coloured by weight.
template <typename Panel>
void weightsOnlyByWeight(Panel* panel, bool anySnapshotSaved) {
    if (!anySnapshotSaved) panel->setQuantity(Quantity::Weight);
}

class DiagramEntry : public ViewOf<NetworkDiagramPanel> {
public:
    explicit DiagramEntry(const ViewContext& context) : ViewOf(new NetworkDiagramPanel(context.selection), context) {}
    void startOver(const Experiment& next, bool sameNetwork) override {
        if (!sameNetwork) widget_->setSelectedNeuron(-1, -1);
        widget_->setExperiment(next);  // names a conv network's pooling layers; the neuron functions' data
    }
    std::vector<std::string> openFolder(const RunFolder&, bool anySnapshotSaved) override {
        weightsOnlyByWeight(widget_, anySnapshotSaved);
        return {};
    }
    std::vector<ViewFigure> figures() const override {
        NetworkDiagramPanel* diagram = widget_;
        auto paint = [diagram](QPainter& painter, QSize size) {
            // The selection ring marks the inspected neuron on screen only.
            const int layer = diagram->selectedLayer(), neuron = diagram->selectedNeuron();
            diagram->setSelectedNeuron(-1, -1);
            diagram->renderAll(painter, size);
            diagram->setSelectedNeuron(layer, neuron);
        };
        return {{"network-diagram", tr("Network diagram"), nullptr, paint, noSnapshotReason(context_)}};
    }
};

class SummaryEntry : public ViewOf<SummaryPanel> {
public:
    explicit SummaryEntry(const ViewContext& context)
        : ViewOf(new SummaryPanel(context.comparison->summary()), context) {}
};

class InspectorEntry : public ViewOf<NeuronInspector> {
public:
    explicit InspectorEntry(const ViewContext& context) : ViewOf(new NeuronInspector(context.selection), context) {}
    void startOver(const Experiment& next, bool sameNetwork) override {
        if (!sameNetwork) widget_->setNeuron(-1, -1);
        widget_->setExperiment(next);  // the feature maps' network and test data
        const auto& layers = next.network.layers;
        hasConv_ = std::any_of(layers.begin(), layers.end(),
                               [](const auto& layer) { return layer.kind == LayerToken::Kind::Conv; });
    }
    // The first neuron (a conv layer's first channel) of the first layer, as a first click would.
    void chooseForExport() override {
        if (widget_->layer() < 0) widget_->setNeuron(0, 0);
    }
    std::vector<ViewFigure> figures() const override {
        widget_->featureMaps()->refresh();  // drawn only while its tab is on screen
        const QString noSnapshot = noSnapshotReason(context_);
        const QString noNeuron = !noSnapshot.isEmpty()  ? noSnapshot
                                 : widget_->layer() < 0 ? tr("no neuron chosen (click one in the network diagram)")
                                                        : QString();
        // The feature maps say in their message why they show nothing ("Click a channel of a conv layer.").
        const QString noChannel = !hasConv_             ? tr("the network has no conv layer")
                                  : !noNeuron.isEmpty() ? noNeuron
                                                        : widget_->featureMaps()->message();
        return {{"neuron-inspector", tr("Neuron inspector"), widget_->plot(), {}, noNeuron},
                {"feature-maps", tr("Neuron inspector: feature maps"), widget_->featureMaps()->plot(), {}, noChannel}};
    }

private:
    bool hasConv_ = false;
};

class HeatmapEntry : public ViewOf<LayerHeatmapPanel> {
public:
    explicit HeatmapEntry(const ViewContext& context) : ViewOf(new LayerHeatmapPanel(context.selection), context) {}
    std::vector<std::string> openFolder(const RunFolder&, bool anySnapshotSaved) override {
        weightsOnlyByWeight(widget_, anySnapshotSaved);
        return {};
    }
    std::vector<ViewFigure> figures() const override {
        return {{"layer-heatmap", tr("Layer heat-map"), widget_->view()->plot(), {}, noSnapshotReason(context_)}};
    }
};

class ExplainerEntry : public ViewOf<UpdateExplainer> {
public:
    explicit ExplainerEntry(const ViewContext& context) : ViewOf(new UpdateExplainer(context.selection), context) {}
    void startOver(const Experiment&, bool sameNetwork) override {
        if (!sameNetwork) widget_->setConnection(-1, -1, -1);
    }
    std::vector<std::string> openFolder(const RunFolder& folder, bool) override {
        std::vector<RunSpec> specs;
        for (const RunRecord& run : folder.runs) specs.push_back(run.spec);
        widget_->setRunSpecs(specs);
        return {};
    }
    // The first connection into the first neuron, as a first click would.
    void chooseForExport() override {
        if (widget_->explanations().empty()) widget_->setConnection(0, 0, 0);
    }
    std::vector<ViewFigure> figures() const override {
        const QString noSnapshot = noSnapshotReason(context_);
        const QString noConnection =
            !noSnapshot.isEmpty()               ? noSnapshot
            : !widget_->hasConnection()         ? tr("no connection chosen (click one in the network diagram)")
            : !widget_->explanations().empty()  ? QString()
            : !widget_->unexplained().isEmpty() ? tr("not explained: %1").arg(widget_->unexplained())
                                                : tr("no snapshot of the shown runs at this step");
        return {{"update-explainer", tr("Update explainer"), widget_->plot(), {}, noConnection}};
    }
};

class DiagnosticsEntry : public ViewOf<DiagnosticsDock> {
public:
    explicit DiagnosticsEntry(const ViewContext& context) : ViewOf(new DiagnosticsDock, context) {}
    std::vector<std::string> openFolder(const RunFolder& folder, bool) override {
        QStringList labels;
        for (const RunRecord& run : folder.runs) labels << QString::fromStdString(run.spec.label);
        widget_->begin(labels);
        // The controls show what the folder's runs recorded (live every N steps 0: none).
        widget_->showInstruments(folder.experiment);
        widget_->setLiveEvery(folder.experiment.diagnosticsEvery);
        derived_ = std::make_unique<SnapshotDiagnostics>(folder);
        return loadFolderDiagnostics(folder, *widget_);
    }
    // A run that wrote no diagnostics.csv (a recorded PyTorch run) gets them from its snapshots.
    void folderSnapshotsRead(const std::vector<SharedSnapshot>& batch) override {
        if (!derived_) return;
        // One hand-over per run and batch: each refreshes the dock's layer choices.
        std::map<int, std::vector<DiagnosticsRecord>> byRun;
        for (const SharedSnapshot& snapshot : batch)
            if (std::optional<DiagnosticsRecord> record = derived_->recordOf(*snapshot))
                byRun[snapshot->run].push_back(std::move(*record));
        for (const auto& [run, records] : byRun) widget_->addRecords(run, records);
    }
    std::vector<ViewFigure> figures() const override {
        const QString instruments =
            tr("set \u201cLive every N steps\u201d in the Diagnostics dock before Start, or open a run "
               "folder trained with --diagnostics-every");
        const QString noRecords =
            widget_->hasRecords() ? QString() : tr("no diagnostics recorded: %1").arg(instruments);
        const QString noCurvature =
            widget_->hasCurvature()
                ? QString()
                : tr("no curvature recorded (set \u201c\u03bb_max every N steps\u201d before Start)");
        const QString noSpectrum =
            widget_->hasSpectrum()
                ? QString()
                : tr("no Hessian spectrum computed (tick \u201cspectrum at the end\u201d before Start)");
        return {
            {"diagnostics-curves", tr("Diagnostics: per-layer curves"), widget_->curvesPlot(), {}, noRecords},
            {"diagnostics-neurons", tr("Diagnostics: per-neuron strip"), widget_->stripPlot(), {}, noRecords},
            {"curvature",
             tr("Diagnostics: curvature and stability thresholds"),
             widget_->curvaturePlot(),
             {},
             noCurvature},
            {"hessian-spectrum",
             tr("Diagnostics: Hessian spectrum at the final weights"),
             widget_->spectrumPlot(),
             {},
             noSpectrum},
        };
    }

private:
    std::unique_ptr<SnapshotDiagnostics> derived_;  // the open folder's runs without diagnostics.csv
};

class HistoryEntry : public ViewOf<RunHistoryPanel> {
public:
    explicit HistoryEntry(const ViewContext& context) : ViewOf(new RunHistoryPanel(context.history), context) {}
};

class LandscapeEntry : public ViewOf<LandscapeView> {
public:
    explicit LandscapeEntry(const ViewContext& context) : ViewOf(new LandscapeView(context.selection), context) {}
    void startOver(const Experiment& next, bool) override {
        widget_->setExperiment(next);  // the network and data its losses are taken with
    }
    // What Compute does, waited for (the computation runs on its worker thread).
    void computeOnRequest() override {
        QEventLoop wait;
        QObject::connect(widget_, &LandscapeView::computed, &wait, &QEventLoop::quit);
        widget_->compute();
        if (widget_->busy()) wait.exec();
    }
    std::vector<ViewFigure> figures() const override {
        const QString noLandscape =
            widget_->hasResult() ? QString()
                                 : tr("not computed (View \u2192 Loss landscape, then Compute; or export --compute)");
        return {{"loss-landscape", tr("Loss landscape"), widget_->landscapePlot()->plot(), {}, noLandscape},
                {"loss-slice", tr("Loss landscape: slice between two runs"), widget_->slicePlot(), {}, noLandscape}};
    }
};

template <typename Made>
std::function<std::unique_ptr<View>(const ViewContext&)> factory() {
    return [](const ViewContext& context) { return std::make_unique<Made>(context); };
}

using Join = DockPlace::Join;

}  // namespace

ViewRegistration convergenceView() {
    return {"convergence", tr("Convergence plot"), std::nullopt, factory<ConvergenceEntry>()};
}

ViewRegistration networkDiagramView() {
    return {"network-diagram", tr("Network diagram"),
            DockPlace{.objectName = "diagramDock", .area = Qt::RightDockWidgetArea}, factory<DiagramEntry>()};
}

// Bottom row: the summary beside the neuron inspector and the (wide) layer heat-map as tabs.
ViewRegistration summaryView() {
    return {
        "summary", tr("Summary"),
        DockPlace{.objectName = "summaryDock", .area = Qt::BottomDockWidgetArea, .join = Join::Alone, .raised = true},
        factory<SummaryEntry>()};
}

ViewRegistration neuronInspectorView() {
    return {"neuron-inspector", tr("Neuron inspector"),
            DockPlace{.objectName = "inspectorDock",
                      .area = Qt::BottomDockWidgetArea,
                      .join = Join::SplitRight,
                      .beside = "summary",
                      .raised = true},
            factory<InspectorEntry>()};
}

ViewRegistration layerHeatmapView() {
    return {"layer-heatmap", tr("Layer heat-map"),
            DockPlace{.objectName = "heatmapDock",
                      .area = Qt::BottomDockWidgetArea,
                      .join = Join::Tab,
                      .beside = "neuron-inspector"},
            factory<HeatmapEntry>()};
}

ViewRegistration updateExplainerView() {
    return {"update-explainer", tr("Update explainer"),
            DockPlace{.objectName = "explainerDock",
                      .area = Qt::BottomDockWidgetArea,
                      .join = Join::Tab,
                      .beside = "neuron-inspector"},
            factory<ExplainerEntry>()};
}

ViewRegistration diagnosticsView() {
    return {"diagnostics", tr("Diagnostics"),
            DockPlace{.objectName = "diagnosticsDock",
                      .area = Qt::BottomDockWidgetArea,
                      .join = Join::Tab,
                      .beside = "layer-heatmap"},
            factory<DiagnosticsEntry>()};
}

// The run history shares the summary's place (a tab beside it).
ViewRegistration runHistoryView() {
    return {"run-history", tr("Run history"),
            DockPlace{
                .objectName = "historyDock", .area = Qt::BottomDockWidgetArea, .join = Join::Tab, .beside = "summary"},
            factory<HistoryEntry>()};
}

// The loss landscape is computed on request: hidden until opened from the View menu. Opened the
// first time, it becomes a tab in the diagram's place (a square plot needs that room).
ViewRegistration lossLandscapeView() {
    return {"loss-landscape", tr("Loss landscape"),
            DockPlace{.objectName = "landscapeDock",
                      .area = Qt::RightDockWidgetArea,
                      .join = Join::Tab,
                      .beside = "network-diagram",
                      .hidden = true},
            factory<LandscapeEntry>()};
}

}  // namespace ml
