#pragma once
// The app's views, each registered once: its name, where its dock goes, a factory given the shared
// objects (RunSelection, RunComparison, ComparisonHistory) and its figures, each drawn from the data
// whether or not the view was ever on screen. MainWindow builds its central widget and docks from the
// registry; the Export menu, the report, `momentum-lab-cli export` (headless, ViewSet on a hidden
// host) and the GUI robot all iterate it.
//
// A new view: its file (the widget, and at its end `ViewRegistration NAMEView()`, as the shipped
// views' in RegisteredViews.cpp) plus its name on one line of MOMENTUM_LAB_VIEWS in ViewRegistry.cpp.
//
// Public API
//   ViewContext                 the shared objects every factory is given
//   ViewFigure                  one figure of a view: a plot (also pgfplots) or a painter, and why
//                               it is left out when the view has nothing to show
//   View                        one made view: its widget and the hooks every front end calls
//   ViewRegistration            name, dock title and place, factory
//   viewRegistry()              every registration, in the order of the menus and the report
//   ViewSet                     one of each registered view, made for one window or one export
//   Reasons (noRunsReason, ...) the one-line reasons shared by several views
#include "experiment/Experiment.h"
#include "runfolder/RunFolderReader.h"

#include <QString>
#include <QStringList>
#include <QWidget>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

class QCustomPlot;
class QPainter;

namespace ml {

class ComparisonHistory;
class RunComparison;
class RunSelection;

struct ViewContext {
    RunSelection* selection = nullptr;
    RunComparison* comparison = nullptr;
    ComparisonHistory* history = nullptr;
};

struct ViewFigure {
    QString name;                                 // file stem: "network-diagram"
    QString caption;                              // "Network diagram"
    QCustomPlot* plot = nullptr;                  // a plot: PNG/PDF/SVG and pgfplots
    std::function<void(QPainter&, QSize)> paint;  // else a view that paints itself at any size
    QString leftOutBecause;                       // empty: the view has something to show
};

class View {
public:
    virtual ~View() = default;
    virtual QWidget* widget() const = 0;
    // Everything on screen now belongs to `next` (its network and data); `sameNetwork`: the previous
    // comparison had the same network, so a chosen neuron stays chosen (to compare).
    virtual void startOver(const Experiment& next, bool sameNetwork) {
        (void)next;
        (void)sameNetwork;
    }
    // A run folder is shown (before its snapshots arrive): what the view reads or sets for it.
    // Returns "LABEL: PROBLEM" for each of its files that could not be read.
    virtual std::vector<std::string> openFolder(const RunFolder& folder, bool anySnapshotSaved) {
        (void)folder;
        (void)anySnapshotSaved;
        return {};
    }
    // The folder's saved snapshots as they are read (after openFolder), batch by batch; each is
    // also delivered to the shared RunSelection.
    virtual void folderSnapshotsRead(const std::vector<SharedSnapshot>& batch) { (void)batch; }
    // A headless export: what the view shows where the app waits for a click (a neuron, a connection).
    virtual void chooseForExport() {}
    // What the app computes only when asked (the loss landscape's Compute), done now; returns when done.
    virtual void computeOnRequest() {}
    // The view's figures, each with its reason when left out (empty: none, e.g. a table).
    virtual std::vector<ViewFigure> figures() const { return {}; }
};

struct DockPlace {
    enum class Join { Alone, Tab, SplitRight };
    QString objectName{};  // saveState() key: "diagramDock"
    Qt::DockWidgetArea area = Qt::BottomDockWidgetArea;
    Join join = Join::Alone;
    QString beside{};     // the registered view whose dock this one joins (Tab, SplitRight)
    bool hidden = false;  // hidden until opened from the View menu; then a tab of `beside`'s dock
    bool raised = false;  // in front of its tabs once every dock is built
};

struct ViewRegistration {
    QString name;                   // "neuron-inspector"
    QString title;                  // the dock's title: "Neuron inspector"
    std::optional<DockPlace> dock;  // none: the window's central widget
    std::function<std::unique_ptr<View>(const ViewContext&)> make;
};

const std::vector<ViewRegistration>& viewRegistry();

// One of each registered view (registry order), their widgets children of `owner` until placed
// (a dock, the central widget) and deleted with it; the ViewSet must not outlive `owner`.
class ViewSet {
public:
    ViewSet(const ViewContext& context, QWidget* owner);
    ~ViewSet();

    std::size_t size() const { return views_.size(); }
    const ViewRegistration& registration(std::size_t index) const { return viewRegistry()[index]; }
    View& view(std::size_t index) const { return *views_[index]; }
    QWidget* widget(const QString& name) const;
    // The first view widget of type W (MainWindow wires the views that talk to each other).
    template <typename W>
    W* find() const {
        for (const auto& view : views_)
            if (auto* widget = qobject_cast<W*>(view->widget())) return widget;
        return nullptr;
    }

    void startOver(const Experiment& next, bool sameNetwork);
    // The folder's runs into the selection (begin, every view's openFolder, the snapshots streamed
    // in): "LABEL: PROBLEM" for each file that could not be read. The comparison shows the folder
    // already (RunComparison::showFolder).
    std::vector<std::string> showFolder(const RunFolder& folder);
    // Snapshots read from the shown folder (by showFolder, or later while following it): to every
    // view's folderSnapshotsRead, then into the selection.
    void deliverFolderSnapshots(const std::vector<SharedSnapshot>& batch);
    void chooseForExport();
    void computeOnRequest();
    // Every view's figures, registry order, each view's deferred redraws brought up to date first.
    std::vector<ViewFigure> figures() const;

private:
    ViewContext context_;
    std::vector<std::unique_ptr<View>> views_;
};

// The reasons several views share (one wording for the menu, the report and the CLI).
QString noRunsReason(const ViewContext& context);      // "no run yet" or empty
QString noSnapshotReason(const ViewContext& context);  // no run, or no snapshot of the runs shown

}  // namespace ml
