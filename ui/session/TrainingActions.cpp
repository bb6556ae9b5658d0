#include "session/TrainingActions.h"

#include <QAction>
#include <QStyle>
#include <QApplication>

namespace ml {

namespace {

QAction* makeAction(QObject* parent, const QString& text, QStyle::StandardPixmap icon, const QList<QKeySequence>& keys,
                    const QString& tip) {
    auto* action = new QAction(QApplication::style()->standardIcon(icon), text, parent);
    action->setShortcuts(keys);
    action->setToolTip(QStringLiteral("%1 (%2)").arg(tip, keys.front().toString(QKeySequence::NativeText)));
    return action;
}

}  // namespace

TrainingActions::TrainingActions(QObject* parent)
    : QObject(parent),
      start_(makeAction(this, tr("&Start"), QStyle::SP_MediaPlay, {Qt::Key_F5, QKeySequence(Qt::CTRL | Qt::Key_Return)},
                        tr("Train all runs of the experiment"))),
      pause_(makeAction(this, tr("&Pause"), QStyle::SP_MediaPause, {Qt::Key_F6, QKeySequence(Qt::CTRL | Qt::Key_Space)},
                        tr("Pause or resume training"))),
      step_(makeAction(this, tr("S&ingle step"), QStyle::SP_MediaSeekForward, {Qt::Key_F10},
                       tr("One step of every run (starts paused when idle)"))),
      stop_(makeAction(this, tr("S&top"), QStyle::SP_MediaStop, {QKeySequence(Qt::SHIFT | Qt::Key_F5)},
                       tr("Stop training; results so far are kept"))),
      reset_(makeAction(this, tr("&Reset"), QStyle::SP_BrowserReload, {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R)},
                        tr("Stop and clear all plots and views"))) {
    pause_->setCheckable(true);
    updateFor(SessionState::Idle);
}

QString TrainingActions::pauseText(bool paused) { return paused ? tr("Resu&me") : tr("&Pause"); }

void TrainingActions::updateFor(SessionState state) {
    const bool training = state == SessionState::Running || state == SessionState::Paused;
    start_->setEnabled(state == SessionState::Idle || state == SessionState::Finished);
    pause_->setEnabled(training);
    pause_->setChecked(state == SessionState::Paused);
    pause_->setText(pauseText(state == SessionState::Paused));
    step_->setEnabled(state != SessionState::Stopping);
    stop_->setEnabled(training);
    reset_->setEnabled(state != SessionState::Idle);
}

}  // namespace ml
