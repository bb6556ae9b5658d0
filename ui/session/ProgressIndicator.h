#pragma once
// The status-bar progress: a bar (step / total steps), the measured speed and the remaining
// time, estimated from the speed over the last few seconds.
#include <QElapsedTimer>
#include <QWidget>

#include <deque>
#include <utility>

class QLabel;
class QProgressBar;

namespace ml {

class ProgressIndicator : public QWidget {
    Q_OBJECT
public:
    explicit ProgressIndicator(QWidget* parent = nullptr);

    void restart();
    void setProgress(long step, long totalSteps);
    // While paused no speed or ETA is shown, and the speed is measured afresh after resuming.
    void setPaused(bool paused);
    double stepsPerSecond() const { return rate_; }
    QString text() const;
    QString barText() const;  // "step / total", empty after restart()

private:
    QProgressBar* bar_;
    QLabel* label_;
    QElapsedTimer clock_;
    std::deque<std::pair<qint64, long>> recent_;  // (ms, step) over the last seconds
    double rate_ = 0.0;
    long step_ = 0;
    long totalSteps_ = 0;
    bool paused_ = false;
};

}  // namespace ml
