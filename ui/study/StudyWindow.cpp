#include "study/StudyWindow.h"

#include "AppSettings.h"
#include "study/HyperParameterHeatmap.h"
#include "study/ParallelCoordinatesPlot.h"
#include "study/PerformanceProfilePlot.h"
#include "study/SensitivityPlot.h"
#include "study/StudyBandPlot.h"
#include "study/StudyResultsTable.h"
#include "study/StudyRunDialog.h"

#include <QCheckBox>
#include <QHeaderView>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace ml {

StudyWindow::StudyWindow(StudyResults results, StudyWindowHooks hooks, QWidget* parent)
    : QWidget(parent, Qt::Window), results_(std::move(results)), hooks_(std::move(hooks)), header_(new QLabel(this)),
      task_(new QComboBox(this)), baseline_(new QComboBox(this)), series_(new QComboBox(this)),
      statistic_(new QComboBox(this)), logY_(new QCheckBox(tr("Log y"), this)), parameter_(new QComboBox(this)),
      sensitivityLogY_(new QCheckBox(tr("Log y"), this)), table_(new StudyResultsTable(this)),
      bands_(new StudyBandPlot(this)), sensitivity_(new SensitivityPlot(this)), heatOptimizer_(new QComboBox(this)),
      heatX_(new QComboBox(this)), heatY_(new QComboBox(this)), heatmap_(new HyperParameterHeatmap(this)),
      parallelOptimizer_(new QComboBox(this)), parallel_(new ParallelCoordinatesPlot(this)),
      profile_(new PerformanceProfilePlot(this)) {
    setAttribute(Qt::WA_DeleteOnClose);
    setWindowTitle(tr("Study: %1").arg(results_.name));
    header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    header_->setWordWrap(true);
    QString header = tr("<b>%1</b> — %2<br>%3 of %4 trials finished; tuned on %5; test figures over the final seeds.")
                         .arg(results_.name.toHtmlEscaped(), results_.folder.toHtmlEscaped())
                         .arg(results_.finishedTrials)
                         .arg(results_.totalTrials)
                         .arg(selectionScoreTitle(results_.selection));
    if (std::isfinite(results_.target)) header += tr(" Target loss %1.").arg(results_.target);
    if (results_.aggregated) header += tr(" (Results aggregated on opening.)");
    header_->setText(header);

    task_->addItems(results_.tasks);
    task_->setObjectName("task");
    baseline_->addItems(results_.optimizers);
    baseline_->setCurrentIndex(std::max<int>(0, static_cast<int>(results_.optimizers.indexOf(results_.baseline))));
    baseline_->setObjectName("baseline");
    baseline_->setToolTip(tr("The results table gives each optimizer's probability of beating this one"));
    for (const char* series : {"test_loss", "train_loss", "test_accuracy"})
        series_->addItem(seriesTitle(series), series);
    series_->setObjectName("series");
    statistic_->addItem(tr("median + IQR"));
    statistic_->addItem(tr("mean + 95 % CI"));
    statistic_->setObjectName("statistic");
    parameter_->addItems(results_.parameters);
    parameter_->setObjectName("parameter");
    sensitivityLogY_->setObjectName("sensitivityLogY");
    sensitivityLogY_->setToolTip(tr("The sensitivity plot's score on a log axis (when every score is positive)"));
    auto* exportBands = new QPushButton(tr("Export band plot…"), this);
    auto* exportSensitivity = new QPushButton(tr("Export sensitivity plot…"), this);

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Task"), this));
    controls->addWidget(task_);
    controls->addWidget(new QLabel(tr("Baseline"), this));
    controls->addWidget(baseline_);
    controls->addSpacing(12);
    controls->addWidget(new QLabel(tr("Band plot"), this));
    controls->addWidget(series_);
    controls->addWidget(statistic_);
    controls->addWidget(logY_);
    controls->addWidget(exportBands);
    controls->addSpacing(12);
    controls->addWidget(new QLabel(tr("Sensitivity to"), this));
    controls->addWidget(parameter_);
    controls->addWidget(sensitivityLogY_);
    controls->addWidget(exportSensitivity);
    controls->addStretch(1);

    heatOptimizer_->addItems(results_.optimizers);
    heatOptimizer_->setObjectName("heatOptimizer");
    heatX_->addItems(results_.parameters);
    heatX_->setObjectName("heatX");
    heatY_->addItems(results_.parameters);
    heatY_->setObjectName("heatY");
    heatY_->setCurrentIndex(std::min<int>(1, static_cast<int>(results_.parameters.size()) - 1));
    auto* exportHeatmap = new QPushButton(tr("Export…"), this);
    auto* heatPage = new QWidget(this);
    auto* heatControls = new QHBoxLayout;
    for (QWidget* w : std::initializer_list<QWidget*>{heatOptimizer_, new QLabel(tr("x"), this), heatX_,
                                                      new QLabel(tr("y"), this), heatY_, exportHeatmap})
        heatControls->addWidget(w);
    heatControls->addStretch(1);
    auto* heatLayout = new QVBoxLayout(heatPage);
    heatLayout->setContentsMargins(0, 0, 0, 0);
    heatLayout->addLayout(heatControls);
    heatLayout->addWidget(heatmap_, 1);
    parallelOptimizer_->addItems(results_.optimizers);
    parallelOptimizer_->setObjectName("parallelOptimizer");
    auto* exportParallel = new QPushButton(tr("Export…"), this);
    auto* parallelPage = new QWidget(this);
    auto* parallelControls = new QHBoxLayout;
    parallelControls->addWidget(parallelOptimizer_);
    parallelControls->addStretch(1);
    parallelControls->addWidget(exportParallel);
    auto* parallelLayout = new QVBoxLayout(parallelPage);
    parallelLayout->setContentsMargins(0, 0, 0, 0);
    parallelLayout->addLayout(parallelControls);
    parallelLayout->addWidget(parallel_, 1);
    auto* tuning = new QTabWidget(this);
    tuning->addTab(sensitivity_, tr("Sensitivity"));
    tuning->addTab(heatPage, tr("Heat-map"));
    tuning->addTab(parallelPage, tr("Parallel coordinates"));
    tuning->setCurrentIndex(results_.parameters.size() >= 2 ? 1 : 0);  // two searched parameters: the map says more
    // Several tasks: the performance profile beside the bands (it sums up all tasks at once).
    auto* curves = new QTabWidget(this);
    curves->addTab(bands_, tr("Bands"));
    auto* profilePage = new QWidget(this);
    auto* exportProfile = new QPushButton(tr("Export…"), this);
    auto* profileControls = new QHBoxLayout;
    profileControls->addStretch(1);
    profileControls->addWidget(exportProfile);
    auto* profileLayout = new QVBoxLayout(profilePage);
    profileLayout->setContentsMargins(0, 0, 0, 0);
    profileLayout->addLayout(profileControls);
    profileLayout->addWidget(profile_, 1);
    if (results_.tasks.size() >= 2) curves->addTab(profilePage, tr("Performance profile"));
    else profilePage->hide();
    auto* plots = new QSplitter(Qt::Horizontal, this);
    plots->addWidget(curves);
    plots->addWidget(tuning);
    plots->setSizes({620, 560});
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(table_);
    split->addWidget(plots);
    // The table as tall as its rows (up to a third of the window), the plots the rest.
    const int tableHeight =
        table_->horizontalHeader()->sizeHint().height() + 2 * table_->frameWidth() + 24 +
        static_cast<int>(results_.optimizerResults.size()) * table_->verticalHeader()->defaultSectionSize();
    split->setSizes({std::min(tableHeight, 240), 480});
    split->setStretchFactor(1, 1);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(header_);
    layout->addLayout(controls);
    layout->addWidget(split, 1);

    table_->setResults(results_, baseline_->currentText());
    connect(baseline_, &QComboBox::currentIndexChanged, this,
            [this] { table_->setResults(results_, baseline_->currentText()); });
    for (QComboBox* box : {task_, series_, statistic_, parameter_, heatOptimizer_, heatX_, heatY_, parallelOptimizer_})
        connect(box, &QComboBox::currentIndexChanged, this, &StudyWindow::refresh);
    for (QCheckBox* box : {logY_, sensitivityLogY_}) connect(box, &QCheckBox::toggled, this, &StudyWindow::refresh);
    connect(exportBands, &QPushButton::clicked, this, [this] {
        if (hooks_.exportFigure) hooks_.exportFigure(figures().at(0));
    });
    connect(exportSensitivity, &QPushButton::clicked, this, [this] {
        if (hooks_.exportFigure) hooks_.exportFigure(figures().at(1));
    });
    connect(exportHeatmap, &QPushButton::clicked, this, [this] {
        if (hooks_.exportFigure) hooks_.exportFigure(figures().at(2));
    });
    connect(exportParallel, &QPushButton::clicked, this, [this] {
        if (hooks_.exportFigure) hooks_.exportFigure(figures().at(3));
    });
    connect(exportProfile, &QPushButton::clicked, this, [this] {
        if (hooks_.exportFigure && figures().size() > 4) hooks_.exportFigure(figures().at(4));
    });
    const auto openRun = [this](const QString& folder) {
        if (hooks_.openRunFolder) hooks_.openRunFolder(folder);
    };
    connect(sensitivity_, &SensitivityPlot::trialClicked, this, openRun);
    connect(heatmap_, &HyperParameterHeatmap::trialClicked, this, openRun);
    connect(parallel_, &ParallelCoordinatesPlot::trialClicked, this, openRun);
    profile_->show(results_);  // all tasks at once: no control changes it
    refresh();
    resize(1200, 720);
}

