#include "MainWindow.h"

#include "AppSettings.h"
#include "experiment/ExperimentPanel.h"
#include "export/ExportController.h"
#include "export/ViewFigures.h"
#include "study/StudyWindow.h"
#include "InputError.h"
#include "model/ComparisonHistory.h"
#include "model/RunSummaryModel.h"
#include "model/RunComparison.h"
#include "experiment/ForkDialog.h"
#include "views/DiagnosticsDock.h"
#include "session/ProgressIndicator.h"
#include "session/RunFolderFollower.h"
#include "session/SpeedControl.h"
#include "session/TrainingActions.h"
#include "session/TrainingSession.h"
#include "experiment/ExperimentJson.h"
#include "train/Fork.h"
#include "experiment/Presets.h"
#include "runfolder/RunFolderReader.h"
#include "views/ComparisonBar.h"
#include "views/ConvergencePlot.h"
#include "views/LandscapeView.h"
#include "views/LayerHeatmapView.h"
#include "views/NetworkDiagramView.h"
#include "views/NeuronInspector.h"
#include "views/RunHistoryPanel.h"
#include "model/RunSelection.h"
#include "views/SummaryPanel.h"
#include "views/UnelidedDockTabs.h"
#include "views/UpdateExplainer.h"
#include "views/ViewRegistry.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QShowEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QTimer>
#include <QLabel>
#include <QMenuBar>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QMessageBox>
#include <QScrollArea>
#include <QScrollBar>
#include <QScreen>
#include <QStatusBar>
#include <QToolBar>
#include <QToolButton>
#include <qcustomplot.h>

#include <algorithm>
#include <map>

