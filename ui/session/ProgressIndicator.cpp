#include "session/ProgressIndicator.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>

#include <algorithm>

namespace ml {

namespace {

constexpr qint64 kRateWindowMs = 3000;

QString duration(double seconds) {
    const long s = static_cast<long>(seconds + 0.5);
    if (s >= 3600) return QString::asprintf("%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
    return QString::asprintf("%ld:%02ld", s / 60, s % 60);
}

}  // namespace

ProgressIndicator::ProgressIndicator(QWidget* parent)
    : QWidget(parent), bar_(new QProgressBar(this)), label_(new QLabel(this)) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    bar_->setFixedWidth(180);
    bar_->setRange(0, 1);
    bar_->setValue(0);
    bar_->setFormat(QString());
    bar_->setTextVisible(true);
    layout->addWidget(label_);
    layout->addWidget(bar_);
    bar_->hide();  // an empty bar before the first run reads as a stray text field
    clock_.start();
}

void ProgressIndicator::restart() {
    recent_.clear();
    rate_ = 0.0;
    step_ = totalSteps_ = 0;
    clock_.restart();
    bar_->setRange(0, 1);
    bar_->setValue(0);
    bar_->setFormat(QString());  // not the old "400 / 400"
    label_->clear();
}

void ProgressIndicator::setProgress(long step, long totalSteps) {
    if (step == step_ && totalSteps == totalSteps_ && step >= totalSteps) return;  // finished: keep the final text
    step_ = step;
    totalSteps_ = totalSteps;
    bar_->show();
    const qint64 now = clock_.elapsed();
    if (recent_.empty() || recent_.back().second != step || now - recent_.back().first > 500)
        recent_.emplace_back(now, step);
    while (recent_.size() > 2 && now - recent_.front().first > kRateWindowMs) recent_.pop_front();
    const double spanMs = recent_.size() > 1 ? double(recent_.back().first - recent_.front().first) : 0.0;
    rate_ = spanMs > 0 ? (recent_.back().second - recent_.front().second) * 1000.0 / spanMs : 0.0;

    // QProgressBar counts in int: scale very long trainings down.
    const long scale = totalSteps > 1000000 ? totalSteps / 1000000 + 1 : 1;
    bar_->setRange(0, static_cast<int>(std::max(1L, totalSteps / scale)));
    bar_->setValue(static_cast<int>(step / scale));
    bar_->setFormat(QString("%1 / %2").arg(step).arg(totalSteps));
    label_->setText(text());
}

void ProgressIndicator::setPaused(bool paused) {
    paused_ = paused;
    recent_.clear();
    rate_ = 0.0;
    label_->setText(text());
}

QString ProgressIndicator::barText() const { return bar_->text(); }

QString ProgressIndicator::text() const {
    if (paused_) return tr("paused at step %1").arg(step_);
    if (recent_.empty()) return {};
    QString text = tr("%1 steps/s").arg(rate_ >= 100 ? QString::number(rate_, 'f', 0) : QString::number(rate_, 'f', 1));
    if (step_ >= totalSteps_ && totalSteps_ > 0) {  // done: the average over the whole training
        const double seconds = std::max(1e-3, clock_.elapsed() / 1000.0);
        return tr("%1 steps in %2 s (%3 steps/s)").arg(step_).arg(seconds, 0, 'f', 1).arg(step_ / seconds, 0, 'f', 0);
    }
    if (rate_ > 0.0) text += tr("  ·  ETA %1").arg(duration(double(totalSteps_ - step_) / rate_));
    else text += tr("  ·  ETA –");
    return text;
}

}  // namespace ml
