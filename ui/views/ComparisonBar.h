#pragma once
// The controls of the shared RunSelection, in one toolbar above every matrix view:
//   Runs ▾      a menu of every run on screen (the current comparison's, then overlaid ones),
//               checked = shown; the button names the shown runs
//   side by side / A − B   how several runs are shown (A − B: the first two checked runs)
//   ▶ [slider] step N      the step scrubber: replays recorded snapshots in the diagram, the
//               heat-map and "As image"; the right end follows the latest snapshot ("live");
//               play steps through the recording (about 10 snapshots per second) up to live
#include "model/RunSelection.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QSlider;
class QTimer;
class QToolButton;

namespace ml {

class ComparisonBar : public QWidget {
    Q_OBJECT
public:
    explicit ComparisonBar(RunSelection* selection, QWidget* parent = nullptr);

    QSlider* scrubber() const { return slider_; }
    QToolButton* playButton() const { return play_; }
    QComboBox* modeBox() const { return mode_; }
    void setPlaying(bool playing);

private:
    void rebuildRunMenu();
    void syncScrubber();
    void scrubbed(int position);
    void advance();

    RunSelection* selection_;
    QToolButton* runs_;
    QComboBox* mode_;
    QToolButton* play_;
    QSlider* slider_;
    QLabel* stepLabel_;
    QTimer* timer_;
    std::vector<long> steps_;        // what the slider's positions stand for (the last + 1 = live)
    QStringList menuLabels_;         // the runs the menu's boxes were made for
    std::vector<QCheckBox*> boxes_;  // one per run, owned by the menu's entries
};

}  // namespace ml