namespace ml {

namespace {

constexpr int kRoomyScreenHeight = 760;  // 1366 x 768 keeps the summary beside the inspector

// Whether `a` and `b` train the same (a new name changes nothing that the results show).
bool sameExceptName(Experiment a, const Experiment& b) {
    a.name = b.name;
    return toJson(a) == toJson(b);
}

QStringList labelsOf(const std::vector<std::string>& labels) {
    QStringList list;
    for (const std::string& label : labels) list << QString::fromStdString(label);
    return list;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), session_(new TrainingSession(this)), comparison_(new RunComparison(this)),
      selection_(new RunSelection(this)), history_(new ComparisonHistory(this)),
      views_(std::make_unique<ViewSet>(ViewContext{selection_, comparison_, history_}, this)) {
    setWindowIcon(QIcon(":/icons/momentum-lab.svg"));
    setDockNestingEnabled(true);
    new UnelidedDockTabs(this);
    buildDocks();
    actions_ = new TrainingActions(this);
    exporter_ = new ExportController(
        this, *comparison_, [this] { return figures(); }, [this] { return toJson(experiment_->experiment()); });
    buildToolBar();
    buildMenus();
    wireSession();
    wireViews();

    experiment_->setExperiment(AppSettings::lastExperiment().value_or(defaultExperiment()));
    // Large enough for every dock, but never larger than the screen (less a title bar).
    resize(QSize(1500, 950).boundedTo(screen()->availableGeometry().size() - QSize(0, 40)));
    restoreGeometry(AppSettings::geometry());
    docksSized_ = restoreState(AppSettings::windowState());
    updateTitle();
    showStateMessage();
}

namespace {

// The image shape of the experiment's data (none when it is not image data or cannot be loaded:
// then the inspector offers no "As image"). Loading takes about 0.1 s for MNIST.
ImageShape imageShapeOf(const Experiment& experiment) {
    try {
        return loadExperimentData(experiment).train->imageShape();
    } catch (const std::exception&) {
        return {};
    }
}

}  // namespace

std::vector<NamedFigure> MainWindow::figures() const { return namedFigures(views_->figures()); }

void MainWindow::exportFigure(const QString& name) {
    for (const NamedFigure& figure : figures())
        if (figure.name == name) return exporter_->exportFigure(figure);
}

MainWindow::~MainWindow() {
    delete session_;  // stops and joins the training thread before any view goes away
}

QDockWidget* MainWindow::addDock(const QString& title, const QString& objectName, QWidget* content,
                                 Qt::DockWidgetArea area) {
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(objectName);  // saveState() keys
    dock->setWidget(content);
    addDockWidget(area, dock);
    return dock;
}

void MainWindow::buildDocks() {
    experiment_ = new ExperimentPanel;
    auto* scroll = new QScrollArea;
    scroll->setWidget(experiment_);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    experimentScroll_ = scroll;
    experiment_->installEventFilter(this);  // its minimum width follows the run's form (fitExperimentWidth)
    scroll->verticalScrollBar()->installEventFilter(this);  // ... and the scroll bar, when there is one
    fitExperimentWidth();
    // The (long) experiment form takes the whole height on the left; the bottom row starts right of it.
    setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
    addDock(tr("Experiment"), "experimentDock", scroll, Qt::LeftDockWidgetArea);

    // The registered views (views/ViewRegistry.h): the central one, then each dock in its place.
    std::map<QString, QDockWidget*> docks;
    std::vector<QDockWidget*> raised;
    for (std::size_t i = 0; i < views_->size(); ++i) {
        const ViewRegistration& view = views_->registration(i);
        QWidget* widget = views_->view(i).widget();
        if (!view.dock) {
            setCentralWidget(widget);
            continue;
        }
        const DockPlace& place = *view.dock;
        QDockWidget* dock = addDock(view.title, place.objectName, widget, place.area);
        docks[view.name] = dock;
        QDockWidget* beside = place.beside.isEmpty() ? nullptr : docks.at(place.beside);
        if (place.hidden) {
            dock->hide();
            // Opened the first time, it becomes a tab in its neighbour's place.
            connect(dock->toggleViewAction(), &QAction::triggered, this, [this, dock, beside](bool shown) {
                if (!shown) return;
                if (beside && tabifiedDockWidgets(dock).isEmpty() && !beside->isHidden() && !beside->isFloating())
                    tabifyDockWidget(beside, dock);
                dock->raise();
            });
        } else if (place.join == DockPlace::Join::Tab) {
            tabifyDockWidget(beside, dock);
        } else if (place.join == DockPlace::Join::SplitRight) {
            splitDockWidget(beside, dock, Qt::Horizontal);
        }
        if (place.raised) raised.push_back(dock);
    }
    for (QDockWidget* dock : raised) dock->raise();
    // The views the window wires to each other and to the training.
    plot_ = views_->find<ConvergencePlot>();
    diagram_ = views_->find<NetworkDiagramPanel>();
    // The diagram's neuron functions stay as the user left them, from one session to the next.
    diagram_->setThumbnailsShown(AppSettings::diagramNeuronFunctions());
    connect(diagram_, &NetworkDiagramPanel::thumbnailsToggled, this,
            [](bool shown) { AppSettings::setDiagramNeuronFunctions(shown); });
    summary_ = views_->find<SummaryPanel>();
    inspector_ = views_->find<NeuronInspector>();
    heatmap_ = views_->find<LayerHeatmapPanel>();
    explainer_ = views_->find<UpdateExplainer>();
    diagnostics_ = views_->find<DiagnosticsDock>();
    historyPanel_ = views_->find<RunHistoryPanel>();
    landscape_ = views_->find<LandscapeView>();
    diagramDock_ = docks.at("network-diagram");
    summaryDock_ = docks.at("summary");
    inspectorDock_ = docks.at("neuron-inspector");
    explainerDock_ = docks.at("update-explainer");
}

// The experiment dock is never narrower than its form (a run's form may be wider than the last
// one's) and its scroll bar, which it has only when the form is taller than the screen: it never
// scrolls sideways, and the width it does not need goes to the plot and the summary.
void MainWindow::fitExperimentWidth() {
    const QScrollBar* bar = experimentScroll_->verticalScrollBar();
    experimentScroll_->setMinimumWidth(experiment_->minimumSizeHint().width() +
                                       (bar->isVisibleTo(experimentScroll_) ? bar->sizeHint().width() : 0));
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
    const bool formChanged = watched == experiment_ && event->type() == QEvent::LayoutRequest;
    const bool barChanged = watched == experimentScroll_->verticalScrollBar() &&
                            (event->type() == QEvent::Show || event->type() == QEvent::Hide);
    if (formChanged || barChanged) fitExperimentWidth();
    return QMainWindow::eventFilter(watched, event);
}

// The docks' first sizes, as shares of the window (a saved layout replaces them). On a screen
// lower than kRoomyScreenHeight (1280 x 720) the summary becomes a tab of the bottom row, so
// that the inspector and the table both get the full width.
// resizeDocks() before the first show has no effect (the dock layout has no geometry yet).
void MainWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    if (docksSized_) return;
    docksSized_ = true;
    sizeDocks();
}

void MainWindow::fitSummaryWidth() {
    // Only where the summary sits beside the inspector (on a low screen it is the inspector's tab).
    if (!isVisible() || summaryDock_->isFloating() || tabifiedDockWidgets(summaryDock_).contains(inspectorDock_))
        return;
    const int free = width() - findChild<QDockWidget*>("experimentDock")->width();
    const int wanted = std::min(summary_->sizeHint().width(), free * 3 / 5);
    if (summaryDock_->width() < wanted)
        resizeDocks({summaryDock_, inspectorDock_}, {wanted, free - wanted}, Qt::Horizontal);
}

void MainWindow::sizeDocks() {
    // The experiment form as narrow as it can be (it asks for more): the plot and the summary need the width.
    resizeDocks({findChild<QDockWidget*>("experimentDock")}, {experimentScroll_->minimumWidth()}, Qt::Horizontal);
    if (screen()->availableGeometry().height() < kRoomyScreenHeight) {
        tabifyDockWidget(inspectorDock_, summaryDock_);
        inspectorDock_->raise();
        return;
    }
    const int free = width() - findChild<QDockWidget*>("experimentDock")->width();
    // The summary as wide as its columns (between two and three fifths); the inspector the rest.
    const int summary = std::clamp(summary_->sizeHint().width(), free * 2 / 5, free * 3 / 5);
    resizeDocks({summaryDock_, inspectorDock_}, {summary, free - summary}, Qt::Horizontal);
    resizeDocks({summaryDock_}, {height() * 2 / 5}, Qt::Vertical);
    resizeDocks({diagramDock_}, {free * 2 / 5}, Qt::Horizontal);
}

void MainWindow::buildToolBar() {
    QToolBar* bar = addToolBar(tr("Training"));
    bar->setObjectName("trainingToolBar");
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->addActions(actions_->all());
    // Pause <-> Resume must not shift the toolbar: the button is as wide as the longer text.
    QWidget* pause = bar->widgetForAction(actions_->pause());
    int width = 0;
    for (const bool paused : {true, false}) {
        actions_->pause()->setText(TrainingActions::pauseText(paused));
        width = std::max(width, pause->sizeHint().width());
    }
    pause->setMinimumWidth(width);
    bar->addSeparator();
    speed_ = new SpeedControl(bar);
    bar->addWidget(speed_);
    // Second row: which runs the matrix views show, how, and at which step (one shared model).
    addToolBarBreak();
    QToolBar* compare = addToolBar(tr("Comparison"));
    compare->setObjectName("comparisonToolBar");
    compare->addWidget(new ComparisonBar(selection_, compare));

    stateLabel_ = new QLabel(this);
    stateLabel_->setObjectName("stateLabel");
    progress_ = new ProgressIndicator(this);
    statusBar()->addWidget(stateLabel_);
    statusBar()->addPermanentWidget(progress_);
    followLabel_ = new QLabel(this);
    followLabel_->setObjectName("followLabel");
    followLabel_->hide();
    statusBar()->addPermanentWidget(followLabel_);
    // A temporary message takes the state line's place, and gives it back when it ends.
    connect(statusBar(), &QStatusBar::messageChanged, stateLabel_,
            [this](const QString& message) { stateLabel_->setVisible(message.isEmpty()); });
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* openFolder = file->addAction(tr("Open run folder…"), this, &MainWindow::chooseRunFolder);
    openFolder->setShortcut(QKeySequence::Open);
    openFolder->setToolTip(tr("View a folder written by momentum-lab-cli train --out DIR"));
    file->addAction(tr("Follow run folder…"), this, [this] { chooseRunFolder(/*follow=*/true); })
        ->setToolTip(tr("View a run folder and keep showing what its training appends (momentum-lab-cli "
                        "train, a recorded PyTorch run, a study trial) until it finishes"));
    stopFollowing_ = file->addAction(tr("Stop following"), this, [this] { stopFollowing(); });
    stopFollowing_->setEnabled(false);
    file->addAction(tr("Open study…"), this, [this] { StudyWindow::chooseAndOpen(this, studyHooks()); })
        ->setToolTip(tr("View a folder written by momentum-lab-cli study STUDY.json --out DIR"));
    file->addAction(tr("Run study…"), this, [this] { StudyWindow::runStudy(this, studyHooks()); });
    QAction* openExperiment = file->addAction(tr("Open experiment…"), this, &MainWindow::openExperimentFile);
    openExperiment->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    QAction* saveExperiment = file->addAction(tr("Save experiment…"), exporter_, &ExportController::exportExperiment);
    saveExperiment->setShortcut(QKeySequence::Save);
    file->addSeparator();
    exporter_->populate(file->addMenu(tr("&Export")));
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* training = menuBar()->addMenu(tr("&Training"));
    training->addActions(actions_->all());
    training->addSeparator();
    QAction* keepRunFolders = training->addAction(tr("&Keep Each Training as a Run Folder"));
    keepRunFolders->setCheckable(true);
    keepRunFolders->setChecked(AppSettings::keepRunFolders());
    keepRunFolders->setToolTip(tr("Also write each training into %1, as momentum-lab-cli train --out does")
                                   .arg(QDir::toNativeSeparators(AppSettings::runsFolder())));
    connect(keepRunFolders, &QAction::toggled, this, [this](bool keep) {
        AppSettings::setKeepRunFolders(keep);
        session_->setRunsFolder(AppSettings::liveRunsFolder());
    });
    training->addSeparator();
    training->addAction(tr("Fork here\u2026"), this, [this] { forkHere(); })
        ->setToolTip(tr("Continue a paused or finished run from its current state as two or more branches"));

    QMenu* presetMenu = menuBar()->addMenu(tr("&Presets"));
    for (const Preset& preset : presets()) {
        const Experiment experiment = preset.experiment;
        presetMenu->addAction(QString::fromStdString(preset.title), this, [this, experiment] {
            experiment_->setExperiment(experiment);
            // A preset that shows the instruments switches them on in the Diagnostics dock.
            diagnostics_->showInstruments(experiment);
        });
    }

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* dock : findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());
    view->addSeparator();
    QAction* fit = view->addAction(tr("Fit convergence plot"), plot_, &ConvergencePlot::fitToData);
    fit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    QAction* log = view->addAction(tr("Log loss axis"));
    log->setCheckable(true);
    log->setChecked(plot_->logScale());
    log->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    connect(log, &QAction::toggled, plot_, &ConvergencePlot::setLogScale);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("Keyboard shortcuts"), this, [this] {
        QMessageBox::information(
            this, tr("Keyboard shortcuts"),
            tr("F5 / Ctrl+Return  start\nF6 / Ctrl+Space  pause / resume\nF10  single step\n"
               "Shift+F5  stop\nCtrl+Shift+R  reset\nCtrl+O  open run folder\nCtrl+E  export report\n"
               "Ctrl+S  save experiment\nCtrl+L  log loss axis\nCtrl+0  fit plot\n"
               "Plot: drag to pan, wheel to zoom, double-click to fit"));
    });
    help->addAction(tr("About Momentum Lab"), this, [this] {
        QMessageBox::about(this, tr("About Momentum Lab"),
                           tr("Momentum Lab compares neural-network optimizers in lockstep: the same initial weights "
                              "and batches for every run, so differences come from the optimizer alone."));
    });
}

