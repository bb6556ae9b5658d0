#pragma once
// The desktop app's window. It only lays the views out (central convergence plot; docks for the
// experiment, summary, network diagram, layer heat-map, neuron inspector and loss landscape), builds the menus
// and wires signals between the TrainingSession, the RunComparison and the views. Snapshots reach
// the views through one RunSelection (model/RunSelection.h), which also holds every run's
// recorded snapshots; past comparisons are kept in a ComparisonHistory.
#include "data/Dataset.h"
#include "export/ReportWriter.h"
#include "experiment/Experiment.h"
#include "session/ComparisonController.h"

#include <QMainWindow>

#include <memory>
#include <optional>
#include <vector>

class QDockWidget;
class QLabel;
class QModelIndex;
class QScrollArea;

namespace ml {

class ComparisonHistory;
class ConvergencePlot;
class DiagnosticsDock;
struct RunFolder;
class RunFolderFollower;
class RunHistoryPanel;
class RunSelection;
class ExperimentPanel;
class ExportController;
struct StudyWindowHooks;
class LandscapeView;
class LayerHeatmapPanel;
class NetworkDiagramPanel;
class NeuronInspector;
class ProgressIndicator;
class RunComparison;
class SpeedControl;
class SummaryPanel;
class TrainingActions;
class TrainingSession;
class UpdateExplainer;
class ViewSet;
struct TrainingPlan;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    TrainingSession* session() const { return session_; }
    RunComparison* comparison() const { return comparison_; }
    ExperimentPanel* experimentPanel() const { return experiment_; }
    ConvergencePlot* convergencePlot() const { return plot_; }
    DiagnosticsDock* diagnosticsDock() const { return diagnostics_; }
    TrainingActions* trainingActions() const { return actions_; }
    RunSelection* runSelection() const { return selection_; }
    UpdateExplainer* updateExplainer() const { return explainer_; }
    LandscapeView* landscapeView() const { return landscape_; }
    ComparisonHistory* runHistory() const { return history_; }
    NeuronInspector* neuronInspector() const { return inspector_; }
    // Every figure of the Export menu and the report: the registered views' (views/ViewRegistry.h).
    std::vector<NamedFigure> figures() const;
    // The run history's record `number` shown again / overlaid (false: unknown, or training runs).
    bool showKept(int number);
    bool overlayKept(int number);

    // "Fork here" (twin runs): run `run` of the training on screen, paused or finished, continues
    // from its full state at its current step as `branches` until `untilStep`, in lockstep, as a
    // new comparison with the source comparison overlaid. A paused training is stopped first (it
    // is kept in the run history). False, with the reason in `refusal`, when it cannot be forked
    // (running, stopping, nothing trained here, diverged, ...).
    bool forkRun(int run, const std::vector<RunSpec>& branches, long untilStep, QString* refusal = nullptr);
    // The same with the branches chosen in a dialog (ForkDialog); run -1: the run selected in the
    // summary table, else the first run shown.
    void forkHere(int run = -1);

    // follow: keeps showing what another process appends to the folder (session/RunFolderFollower.h).
    void openRunFolder(const QString& directory, bool follow = false);
    bool isFollowing() const;
    void openStudy(const QString& directory);  // a study folder, in its own window (ui/study/StudyWindow.h)

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void fitExperimentWidth();
    void exportFigure(const QString& name);  // one of figures(), through the export dialog
    StudyWindowHooks studyHooks();           // figure export and run folders for study windows
    QDockWidget* addDock(const QString& title, const QString& objectName, QWidget* content, Qt::DockWidgetArea area);
    void buildDocks();
    void sizeDocks();
    void fitSummaryWidth();
    bool docksSized_ = false;  // by a restored layout or on the first show
    void buildToolBar();
    void keepCurrent();
    void buildMenus();
    void wireSession();
    void wireViews();

    QString forkRefusal(int run) const;
    int summaryRun(const QModelIndex& row) const;  // the run of a summary-table row (it sorts)
    void launchFork(const PendingFork& fork);
    ComparisonController lifecycle_;  // pending starts and forks, what is on screen, the state line
    void startTraining();
    void stepTraining();
    void resetTraining();
    void planArrived(const TrainingPlan& plan);
    void startOver(const Experiment& next);
    void experimentEdited();
    bool showingResults() const;
    void chooseRunFolder(bool follow = false);
    void followRunFolder(const RunFolder& folder);
    void stopFollowing(const QString& message = {});
    void openExperimentFile();
    void updateTitle();
    void showStateMessage();
    bool experimentFromPanel(Experiment& experiment, bool quiet = false);

    TrainingSession* session_;
    RunComparison* comparison_;
    RunSelection* selection_;         // what every matrix view shows (runs, mode, step, snapshots)
    ComparisonHistory* history_;      // the comparisons kept in this session
    std::unique_ptr<ViewSet> views_;  // every registered view; their widgets are the window's
    RunHistoryPanel* historyPanel_ = nullptr;
    ImageShape imageShape_;  // of the comparison on screen
    Experiment training_;    // the experiment of the current / last training

    ExperimentPanel* experiment_ = nullptr;
    QScrollArea* experimentScroll_ = nullptr;  // the experiment dock's content
    ConvergencePlot* plot_ = nullptr;
    SummaryPanel* summary_ = nullptr;
    NetworkDiagramPanel* diagram_ = nullptr;
    LayerHeatmapPanel* heatmap_ = nullptr;
    NeuronInspector* inspector_ = nullptr;
    LandscapeView* landscape_ = nullptr;
    DiagnosticsDock* diagnostics_ = nullptr;
    QDockWidget* inspectorDock_ = nullptr;
    UpdateExplainer* explainer_ = nullptr;
    QDockWidget* explainerDock_ = nullptr;
    QDockWidget* diagramDock_ = nullptr;
    QDockWidget* summaryDock_ = nullptr;
    TrainingActions* actions_ = nullptr;
    SpeedControl* speed_ = nullptr;
    ProgressIndicator* progress_ = nullptr;
    QLabel* stateLabel_ = nullptr;
    ExportController* exporter_ = nullptr;
    QString folderSource_;  // shown in the title when a run folder is open
    RunFolderFollower* follower_ = nullptr;  // while a folder is followed
    QAction* stopFollowing_ = nullptr;
    QLabel* followLabel_ = nullptr;  // "Following DIR"
};

}  // namespace ml
