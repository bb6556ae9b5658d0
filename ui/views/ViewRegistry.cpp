#include "views/ViewRegistry.h"

#include "model/RunComparison.h"
#include "session/FolderSnapshots.h"
#include "common/RedrawWhenShown.h"
#include "model/RunSelection.h"

#include <QCoreApplication>

#include <algorithm>

namespace ml {

// The registered views, one line each, in the order of the View and Export menus and the report.
// Each NAME is a function `ViewRegistration NAME()` defined in its view's file (the shipped
// views' in RegisteredViews.cpp).
#define MOMENTUM_LAB_VIEWS(VIEW) \
    VIEW(convergenceView)        \
    VIEW(networkDiagramView)     \
    VIEW(outputView)             \
    VIEW(summaryView)            \
    VIEW(neuronInspectorView)    \
    VIEW(layerHeatmapView)       \
    VIEW(updateExplainerView)    \
    VIEW(diagnosticsView)        \
    VIEW(runHistoryView)         \
    VIEW(lossLandscapeView)

#define MOMENTUM_LAB_DECLARE_VIEW(name) ViewRegistration name();
MOMENTUM_LAB_VIEWS(MOMENTUM_LAB_DECLARE_VIEW)
#undef MOMENTUM_LAB_DECLARE_VIEW

const std::vector<ViewRegistration>& viewRegistry() {
#define MOMENTUM_LAB_LIST_VIEW(name) name(),
    static const std::vector<ViewRegistration> views{MOMENTUM_LAB_VIEWS(MOMENTUM_LAB_LIST_VIEW)};
#undef MOMENTUM_LAB_LIST_VIEW
    return views;
}

ViewSet::ViewSet(const ViewContext& context, QWidget* owner) : context_(context) {
    for (const ViewRegistration& registration : viewRegistry()) {
        views_.push_back(registration.make(context));
        views_.back()->widget()->setParent(owner);
    }
    // A run keeps its colour for life: the matrix views follow the comparison's looks.
    QObject::connect(context.comparison, &RunComparison::changed, context.selection,
                     [context] { context.selection->setLooks(context.comparison->looks()); });
}

ViewSet::~ViewSet() = default;

QWidget* ViewSet::widget(const QString& name) const {
    for (std::size_t i = 0; i < views_.size(); ++i)
        if (registration(i).name == name) return views_[i]->widget();
    return nullptr;
}

void ViewSet::startOver(const Experiment& next, bool sameNetwork) {
    for (const auto& view : views_) view->startOver(next, sameNetwork);
}

std::vector<std::string> ViewSet::showFolder(const RunFolder& folder) {
    QStringList labels;
    for (const RunRecord& run : folder.runs) labels << QString::fromStdString(run.spec.label);
    // Without saved snapshots the folder keeps the final weights only (views show them by weight).
    const bool anySaved = std::any_of(folder.runs.begin(), folder.runs.end(),
                                      [](const RunRecord& run) { return !run.snapshotsFile.isEmpty(); });
    std::vector<std::string> problems;
    for (const auto& view : views_)
        for (std::string& problem : view->openFolder(folder, anySaved)) problems.push_back(std::move(problem));
    context_.selection->begin(labels);
    std::vector<std::string> snapshotProblems = ml::deliverFolderSnapshots(
        folder, [this](const std::vector<SharedSnapshot>& batch) { deliverFolderSnapshots(batch); });
    problems.insert(problems.begin(), snapshotProblems.begin(), snapshotProblems.end());
    return problems;
}

void ViewSet::deliverFolderSnapshots(const std::vector<SharedSnapshot>& batch) {
    for (const auto& view : views_) view->folderSnapshotsRead(batch);
    context_.selection->deliver(batch);
}

void ViewSet::chooseForExport() {
    for (const auto& view : views_) view->chooseForExport();
    QCoreApplication::processEvents();  // what the choices queued (a redraw on the render queue)
}

void ViewSet::computeOnRequest() {
    for (const auto& view : views_) view->computeOnRequest();
}

std::vector<ViewFigure> ViewSet::figures() const {
    std::vector<ViewFigure> all;
    for (const auto& view : views_) {
        // A view tabbed behind another, or in a closed dock, has deferred its redraws: a figure is
        // drawn from the data whether or not its view was ever on screen.
        RedrawWhenShown::flushAll(view->widget());
        for (ViewFigure& figure : view->figures()) all.push_back(std::move(figure));
    }
    return all;
}

QString noRunsReason(const ViewContext& context) {
    return context.comparison->history().runCount() == 0 ? QCoreApplication::translate("ml::ViewRegistry", "no run yet")
                                                         : QString();
}

QString noSnapshotReason(const ViewContext& context) {
    if (QString noRuns = noRunsReason(context); !noRuns.isEmpty()) return noRuns;
    const std::vector<RunSelection::Panel> panels = context.selection->panels();
    const bool anySnapshot =
        std::any_of(panels.begin(), panels.end(), [](const RunSelection::Panel& p) { return p.ready(); });
    return anySnapshot ? QString()
                       : QCoreApplication::translate("ml::ViewRegistry", "no snapshot recorded for the runs shown");
}

}  // namespace ml