void MainWindow::wireSession() {
    connect(actions_->start(), &QAction::triggered, this, &MainWindow::startTraining);
    connect(actions_->pause(), &QAction::triggered, session_, &TrainingSession::togglePause);
    connect(actions_->step(), &QAction::triggered, this, &MainWindow::stepTraining);
    connect(actions_->stop(), &QAction::triggered, this, [this] {
        lifecycle_.stopRequested(session_->isBusy());
        session_->stop();
    });
    connect(actions_->reset(), &QAction::triggered, this, &MainWindow::resetTraining);
    session_->setMaxStepsPerSecond(speed_->stepsPerSecond());
    connect(speed_, &SpeedControl::speedChanged, session_, &TrainingSession::setMaxStepsPerSecond);
    session_->setRunsFolder(AppSettings::liveRunsFolder());

    connect(session_, &TrainingSession::stateChanged, this, [this](SessionState state) {
        if (const std::optional<PendingFork> fork = lifecycle_.forkDue(state)) return launchFork(*fork);
        actions_->updateFor(state);
        experiment_->setEnabled(!session_->isBusy());
        progress_->setPaused(state == SessionState::Paused);
        showStateMessage();
    });
    connect(session_, &TrainingSession::planned, this, &MainWindow::planArrived);
    connect(session_, &TrainingSession::metricsArrived, comparison_, &RunComparison::addMetrics);
    connect(session_, &TrainingSession::snapshotsArrived, this,
            [this](const std::vector<SharedSnapshot>& snapshots) { selection_->deliver(snapshots); });
    connect(diagnostics_, &DiagnosticsDock::liveEveryChanged, session_, &TrainingSession::setDiagnosticsEvery);
    connect(session_, &TrainingSession::recordsArrived, this, [this](const InstrumentRecords& records) {
        diagnostics_->addLive(records);
        if (!records.spectrumProblem.isEmpty())
            statusBar()->showMessage(tr("Hessian spectrum: %1").arg(records.spectrumProblem), 15000);
    });
    connect(landscape_, &LandscapeView::exportRequested, this, [this] { exportFigure("loss-landscape"); });
    connect(session_, &TrainingSession::runFinished, this, [this](int run, const RunResult& result) {
        comparison_->finishRun(run, result);
        if (result.status == RunStatus::Diverged)
            statusBar()->showMessage(
                tr("%1 %2").arg(QString::fromStdString(result.label), QString::fromStdString(result.statusText())),
                8000);
    });
    connect(session_, &TrainingSession::progressed, progress_, &ProgressIndicator::setProgress);
    connect(session_, &TrainingSession::progressed, this, &MainWindow::showStateMessage);
    connect(session_, &TrainingSession::failed, this, [this](const QString& message) {
        lifecycle_.startRefused();  // refused before it began: the screen keeps what it showed
        statusBar()->showMessage(message, 15000);
        QMessageBox::warning(this, tr("Training failed"), message);
    });
}

