#pragma once
// Training speed: a slider from 1 step/s to 10,000 steps/s on a log scale, its right end meaning
// "as fast as possible" (0). Emits speedChanged(stepsPerSecond) with 0 for unlimited.
#include <QWidget>

class QLabel;
class QSlider;

namespace ml {

class SpeedControl : public QWidget {
    Q_OBJECT
public:
    explicit SpeedControl(QWidget* parent = nullptr);
    double stepsPerSecond() const;

Q_SIGNALS:
    void speedChanged(double stepsPerSecond);

private:
    void showSpeed();
    QSlider* slider_;
    QLabel* label_;
};

}  // namespace ml