void StudyWindow::refresh() {
    const QString task = task_->currentText();
    const QString series = series_->currentData().toString();
    bands_->show(
        results_, task, series,
        statistic_->currentIndex() == 0 ? StudyBandPlot::Statistic::MedianIqr : StudyBandPlot::Statistic::MeanCi,
        logY_->isChecked());
    sensitivity_->show(results_, task, parameter_->currentText(), sensitivityLogY_->isChecked());
    heatmap_->show(results_, task, heatOptimizer_->currentText(), heatX_->currentText(), heatY_->currentText());
    parallel_->show(results_, task, parallelOptimizer_->currentText());
}

std::vector<NamedFigure> StudyWindow::figures() const {
    const QString task = task_->currentText();
    const QString series = series_->currentData().toString();
    std::vector<NamedFigure> list{
        {"study-band-" + task + "-" + series,
         tr("%1: %2 over the seeds (%3)").arg(task, seriesTitle(series), statistic_->currentText()),
         Figure::ofPlot(bands_->plot())},
        {"study-sensitivity-" + task + "-" + parameter_->currentText(),
         tr("%1: sensitivity to %2").arg(task, parameter_->currentText()), Figure::ofPlot(sensitivity_->plot())},
        {"study-heatmap-" + task + "-" + heatOptimizer_->currentText() + "-" + heatX_->currentText() + "-" +
             heatY_->currentText(),
         tr("%1, %2: %3 × %4").arg(task, heatOptimizer_->currentText(), heatX_->currentText(), heatY_->currentText()),
         Figure::ofPlot(heatmap_->plot())},
        {"study-parallel-coordinates-" + task + "-" + parallelOptimizer_->currentText(),
         tr("%1, %2: every tuning trial across the searched hyper-parameters")
             .arg(task, parallelOptimizer_->currentText()),
         Figure::ofPlot(parallel_->plot())}};
    if (results_.tasks.size() >= 2)
        list.push_back({"study-performance-profile", tr("Performance profile over %1 tasks").arg(results_.tasks.size()),
                        Figure::ofPlot(profile_->plot())});
    return list;
}

StudyWindow* StudyWindow::open(const QString& directory, QWidget* parent, const StudyWindowHooks& hooks) {
    try {
        auto* window = new StudyWindow(loadStudyResults(directory), hooks, parent);
        window->show();
        return window;
    } catch (const std::exception& error) {
        QMessageBox::warning(parent, tr("Cannot open the study"), QString::fromStdString(error.what()));
        return nullptr;
    }
}

StudyWindow* StudyWindow::chooseAndOpen(QWidget* parent, const StudyWindowHooks& hooks) {
    const QString directory = QFileDialog::getExistingDirectory(
        parent, tr("Open a study folder (momentum-lab-cli study STUDY.json --out DIR)"), AppSettings::lastDirectory());
    if (directory.isEmpty()) return nullptr;
    AppSettings::setLastDirectory(directory);
    return open(directory, parent, hooks);
}

void StudyWindow::runStudy(QWidget* parent, const StudyWindowHooks& hooks) {
    auto* dialog = new StudyRunDialog(parent);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &StudyRunDialog::finished, parent,
            [parent, hooks](const QString& folder) { open(folder, parent, hooks); });
    dialog->show();
}

}  // namespace ml