void MainWindow::wireViews() {
    // New runs in the table (a fork's, an overlay's): the summary grows to its columns where the
    // bottom row has room (at most three fifths of it), once the table has its new rows.
    connect(comparison_->summary(), &QAbstractItemModel::modelReset, this,
            [this] { QTimer::singleShot(0, this, &MainWindow::fitSummaryWidth); });
    connect(plot_, &ConvergencePlot::exportRequested, this, [this] { exportFigure("convergence"); });
    connect(summary_, &SummaryPanel::thresholdChanged, comparison_, &RunComparison::setThreshold);
    connect(experiment_, &ExperimentPanel::changed, this, &MainWindow::experimentEdited);
    connect(experiment_, &ExperimentPanel::invalidValue, this,
            [this](const QString& message) { statusBar()->showMessage(message, 10000); });
    // The field is valid again: its refusal no longer applies.
    connect(experiment_, &ExperimentPanel::valueAccepted, this, [this] { statusBar()->clearMessage(); });
    connect(experiment_, &ExperimentPanel::message, this,
            [this](const QString& text) { statusBar()->showMessage(text, 8000); });
    connect(exporter_, &ExportController::message, this,
            [this](const QString& text) { statusBar()->showMessage(text, 8000); });

    connect(diagram_, &NetworkDiagramPanel::neuronClicked, this, [this](int layer, int neuron) {
        if (layer < 0) return;  // input neurons have no incoming connections
        diagram_->setSelectedNeuron(layer, neuron);
        inspector_->setNeuron(layer, neuron);
        inspectorDock_->show();
        inspectorDock_->raise();
    });
    // A clicked connection (diagram edge, heat-map cell) is followed over time for every run shown.
    auto follow = [this](int layer, int neuron, int input) {
        diagram_->setSelectedNeuron(layer, neuron);
        inspector_->setConnection(layer, neuron, input);
        explainer_->setConnection(layer, neuron, input);
        // The explainer stays in front when it is (clicking through connections there).
        if (explainerDock_->isVisible() && !explainerDock_->visibleRegion().isEmpty()) return;
        inspectorDock_->show();
        inspectorDock_->raise();
    };
    connect(diagram_, &NetworkDiagramPanel::connectionClicked, this, follow);
    connect(heatmap_, &LayerHeatmapPanel::connectionClicked, this, follow);
    // The run list's context menu: fork the run under the pointer.
    QTableView* runs = summary_->table();
    runs->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(runs, &QTableView::customContextMenuRequested, this, [this, runs](const QPoint& at) {
        const QModelIndex index = runs->indexAt(at);
        if (!index.isValid()) return;
        const int run = summaryRun(index);
        QMenu menu(runs);
        QAction* fork = menu.addAction(tr("Fork here\u2026"), this, [this, run] { forkHere(run); });
        fork->setEnabled(forkRefusal(run).isEmpty());
        fork->setToolTip(forkRefusal(run));
        menu.setToolTipsVisible(true);
        menu.exec(runs->viewport()->mapToGlobal(at));
    });
    // The explainer's Play is the step scrubber's.
    auto* scrubber = findChild<ComparisonBar*>();
    connect(explainer_, &UpdateExplainer::playToggled, scrubber, &ComparisonBar::setPlaying);
    connect(scrubber->playButton(), &QToolButton::toggled, explainer_, &UpdateExplainer::showPlaying);
    connect(historyPanel_, &RunHistoryPanel::showRequested, this, &MainWindow::showKept);
    connect(historyPanel_, &RunHistoryPanel::overlayRequested, this, &MainWindow::overlayKept);
}

