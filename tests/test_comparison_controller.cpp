// The comparison's life on screen without a window: starts that wait for their plan, forks that
// wait for the paused training to stop, the run history's keeping rule and the state line.
#include "session/ComparisonController.h"

#include <QTest>

namespace {

ml::Experiment experimentNamed(const std::string& name) {
    ml::Experiment experiment;
    experiment.name = name;
    return experiment;
}

}  // namespace

class TestComparisonController : public QObject {
    Q_OBJECT
private slots:
    void aStartChangesTheScreenOnlyWhenItsPlanArrives() {
        ml::ComparisonController controller;
        controller.startRequested(experimentNamed("next"));
        QVERIFY(!controller.liveOnScreen());
        const std::optional<ml::Experiment> start = controller.takePendingStart();
        QVERIFY(start.has_value());
        QCOMPARE(start->name, std::string("next"));
        QVERIFY(!controller.takePendingStart().has_value());  // taken once
        controller.startedOver();
        QCOMPARE(controller.planShown(), 0);
        QVERIFY(controller.liveOnScreen());
    }

    void aRefusedStartLeavesTheScreenAsItWas() {
        ml::ComparisonController controller;
        controller.startedOver();
        controller.planShown();
        controller.startRequested(experimentNamed("missing data"));
        controller.startRefused();
        QVERIFY(!controller.takePendingStart().has_value());
        QVERIFY(controller.liveOnScreen());
    }

    void aForkOfAPausedTrainingWaitsForItsStop() {
        ml::ComparisonController controller;
        ml::PendingFork fork;
        fork.run = 1;
        fork.untilStep = 40;
        QVERIFY(controller.forkRequested(fork, ml::SessionState::Paused));  // stop first
        QVERIFY(controller.forkPending());
        QVERIFY(!controller.forkDue(ml::SessionState::Stopping).has_value());
        const std::optional<ml::PendingFork> due = controller.forkDue(ml::SessionState::Finished);
        QVERIFY(due.has_value());
        QCOMPARE(due->run, 1);
        QCOMPARE(due->untilStep, 40L);
        QVERIFY(!controller.forkPending());
        QVERIFY(!controller.forkDue(ml::SessionState::Finished).has_value());  // launched once
    }

    void aForkOfAFinishedTrainingStartsAtOnce() {
        ml::ComparisonController controller;
        QVERIFY(!controller.forkRequested(ml::PendingFork{}, ml::SessionState::Finished));
        QVERIFY(!controller.forkPending());  // not launched a second time when a later training ends
        QVERIFY(!controller.forkDue(ml::SessionState::Finished).has_value());
    }

    void aForkOverlaysTheComparisonItCameFrom() {
        ml::ComparisonController controller;
        controller.startedOver();
        controller.forkLaunched(7);  // the screen was kept as record 7 when it started over
        QCOMPARE(controller.shownRecord(), 0);
        QCOMPARE(controller.planShown(), 7);
        QCOMPARE(controller.planShown(), 0);  // overlaid once
    }

    void theComparisonOnScreenIsKeptOnce() {
        ml::ComparisonController controller;
        QVERIFY(!controller.needsKeeping(false));  // nothing on screen
        QVERIFY(controller.needsKeeping(true));
        controller.showingKept(3);
        QVERIFY(!controller.needsKeeping(true));  // shown again unchanged: already kept
        controller.startedOver();
        QVERIFY(controller.needsKeeping(true));
    }

    void theStateLineFollowsStopAndEdits() {
        ml::ComparisonController controller;
        QCOMPARE(controller.stateLine(ml::SessionState::Idle), ml::StateLine::Ready);
        QCOMPARE(controller.stateLine(ml::SessionState::Running), ml::StateLine::Training);
        QCOMPARE(controller.stateLine(ml::SessionState::Finished), ml::StateLine::Finished);
        controller.stopRequested(true);
        QCOMPARE(controller.stateLine(ml::SessionState::Stopping), ml::StateLine::Stopping);
        QCOMPARE(controller.stateLine(ml::SessionState::Finished), ml::StateLine::Stopped);
        controller.formEdited(false);
        QVERIFY(controller.resultsArePrevious());
        QCOMPARE(controller.stateLine(ml::SessionState::Finished), ml::StateLine::ShowingPrevious);
        controller.formEdited(true);  // renamed only: the results are still the form's
        QCOMPARE(controller.stateLine(ml::SessionState::Finished), ml::StateLine::Stopped);
        controller.startedOver();
        QCOMPARE(controller.stateLine(ml::SessionState::Finished), ml::StateLine::Finished);
        QCOMPARE(controller.stateLine(ml::SessionState::Paused), ml::StateLine::Paused);
    }
};

QTEST_GUILESS_MAIN(TestComparisonController)
#include "test_comparison_controller.moc"
