#include "views/ComparisonBar.h"

#include "model/RunPalette.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QPainter>
#include <QSlider>
#include <QTimer>
#include <QToolButton>
#include <QWidgetAction>

namespace ml {

namespace {

QIcon swatch(const QColor& color) {
    QPixmap pixmap(12, 12);
    pixmap.fill(color);
    return QIcon(pixmap);
}

}  // namespace

ComparisonBar::ComparisonBar(RunSelection* selection, QWidget* parent)
    : QWidget(parent), selection_(selection), runs_(new QToolButton(this)), mode_(new QComboBox(this)),
      play_(new QToolButton(this)), slider_(new QSlider(Qt::Horizontal, this)), stepLabel_(new QLabel(this)),
      timer_(new QTimer(this)) {
    runs_->setObjectName(QStringLiteral("compareRuns"));
    runs_->setPopupMode(QToolButton::InstantPopup);
    runs_->setMenu(new QMenu(runs_));
    runs_->setToolTip(tr("The runs every matrix view shows (diagram, heat-map, inspector)"));
    runs_->setMaximumWidth(360);
    mode_->addItem(tr("side by side"), static_cast<int>(RunSelection::Mode::SideBySide));
    mode_->addItem(tr("A − B"), static_cast<int>(RunSelection::Mode::Difference));
    mode_->setToolTip(
        tr("Several runs: small multiples on one shared colour scale, or the difference of the first two "
           "(A − B) on its own symmetric scale"));
    play_->setText(QStringLiteral("▶"));
    play_->setCheckable(true);
    play_->setToolTip(tr("Replay the recorded snapshots"));
    slider_->setMinimumWidth(160);
    slider_->setToolTip(tr("Step shown by the diagram, the heat-map and the image view; right end: latest (live)"));
    stepLabel_->setMinimumWidth(stepLabel_->fontMetrics().horizontalAdvance(QStringLiteral("step 1000000 / live")));
    timer_->setInterval(100);

    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 0, 4, 0);
    layout->addWidget(new QLabel(tr("Compare"), this));
    layout->addWidget(runs_);
    layout->addWidget(mode_);
    layout->addSpacing(12);
    layout->addWidget(play_);
    layout->addWidget(slider_, 1);
    layout->addWidget(stepLabel_);

    connect(mode_, &QComboBox::currentIndexChanged, this,
            [this] { selection_->setMode(static_cast<RunSelection::Mode>(mode_->currentData().toInt())); });
    connect(slider_, &QSlider::valueChanged, this, &ComparisonBar::scrubbed);
    connect(play_, &QToolButton::toggled, this, &ComparisonBar::setPlaying);
    connect(timer_, &QTimer::timeout, this, &ComparisonBar::advance);
    connect(selection_, &RunSelection::selectionChanged, this, [this] {
        rebuildRunMenu();
        syncScrubber();
    });
    connect(selection_, &RunSelection::snapshotsArrived, this, &ComparisonBar::syncScrubber);
    connect(selection_, &RunSelection::stepChanged, this, &ComparisonBar::syncScrubber);
    rebuildRunMenu();
    syncScrubber();
}

// One check box per run (a real box, ticked or not, beside the run's colour); ticking one keeps
// the menu open, so several runs are chosen in one visit. The entries are made anew only when
// the runs change: a tick changes the selection, which only updates the boxes.
void ComparisonBar::rebuildRunMenu() {
    QMenu* menu = runs_->menu();
    if (selection_->labels() != menuLabels_) {
        menu->clear();
        boxes_.clear();
        menuLabels_ = selection_->labels();
        for (int run = 0; run < menuLabels_.size(); ++run) {
            auto* box = new QCheckBox(menuLabels_[run]);
            box->setContentsMargins(6, 2, 6, 2);
            connect(box, &QCheckBox::toggled, this, [this, run](bool on) { selection_->setRunShown(run, on); });
            auto* entry = new QWidgetAction(menu);
            entry->setDefaultWidget(box);
            menu->addAction(entry);
            boxes_.push_back(box);
        }
    }
    QStringList shown;
    for (int run = 0; run < static_cast<int>(boxes_.size()); ++run) {
        QCheckBox* box = boxes_[static_cast<std::size_t>(run)];
        const bool isShown = std::count(selection_->shown().begin(), selection_->shown().end(), run) > 0;
        const QSignalBlocker blocker(box);
        box->setChecked(isShown);
        box->setIcon(swatch(runColor(selection_->look(run))));
        if (isShown) shown << selection_->labels()[run];
    }
    // A − B subtracts the first two ticked runs only: the button names just those two.
    const QString text = shown.isEmpty()              ? tr("no run")
                         : selection_->isDifference() ? tr("A − B: %1 − %2").arg(shown[0], shown[1])
                                                      : shown.join(QStringLiteral(", "));
    runs_->setText(runs_->fontMetrics().elidedText(text, Qt::ElideRight, 300) + QStringLiteral(" ▾"));
    const QSignalBlocker blocker(mode_);
    mode_->setCurrentIndex(mode_->findData(static_cast<int>(selection_->mode())));
}

void ComparisonBar::syncScrubber() {
    steps_ = selection_->steps();
    const QSignalBlocker blocker(slider_);
    slider_->setRange(0, static_cast<int>(steps_.size()));  // the last position: live
    const long step = selection_->step();
    if (step < 0) {
        slider_->setValue(slider_->maximum());
        stepLabel_->setText(steps_.empty() ? tr("no snapshots") : tr("step %1 / live").arg(steps_.back()));
    } else {
        const auto at = std::lower_bound(steps_.begin(), steps_.end(), step);
        slider_->setValue(static_cast<int>(at - steps_.begin()));
        stepLabel_->setText(tr("step %1").arg(step));
    }
}

void ComparisonBar::scrubbed(int position) {
    selection_->setStep(position >= static_cast<int>(steps_.size()) ? -1 : steps_[static_cast<std::size_t>(position)]);
}

void ComparisonBar::setPlaying(bool playing) {
    if (play_->isChecked() != playing) play_->setChecked(playing);
    play_->setText(playing ? QStringLiteral("⏸") : QStringLiteral("▶"));
    if (!playing) return timer_->stop();
    if (selection_->step() < 0 && !steps_.empty()) selection_->setStep(steps_.front());  // from the start
    timer_->start();
}

void ComparisonBar::advance() {
    const int next = slider_->value() + 1;
    if (next >= slider_->maximum()) {
        selection_->setStep(-1);
        setPlaying(false);
        return;
    }
    slider_->setValue(next);
}

}  // namespace ml