bool MainWindow::experimentFromPanel(Experiment& experiment, bool quiet) {
    try {
        experiment = experiment_->experiment();
        return true;
    } catch (const InputError& error) {
        if (quiet) return false;
        const QString message = QString::fromStdString(error.what());
        statusBar()->showMessage(message, 15000);
        QMessageBox::warning(this, tr("Cannot start"), message);
        return false;
    }
}

void MainWindow::startTraining() {
    Experiment experiment;
    if (session_->isBusy() || !experimentFromPanel(experiment)) return;
    diagnostics_->applyInstruments(experiment);  // the dock's curvature, SNR and spectrum settings
    AppSettings::saveExperiment(experiment);
    // The screen changes when the training has begun (its plan arrives, the data loaded): a
    // Start refused by the worker (a missing data file) leaves everything as it was.
    lifecycle_.startRequested(experiment);
    session_->start(experiment);
}

void MainWindow::stepTraining() {
    if (session_->isBusy()) {
        session_->step(training_);
        return;
    }
    Experiment experiment;
    if (!experimentFromPanel(experiment)) return;
    diagnostics_->applyInstruments(experiment);
    lifecycle_.startRequested(experiment);  // as Start: the screen changes once the training has begun
    session_->step(experiment);
}

void MainWindow::resetTraining() {
    session_->reset();
    keepCurrent();
    comparison_->clear();
    startOver(training_);
}

// The one rule for stale state: everything on screen belongs to training_, and `next` replaces it.
// The views forget their data (snapshots, progress, the folder in the title), and a selection
// that names a neuron of another network is dropped (the same network keeps it, to compare).
void MainWindow::startOver(const Experiment& next) {
    stopFollowing();
    keepCurrent();
    lifecycle_.startedOver();
    views_->startOver(next, next.network.text() == training_.network.text());
    training_ = next;
    selection_->clear();
    progress_->restart();
    folderSource_.clear();
    updateTitle();
}

void MainWindow::planArrived(const TrainingPlan& plan) {
    if (std::optional<Experiment> start = lifecycle_.takePendingStart()) startOver(*start);
    comparison_->begin(training_, plan);
    updateTitle();
    imageShape_ = plan.imageShape;
    inspector_->setImageShape(plan.imageShape);
    explainer_->setRunSpecs(training_.runs);
    selection_->begin(labelsOf(plan.labels));
    diagnostics_->begin(labelsOf(plan.labels));
    // A fork shows the comparison it came from beside its branches.
    if (const int record = lifecycle_.planShown(); record > 0) overlayKept(record);
    if (!plan.runFolder.empty()) {
        QStringList written{"metrics.csv"};
        for (const std::string& record : plan.records) written << QString::fromStdString(record);
        statusBar()->showMessage(
            tr("Writing the run folder %1 (%2)")
                .arg(QDir::toNativeSeparators(QString::fromStdString(plan.runFolder)), written.join(", ")),
            15000);
    }
}

