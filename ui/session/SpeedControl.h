#pragma once
// Training speed: a slider over "nice" speeds from 1 to 10,000 steps/s (1, 1.2, 1.5, 2, 2.5, 3,
// 4, 5, 6, 8 per decade, so neighbours differ by at most a third), its right end meaning "as
// fast as possible" (0). It opens on kDefaultStepsPerSecond, at which the seed experiment (2000
// steps) takes about four seconds: slow enough to watch it converge. Emits
// speedChanged(stepsPerSecond) with 0 for unlimited.
#include <QWidget>

class QLabel;
class QSlider;

namespace ml {

inline constexpr double kDefaultStepsPerSecond = 500.0;

class SpeedControl : public QWidget {
    Q_OBJECT
public:
    explicit SpeedControl(QWidget* parent = nullptr);
    double stepsPerSecond() const;
    // The nearest speed on the slider at or above `stepsPerSecond`; 0 = as fast as possible.
    void setStepsPerSecond(double stepsPerSecond);
    QString text() const;  // what the label shows: "1 step/s", "2.5 steps/s", "max"

Q_SIGNALS:
    void speedChanged(double stepsPerSecond);

private:
    QSlider* slider_;
    QLabel* label_;
};

}  // namespace ml
