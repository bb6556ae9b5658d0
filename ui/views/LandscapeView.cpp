#include "views/LandscapeView.h"

#include "model/RunPalette.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>
#include <qcustomplot.h>

namespace ml {

namespace {

// The recorded path of one run of the selection: its initial weights (step 0) when known, then
// every archived snapshot that kept the weights.
Trajectory trajectoryOf(const RunSelection& selection, int run) {
    Trajectory trajectory;
    trajectory.label = selection.labels().value(run).toStdString();
    const SnapshotArchive* archive = selection.store().archive(run);
    if (!archive) return trajectory;
    for (const SharedSnapshot& snapshot : archive->snapshots()) {
        if (trajectory.points.empty() && snapshot->initialParameters && snapshot->step > 0)
            trajectory.append(0, *snapshot->initialParameters);
        const Parameters weights = snapshotWeights(*snapshot);
        if (!weights.empty()) trajectory.append(snapshot->step, weights);
    }
    return trajectory;
}

}  // namespace

LandscapeView::LandscapeView(RunSelection* selection, QWidget* parent)
    : QWidget(parent), selection_(selection), computation_(new LandscapeComputation(this)), directions_(new QComboBox),
      gridSize_(new QSpinBox), computeButton_(new QPushButton(tr("Compute"))),
      cancelButton_(new QPushButton(tr("Cancel"))), progress_(new QProgressBar), status_(new QLabel),
      plot_(new LandscapePlot), slice_(new QCustomPlot), exportButton_(new QPushButton(tr("Export…"))) {
    directions_->addItem(tr("principal directions"), int(PlaneDirections::Principal));
    directions_->addItem(tr("random (filter-normalised)"), int(PlaneDirections::Random));
    directions_->setToolTip(
        tr("The plane: the first two principal directions of all recorded weights of the shown runs, "
           "or two random directions scaled per neuron (Li et al. 2018); through the mean of their final weights"));
    gridSize_->setRange(LossGrid::kMinSize, 200);
    gridSize_->setValue(kDefaultLandscapeGrid);
    gridSize_->setPrefix(tr("grid "));
    gridSize_->setToolTip(tr("Grid points per side"));
    cancelButton_->setEnabled(false);
    progress_->setRange(0, 1);
    progress_->setValue(0);
    progress_->setMaximumWidth(160);
    status_->setWordWrap(true);
    status_->setText(tr("Shows the loss around the shown runs on one plane; record snapshots, then Compute."));

    auto* controls = new QHBoxLayout;
    controls->addWidget(directions_);
    controls->addWidget(gridSize_);
    controls->addWidget(computeButton_);
    controls->addWidget(cancelButton_);
    controls->addWidget(progress_);
    controls->addWidget(exportButton_);
    controls->addStretch(1);
    exportButton_->setEnabled(false);
    exportButton_->setToolTip(tr("Export the landscape (PNG, PDF, SVG or pgfplots), as File ▸ Export does"));

    slice_->xAxis->setLabel(tr("t  (0: %1, 1: %2)").arg(tr("first run"), tr("second run")));
    slice_->yAxis->setLabel(tr("loss"));
    slice_->addGraph();
    slice_->graph(0)->setPen(QPen(QColor(60, 60, 60), 2));
    for (int k = 0; k < 2; ++k) {  // the two runs' final weights
        ends_[k] = new QCPItemStraightLine(slice_);
        ends_[k]->point1->setCoords(k, 0);
        ends_[k]->point2->setCoords(k, 1);
        ends_[k]->setPen(QPen(runColor(k), 1.5, Qt::DashLine));
        ends_[k]->setVisible(false);  // until a slice is drawn
    }
    auto* splitter = new QSplitter(Qt::Vertical);
    splitter->addWidget(plot_);
    splitter->addWidget(slice_);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(controls);
    layout->addWidget(status_);
    layout->addWidget(splitter, 1);

    connect(computeButton_, &QPushButton::clicked, this, &LandscapeView::compute);
    connect(cancelButton_, &QPushButton::clicked, this, &LandscapeView::cancel);
    connect(exportButton_, &QPushButton::clicked, this, &LandscapeView::exportRequested);
    connect(selection_, &RunSelection::selectionChanged, this, &LandscapeView::shownRunsChanged);
    connect(computation_, &LandscapeComputation::progressed, this, [this](long done, long total) {
        progress_->setRange(0, int(total));
        progress_->setValue(int(done));
    });
    connect(computation_, &LandscapeComputation::finished, this, &LandscapeView::finished);
    connect(selection_, &RunSelection::stepChanged, this, [this] { plot_->setStep(selection_->step()); });
}

void LandscapeView::setGridSize(int size) { gridSize_->setValue(size); }

void LandscapeView::setDirections(PlaneDirections directions) {
    directions_->setCurrentIndex(directions_->findData(int(directions)));
}

QStringList LandscapeView::shownLabels() const {
    QStringList labels;
    for (const int run : selection_->shown()) labels << selection_->labels().value(run);
    return labels;
}

// Other runs shown than the landscape was computed for: compute again (once asked for at all).
void LandscapeView::shownRunsChanged() {
    if (!requested_ || shownLabels() == computedLabels_) return;
    if (computation_->busy()) {
        restart_ = true;  // finished() starts the new one
        computation_->cancel();
        return;
    }
    compute();
}

void LandscapeView::compute() {
    if (computation_->busy()) return;
    requested_ = true;
    computedLabels_ = shownLabels();
    std::vector<Trajectory> trajectories;
    computedRuns_.clear();
    computedSteps_.clear();
    for (const int run : selection_->shown()) {
        Trajectory trajectory = trajectoryOf(*selection_, run);
        if (trajectory.points.empty()) continue;
        computedSteps_.push_back(trajectory.steps);  // the archive may grow while computing
        trajectories.push_back(std::move(trajectory));
        computedRuns_.push_back(run);
    }
    if (trajectories.empty()) {
        plot_->clear();  // no picture of other runs stays up
        slice_->graph(0)->data()->clear();
        for (QCPItemStraightLine* end : ends_) end->setVisible(false);
        slice_->replot();
        hasResult_ = false;
        exportButton_->setEnabled(false);
        status_->setText(
            tr("No recorded weights for the shown runs: train (or open a folder written with "
               "--snapshots-every N) first."));
        emit computed();
        return;
    }
    LandscapeRequest request;
    request.directions = PlaneDirections(directions_->currentData().toInt());
    request.gridSize = gridSize_->value();
    computeButton_->setEnabled(false);
    cancelButton_->setEnabled(true);
    progress_->setRange(0, 0);  // busy until the data is loaded
    status_->setText(tr("Computing the loss at %1 points…").arg(request.gridSize * request.gridSize));
    computation_->start(experiment_, std::move(trajectories), request);
}

void LandscapeView::cancel() { computation_->cancel(); }

QString LandscapeView::statusText() const { return status_->text(); }

void LandscapeView::finished(const std::shared_ptr<const Landscape>& landscape, const QString& error) {
    if (restart_) {  // cancelled for runs no longer shown: start for the ones shown now
        restart_ = false;
        compute();
        return;
    }
    computeButton_->setEnabled(true);
    cancelButton_->setEnabled(false);
    progress_->setRange(0, 1);
    progress_->setValue(landscape && landscape->complete ? 1 : 0);
    if (!landscape) status_->setText(tr("Cannot compute the landscape: %1").arg(error));
    else if (!landscape->complete) status_->setText(tr("Cancelled."));
    else {
        std::vector<LandscapePlot::Track> tracks;
        for (std::size_t k = 0; k < computedRuns_.size(); ++k) {
            const int run = computedRuns_[k];
            tracks.push_back({selection_->labels().value(run), runColor(selection_->look(run)), computedSteps_[k]});
        }
        const bool principal = directions_->currentData().toInt() == int(PlaneDirections::Principal);
        plot_->show(*landscape, std::move(tracks), principal ? tr("principal direction 1") : tr("random direction 1"),
                    principal ? tr("principal direction 2") : tr("random direction 2"));
        plot_->setStep(selection_->step());
        showSlice(*landscape);
        hasResult_ = true;
        exportButton_->setEnabled(true);
        status_->setText(tr("%1 × %1 grid, loss on %2 training examples, %3 weights; the plane passes through the mean "
                            "of the runs' final weights (0, 0).")
                             .arg(landscape->grid.size)
                             .arg(landscape->examples)
                             .arg(landscape->weights));
    }
    emit computed();
}

void LandscapeView::showSlice(const Landscape& landscape) {
    QVector<double> t, loss;
    if (landscape.slice)
        for (std::size_t i = 0; i < landscape.slice->loss.size(); ++i) {
            t.push_back(landscape.slice->t[i]);
            loss.push_back(landscape.slice->loss[i]);
        }
    slice_->graph(0)->setData(t, loss);
    for (int k = 0; k < 2; ++k) {
        if (k < int(computedRuns_.size()))
            ends_[k]->setPen(QPen(runColor(selection_->look(computedRuns_[k])), 1.5, Qt::DashLine));
        ends_[k]->setVisible(landscape.slice.has_value());
    }
    const QString first = computedRuns_.size() > 0 ? selection_->labels().value(computedRuns_[0]) : QString();
    const QString second = computedRuns_.size() > 1 ? selection_->labels().value(computedRuns_[1]) : QString();
    slice_->xAxis->setLabel(landscape.slice ? tr("t along the line from %1 (0) to %2 (1)").arg(first, second)
                                            : tr("slice: show two runs"));
    slice_->rescaleAxes();
    slice_->replot();
}

}  // namespace ml