QString MainWindow::forkRefusal(int run) const {
    switch (session_->state()) {
    case SessionState::Running:
        return tr(
            "The training is running: pause it (F6) or let it finish, then fork (a running run's state changes "
            "with every step)");
    case SessionState::Stopping: return tr("The training is stopping: fork once it has stopped");
    case SessionState::Idle: break;
    case SessionState::Paused:
    case SessionState::Finished:
        if (!lifecycle_.liveOnScreen()) break;
        if (run < 0 || run >= comparison_->ownRunCount()) return tr("Choose a run of the training on screen to fork");
        if (session_->state() == SessionState::Paused) return {};
        if (run < static_cast<int>(session_->endStates().size()) &&
            session_->endStates()[static_cast<std::size_t>(run)].step > 0)
            return {};
        return tr("Run %1 has no state to continue (it diverged, or took no step)")
            .arg(selection_->labels().value(run));
    }
    return tr(
        "Fork here continues a paused or finished training of this window; a run folder forks with "
        "momentum-lab-cli train --fork-from RUN --at-step K (states saved by --save-state-every N)");
}

bool MainWindow::forkRun(int run, const std::vector<RunSpec>& branches, long untilStep, QString* refusal) {
    QString reason = forkRefusal(run);
    if (reason.isEmpty() && branches.empty()) reason = tr("Choose at least one branch");
    if (!reason.isEmpty()) {
        if (refusal) *refusal = reason;
        statusBar()->showMessage(reason, 10000);
        return false;
    }
    // A paused training ends first: its worker hands over every run's state as it stops.
    const PendingFork fork{run, branches, untilStep};
    if (lifecycle_.forkRequested(fork, session_->state())) session_->stop();
    else launchFork(fork);
    return true;
}

void MainWindow::launchFork(const PendingFork& fork) {
    actions_->updateFor(session_->state());
    const std::vector<TrainingState>& states = session_->endStates();
    if (fork.run >= static_cast<int>(states.size()) || states[static_cast<std::size_t>(fork.run)].step <= 0) {
        const QString message = tr("Cannot fork: run %1 has no state to continue").arg(fork.run + 1);
        statusBar()->showMessage(message, 10000);
        return;
    }
    auto start = std::make_shared<ForkStart>();
    start->state = states[static_cast<std::size_t>(fork.run)];
    start->state.source =
        tr("the state of run %1 at step %2").arg(QString::fromStdString(start->state.label)).arg(start->state.step);
    Experiment experiment;
    try {
        experiment = forkExperiment(training_, start->state, fork.branches, fork.untilStep);
        experiment.validate();
        // The run history then tells the fork from the comparison it came from.
        experiment.name = tr("%1: fork of %2 at step %3")
                              .arg(QString::fromStdString(training_.name), QString::fromStdString(start->state.label))
                              .arg(start->state.step)
                              .toStdString();
    } catch (const InputError& error) {
        statusBar()->showMessage(QString::fromStdString(error.what()), 15000);
        QMessageBox::warning(this, tr("Cannot fork"), QString::fromStdString(error.what()));
        return;
    }
    start->continueOptimizer = continuesSavedState(experiment, start->state);
    startOver(experiment);  // keeps the source comparison in the run history
    lifecycle_.forkLaunched(history_->records().empty() ? 0 : history_->records().back().number);
    session_->start(experiment, false, start);
    statusBar()->showMessage(tr("Forked %1 at step %2 into %3 branches")
                                 .arg(QString::fromStdString(start->state.label))
                                 .arg(start->state.step)
                                 .arg(experiment.runs.size()),
                             8000);
}

int MainWindow::summaryRun(const QModelIndex& row) const {
    const auto* sorted = qobject_cast<const QSortFilterProxyModel*>(row.model());
    return sorted ? sorted->mapToSource(row).row() : row.row();
}

void MainWindow::forkHere(int run) {
    if (run < 0) {
        const QModelIndexList rows = summary_->table()->selectionModel()
                                         ? summary_->table()->selectionModel()->selectedRows()
                                         : QModelIndexList();
        if (!rows.isEmpty()) run = summaryRun(rows.front());
        else {
            const auto own = std::find_if(selection_->shown().begin(), selection_->shown().end(),
                                          [this](int shown) { return shown < comparison_->ownRunCount(); });
            run = own != selection_->shown().end() ? *own : 0;
        }
    }
    const QString refusal = forkRefusal(run);
    if (!refusal.isEmpty()) {
        statusBar()->showMessage(refusal, 10000);
        QMessageBox::information(this, tr("Fork here"), refusal);
        return;
    }
    const RunSpec& source = training_.runs.at(static_cast<std::size_t>(run));
    const long step = session_->state() == SessionState::Paused
                          ? session_->stepsDone()
                          : session_->endStates()[static_cast<std::size_t>(run)].step;
    ForkDialog dialog(source, step, session_->totalSteps(), this);
    while (dialog.exec() == QDialog::Accepted) {
        try {
            if (forkRun(run, dialog.branches(), dialog.untilStep())) return;
        } catch (const InputError& error) {
            QMessageBox::warning(&dialog, tr("Fork here"), QString::fromStdString(error.what()));
        }
    }
}

