#include "session/SpeedControl.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>

#include <cmath>

namespace ml {

namespace {
constexpr int kTicksPerDecade = 10;
constexpr int kDecades = 4;                                 // 1 .. 10^4 steps/s
constexpr int kUnlimited = kTicksPerDecade * kDecades + 1;  // the right end
}  // namespace

SpeedControl::SpeedControl(QWidget* parent)
    : QWidget(parent), slider_(new QSlider(Qt::Horizontal, this)), label_(new QLabel(this)) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 0, 4, 0);
    layout->addWidget(new QLabel(tr("Speed:"), this));
    slider_->setRange(0, kUnlimited);
    slider_->setValue(kUnlimited);
    slider_->setFixedWidth(140);
    slider_->setToolTip(tr("Steps per second (log scale); right end: as fast as possible"));
    label_->setMinimumWidth(label_->fontMetrics().horizontalAdvance("10000 steps/s"));
    layout->addWidget(slider_);
    layout->addWidget(label_);
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Preferred);
    connect(slider_, &QSlider::valueChanged, this, [this] {
        showSpeed();
        Q_EMIT speedChanged(stepsPerSecond());
    });
    showSpeed();
}

double SpeedControl::stepsPerSecond() const {
    if (slider_->value() >= kUnlimited) return 0.0;
    return std::round(std::pow(10.0, slider_->value() / double(kTicksPerDecade)));
}

void SpeedControl::showSpeed() {
    const double speed = stepsPerSecond();
    label_->setText(speed <= 0.0 ? tr("max") : tr("%1 steps/s").arg(speed));
}

}  // namespace ml
