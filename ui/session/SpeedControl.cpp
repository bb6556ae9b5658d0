#include "session/SpeedControl.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>

#include <array>
#include <cmath>

namespace ml {

namespace {

constexpr std::array<double, 10> kMantissas = {1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0};
constexpr int kDecades = 4;                                                     // 1 .. 8000, then 10^4
constexpr int kUnlimited = static_cast<int>(kMantissas.size()) * kDecades + 1;  // the right end

double speedAt(int tick) {
    if (tick >= kUnlimited) return 0.0;
    const int perDecade = static_cast<int>(kMantissas.size());
    return kMantissas[static_cast<std::size_t>(tick % perDecade)] * std::pow(10.0, tick / perDecade);
}

int tickFor(double stepsPerSecond) {
    if (stepsPerSecond <= 0.0) return kUnlimited;
    for (int tick = 0; tick < kUnlimited; ++tick)
        if (speedAt(tick) >= stepsPerSecond * (1.0 - 1e-9)) return tick;
    return kUnlimited - 1;
}

}  // namespace

SpeedControl::SpeedControl(QWidget* parent)
    : QWidget(parent), slider_(new QSlider(Qt::Horizontal, this)), label_(new QLabel(this)) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 0, 4, 0);
    layout->addWidget(new QLabel(tr("Speed:"), this));
    slider_->setRange(0, kUnlimited);
    slider_->setPageStep(static_cast<int>(kMantissas.size()) / 2);
    slider_->setValue(tickFor(kDefaultStepsPerSecond));
    slider_->setFixedWidth(140);
    slider_->setToolTip(tr("Steps per second (log scale); right end: as fast as possible"));
    label_->setMinimumWidth(label_->fontMetrics().horizontalAdvance("10000 steps/s"));
    label_->setText(text());
    layout->addWidget(slider_);
    layout->addWidget(label_);
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Preferred);
    connect(slider_, &QSlider::valueChanged, this, [this] {
        label_->setText(text());
        Q_EMIT speedChanged(stepsPerSecond());
    });
}

double SpeedControl::stepsPerSecond() const { return speedAt(slider_->value()); }

void SpeedControl::setStepsPerSecond(double stepsPerSecond) { slider_->setValue(tickFor(stepsPerSecond)); }

QString SpeedControl::text() const {
    const double speed = stepsPerSecond();
    if (speed <= 0.0) return tr("max");
    return speed == 1.0 ? tr("1 step/s") : tr("%1 steps/s").arg(speed);
}

}  // namespace ml