// The comparison on screen goes into the run history (once; a record shown again unchanged is
// already there). Its snapshot archives are shared, not copied.
void MainWindow::keepCurrent() {
    if (!lifecycle_.needsKeeping(showingResults())) return;
    ComparisonRecord record = comparison_->record();
    record.archives = selection_->store().archives(comparison_->ownRunCount());
    record.imageShape = imageShape_;
    history_->add(std::move(record));
    lifecycle_.showingKept(history_->records().back().number);  // what is on screen is now kept
}

bool MainWindow::showKept(int number) {
    const ComparisonRecord* found = history_->find(number);
    if (!found || session_->isBusy()) {
        if (found) statusBar()->showMessage(tr("Stop the training first to show another comparison"), 8000);
        return false;
    }
    const ComparisonRecord record = *found;  // startOver may add to the history
    startOver(record.experiment);
    comparison_->show(record);
    imageShape_ = record.imageShape;
    inspector_->setImageShape(record.imageShape);
    explainer_->setRunSpecs(record.experiment.runs);
    selection_->begin(labelsOf(record.labels), record.archives);
    lifecycle_.showingKept(record.number);
    folderSource_ = record.source;
    updateTitle();
    statusBar()->showMessage(tr("Showing %1 again").arg(record.title()), 8000);
    return true;
}

bool MainWindow::overlayKept(int number) {
    const ComparisonRecord* record = history_->find(number);
    if (!record) return false;
    comparison_->overlay(*record);
    QStringList labels;
    for (int run = 0; run < record->runCount(); ++run) labels << record->runLabel(run);
    std::vector<RunSnapshots::ArchivePtr> archives = record->archives;
    archives.resize(static_cast<std::size_t>(record->runCount()));  // runs without a record stay empty
    for (auto& archive : archives)
        if (!archive) archive = std::make_shared<SnapshotArchive>();
    std::vector<RunSpec> specs = record->experiment.runs;
    specs.resize(static_cast<std::size_t>(record->runCount()));
    explainer_->appendRunSpecs(specs);
    selection_->addRuns(labels, archives);
    statusBar()->showMessage(tr("Overlaid %1").arg(record->title()), 8000);
    return true;
}

void MainWindow::chooseRunFolder(bool follow) {
    const QString directory =
        QFileDialog::getExistingDirectory(this,
                                          follow ? tr("Follow a run folder while it is written")
                                                 : tr("Open a run folder (momentum-lab-cli train --out DIR)"),
                                          AppSettings::lastDirectory());
    if (directory.isEmpty()) return;
    AppSettings::setLastDirectory(directory);
    openRunFolder(directory, follow);
}

void MainWindow::openStudy(const QString& directory) { StudyWindow::open(directory, this, studyHooks()); }

StudyWindowHooks MainWindow::studyHooks() {
    return {[this](const NamedFigure& figure) { exporter_->exportFigure(figure); },
            [this](const QString& folder) {
                openRunFolder(folder);
                raise();
                activateWindow();
            }};
}

void MainWindow::openRunFolder(const QString& directory, bool follow) {
    RunFolder folder;
    try {
        folder = readRunFolder(directory);
    } catch (const std::exception& error) {
        statusBar()->showMessage(QString::fromStdString(error.what()), 15000);
        QMessageBox::warning(this, tr("Cannot open run folder"), QString::fromStdString(error.what()));
        return;
    }
    // A CLI run keeps the default name: the folder's name says more in titles and the report.
    if (folder.experiment.name == Experiment{}.name)
        folder.experiment.name = QDir(QDir::cleanPath(directory)).dirName().toStdString();
    if (follow) RunFolderFollower::markUnfinishedRunning(folder);
    session_->reset();
    startOver(folder.experiment);
    comparison_->showFolder(folder);
    experiment_->setExperiment(folder.experiment);
    imageShape_ = imageShapeOf(folder.experiment);  // "As image" for a first-layer neuron
    inspector_->setImageShape(imageShape_);
    // The runs into the selection, each view's files (diagnostics), the snapshots.
    const std::vector<std::string> snapshotProblems = views_->showFolder(folder);
    folderSource_ = directory;
    updateTitle();
    if (follow) return followRunFolder(folder);  // runs still being written are incomplete, not damaged
    // A run whose files could not be read is shown with what could be read; say which and why.
    QStringList problems;
    for (const std::string& problem : folder.problems()) problems << QString::fromStdString(problem);
    for (const std::string& problem : snapshotProblems) problems << QString::fromStdString(problem);
    if (!problems.isEmpty()) QMessageBox::warning(this, tr("Some runs could not be read"), problems.join("\n"));
    statusBar()->showMessage(tr("Opened %1 (%2 runs)").arg(directory).arg(folder.runs.size()), 8000);
}

bool MainWindow::isFollowing() const { return follower_ && follower_->isFollowing(); }

