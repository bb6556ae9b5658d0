#pragma once
// The training commands as QActions (toolbar, menu and shortcuts share them): start, pause /
// resume, single step, stop, reset. Their enabled state follows the TrainingSession's state.
//   Start F5 (Ctrl+Return)   Pause/Resume F6 (Ctrl+Space)   Step F10   Stop Shift+F5   Reset Ctrl+Shift+R
#include "session/TrainingSession.h"

#include <QObject>

class QAction;

namespace ml {

class TrainingActions : public QObject {
    Q_OBJECT
public:
    explicit TrainingActions(QObject* parent = nullptr);

    QAction* start() const { return start_; }
    QAction* pause() const { return pause_; }
    QAction* step() const { return step_; }
    QAction* stop() const { return stop_; }
    QAction* reset() const { return reset_; }
    QList<QAction*> all() const { return {start_, pause_, step_, stop_, reset_}; }

    void updateFor(SessionState state);
    static QString pauseText(bool paused);  // the pause action's text: "Pause", or "Resume" while paused

private:
    QAction* start_;
    QAction* pause_;
    QAction* step_;
    QAction* stop_;
    QAction* reset_;
};

}  // namespace ml
