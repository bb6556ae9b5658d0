#pragma once
// The life of the comparison on screen, apart from the widgets that show it: what a Start waits for
// (its plan), what a fork waits for (the paused training's stop), whether the views show the
// session's own training, which kept comparison is on screen, whether the form still describes the
// results, and what the state line says. MainWindow asks it and acts on the answers; the rules are
// tested without a window (tests/test_comparison_controller.cpp).
#include "experiment/Experiment.h"
#include "session/SessionState.h"

#include <optional>
#include <vector>

namespace ml {

// "Fork here": which run branches into which runs, and until which step.
struct PendingFork {
    int run = 0;
    std::vector<RunSpec> branches;
    long untilStep = 0;
};

// What the state line says (MainWindow words it).
enum class StateLine { Ready, Finished, Stopped, ShowingPrevious, Training, Paused, Stopping };

class ComparisonController {
public:
    // Start / single step: the screen changes once the training's plan arrives, so a start the
    // worker refuses (a missing data file) leaves the screen as it was.
    void startRequested(const Experiment& experiment) { pendingStart_ = experiment; }
    void startRefused() { pendingStart_.reset(); }
    // The plan arrived: the experiment the screen starts over with, if a start was waiting.
    std::optional<Experiment> takePendingStart();

    // The screen starts over with another comparison: nothing of the previous one applies.
    void startedOver();
    // The session's training is on screen; returns the kept record to overlay beside it (0: none).
    int planShown();
    bool liveOnScreen() const { return liveOnScreen_; }

    // Stop: a busy training that stops reads "Stopped", not "Finished".
    void stopRequested(bool busy) { stopped_ = busy; }

    // Fork here: returns true when the paused training must stop first (its worker hands over
    // every run's state as it ends): the fork is kept and due once the session has finished.
    // False: the training has ended already, and the caller launches the fork at once.
    bool forkRequested(PendingFork fork, SessionState state);
    std::optional<PendingFork> forkDue(SessionState state);
    bool forkPending() const { return pendingFork_.has_value(); }
    // The fork starts: its plan overlays the comparison it came from, the newest kept record
    // (the screen was kept as it started over).
    void forkLaunched(int newestKeptRecord);

    // The run history: the comparison on screen is kept once; a kept record shown again unchanged
    // is not kept a second time.
    bool needsKeeping(bool showingResults) const { return showingResults && shownRecord_ == 0; }
    void showingKept(int record) { shownRecord_ = record; }
    int shownRecord() const { return shownRecord_; }

    // The form was edited while results are on screen: they are the previous experiment's unless
    // the form still describes them (a new name alone does).
    void formEdited(bool describesResults) { resultsArePrevious_ = !describesResults; }
    bool resultsArePrevious() const { return resultsArePrevious_; }

    StateLine stateLine(SessionState state) const;

private:
    std::optional<Experiment> pendingStart_;
    std::optional<PendingFork> pendingFork_;
    int overlayAfterPlan_ = 0;  // a kept record to overlay once the next plan arrives
    bool liveOnScreen_ = false;
    int shownRecord_ = 0;  // the kept record on screen, unchanged (0: none)
    bool resultsArePrevious_ = false;
    bool stopped_ = false;
};

}  // namespace ml