void MainWindow::followRunFolder(const RunFolder& folder) {
    std::vector<long> snapshotsShown;  // what the open path delivered is not delivered again
    for (int run = 0; run < static_cast<int>(folder.runs.size()); ++run) {
        const Snapshot* latest = selection_->store().latest(run);
        snapshotsShown.push_back(latest ? latest->step : 0);
    }
    RunFolderFollower::Deliveries deliveries{
        [this](const std::vector<StepMetrics>& rows) { comparison_->addMetrics(rows); },
        [this](const std::vector<SharedSnapshot>& batch) { views_->deliverFolderSnapshots(batch); },
        [this](int run, const RunResult& result) { comparison_->finishRun(run, result); }};
    follower_ = new RunFolderFollower(folder, snapshotsShown, std::move(deliveries), this);
    const QString directory = folder.directory;
    connect(follower_, &RunFolderFollower::finished, this,
            [this, directory] { stopFollowing(tr("%1 is finished: every run wrote its summary").arg(directory)); });
    connect(follower_, &RunFolderFollower::problem, this,
            [this](const QString& message) { statusBar()->showMessage(message, 15000); });
    followLabel_->setText(tr("Following %1").arg(directory));
    followLabel_->show();
    stopFollowing_->setEnabled(true);
    follower_->poll();  // what was appended while the folder was opened
}

// Stops following (the user, another folder or a training, or the folder finished); the runs
// stay on screen as they are.
void MainWindow::stopFollowing(const QString& message) {
    if (!follower_) return;
    const QString directory = follower_->directory();
    follower_->stop();
    follower_->deleteLater();  // may be inside its own signal
    follower_ = nullptr;
    followLabel_->hide();
    stopFollowing_->setEnabled(false);
    statusBar()->showMessage(message.isEmpty() ? tr("Stopped following %1").arg(directory) : message, 8000);
}

void MainWindow::openExperimentFile() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open experiment"), AppSettings::lastDirectory(),
                                                      tr("Experiment (*.json)"));
    if (path.isEmpty()) return;
    AppSettings::setLastDirectory(QFileInfo(path).absolutePath());
    try {
        const Experiment loaded = loadExperiment(path);
        experiment_->setExperiment(loaded);
        diagnostics_->showInstruments(loaded);
    } catch (const InputError& error) {
        QMessageBox::warning(this, tr("Cannot open experiment"), QString::fromStdString(error.what()));
    }
}

// The panel was edited. Results of the same experiment follow a new name (plot title, report
// heading); results of another experiment stay on screen, titled as the previous experiment's.
void MainWindow::experimentEdited() {
    if (!session_->isBusy() && showingResults()) {
        Experiment edited;
        const bool valid = experimentFromPanel(edited, /*quiet=*/true);
        lifecycle_.formEdited(valid && sameExceptName(edited, comparison_->experiment()));
        if (valid && !lifecycle_.resultsArePrevious() && edited.name != comparison_->experiment().name) {
            comparison_->renameExperiment(edited.name);
            training_.name = edited.name;
        }
    }
    updateTitle();
    showStateMessage();
}

bool MainWindow::showingResults() const { return comparison_->history().runCount() > 0; }

void MainWindow::updateTitle() {
    QString title = tr("Momentum Lab — %1").arg(experiment_->experimentName());
    if (!folderSource_.isEmpty()) title += tr(" [%1]").arg(QFileInfo(folderSource_).fileName());
    setWindowTitle(title);
    // The plot is titled by the experiment whose data it shows (the panel's until there are data).
    if (!showingResults()) return plot_->setTitle(experiment_->experimentName());
    const QString shown = QString::fromStdString(comparison_->experiment().name);
    plot_->setTitle(lifecycle_.resultsArePrevious() ? tr("Previous experiment: %1").arg(shown) : shown);
}

void MainWindow::showStateMessage() {
    stateLabel_->setVisible(statusBar()->currentMessage().isEmpty());  // not over a temporary message
    switch (lifecycle_.stateLine(session_->state())) {
    case StateLine::Ready: return stateLabel_->setText(tr("Ready: press Start (F5)"));
    case StateLine::Finished: return stateLabel_->setText(tr("Finished"));
    case StateLine::Stopped: return stateLabel_->setText(tr("Stopped: the results so far are kept"));
    case StateLine::ShowingPrevious:
        return stateLabel_->setText(tr("Showing the previous experiment: Start (F5) trains the edited one"));
    case StateLine::Training: return stateLabel_->setText(tr("Training"));
    case StateLine::Paused: return stateLabel_->setText(tr("Paused: F10 steps, F6 resumes"));
    case StateLine::Stopping: return stateLabel_->setText(tr("Stopping…"));
    }
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (session_->isBusy() &&
        QMessageBox::question(this, tr("Quit Momentum Lab"),
                              AppSettings::keepRunFolders()
                                  ? tr("A training is running. Quit anyway? It stops here; its run folder keeps the "
                                       "steps so far.")
                                  : tr("A training is running. Quit anyway? Its results are not saved."),
                              QMessageBox::Yes | QMessageBox::No, QMessageBox::No) != QMessageBox::Yes) {
        event->ignore();
        return;
    }
    AppSettings::saveLayout(saveGeometry(), saveState());
    try {
        AppSettings::saveExperiment(experiment_->experiment());
    } catch (const InputError&) {
        // An unfinished form is not worth keeping; the last started experiment stays saved.
    }
    event->accept();
}

}  // namespace ml
