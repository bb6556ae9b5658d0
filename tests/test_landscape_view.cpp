// The "Loss landscape" dock (ui/views/LandscapeView.h) on hand-made snapshots of two runs: the map
// has G x G cells, one trajectory curve per run through its recorded points, a marker per run that
// follows the step scrubber, and the slice between the two runs.
#include "views/LandscapeView.h"

#include "nn/FlatParameters.h"

#include <algorithm>

#include <QApplication>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>
#include <qcustomplot.h>

using namespace ml;

namespace {

Experiment sineExperiment() {
    Experiment e;
    e.network.setLayers("1-2-1");
    e.network.activation = Activation::Tanh;
    e.network.loss = LossKind::Mse;
    e.data = "toy:sine";
    return e;
}

// Run `run`'s weights after `step`: a start shared by both runs, moved along a direction of its own.
Snapshot snapshotAt(int run, long step) {
    Network network(sineExperiment().network);
    network.initializeGlorotUniform(3);
    Eigen::VectorXf flat(parameterCount(network.parameters()));
    flattenInto(network.parameters(), flat);
    for (Eigen::Index i = 0; i < flat.size(); ++i)
        flat[i] += 0.05f * float(step) * (run == 0 ? float(i % 3) : float((i * 5) % 7) - 3.0f);
    unflattenInto(flat, network.parameters());
    Snapshot snapshot;
    snapshot.run = run;
    snapshot.step = step;
    for (const Matrix& layer : network.parameters()) {
        LayerSnapshot weights;
        weights.parameters = layer;
        snapshot.layers.push_back(weights);
    }
    return snapshot;
}

QPointF markerPosition(const QCPCurve* marker) {
    const QCPCurveData& point = *marker->data()->constBegin();
    return {point.key, point.value};
}

QPointF curvePoint(const QCPCurve* curve, int index) {
    const QCPCurveData& point = *(curve->data()->constBegin() + index);
    return {point.key, point.value};
}

}  // namespace

class TestLandscapeView : public QObject {
    Q_OBJECT
private slots:
    void drawsTheGridTrajectoriesAndAMarkerThatFollowsTheStep() {
        RunSelection selection;
        selection.begin({"momentum", "neuron-mean"});
        for (long step = 1; step <= 5; ++step)
            selection.deliver(std::vector<Snapshot>{snapshotAt(0, step), snapshotAt(1, step)});
        LandscapeView view(&selection);
        view.resize(700, 600);
        view.setExperiment(sineExperiment());
        view.setGridSize(8);
        QSignalSpy computed(&view, &LandscapeView::computed);
        view.compute();
        QVERIFY(view.busy());
        // Training goes on while the landscape is computed: the picture keeps the points it had.
        selection.deliver(std::vector<Snapshot>{snapshotAt(0, 6), snapshotAt(1, 6)});
        QVERIFY(computed.wait(20000));
        QVERIFY(!view.busy());

        QCPColorMapData* cells = view.landscapePlot()->colorMap()->data();
        QCOMPARE(cells->keySize(), 8);
        QCOMPARE(cells->valueSize(), 8);
        QVERIFY(std::isfinite(cells->cell(3, 4)));
        const auto& curves = view.landscapePlot()->trajectories();
        QCOMPARE(curves.size(), std::size_t(2));
        QCOMPARE(curves[0]->dataCount(), 5);
        QCOMPARE(curves[1]->dataCount(), 5);
        QVERIFY(curvePoint(curves[0], 4) != curvePoint(curves[1], 4));

        const auto& markers = view.landscapePlot()->markers();
        QCOMPARE(markers.size(), std::size_t(2));
        QCOMPARE(markerPosition(markers[0]), curvePoint(curves[0], 4));  // live: the last computed point
        selection.setStep(2);
        QCOMPARE(markerPosition(markers[0]), curvePoint(curves[0], 1));
        QCOMPARE(markerPosition(markers[1]), curvePoint(curves[1], 1));
        selection.setStep(4);
        QCOMPARE(markerPosition(markers[0]), curvePoint(curves[0], 3));
        selection.setStep(6);  // after the computed points: the last of them
        QCOMPARE(markerPosition(markers[1]), curvePoint(curves[1], 4));

        QCOMPARE(view.slicePlot()->graph(0)->dataCount(), LossSlice::kDefaultPoints);
    }

    void cancelLeavesThePictureAlone() {
        RunSelection selection;
        selection.begin({"momentum"});
        for (long step = 1; step <= 3; ++step) selection.deliver(std::vector<Snapshot>{snapshotAt(0, step)});
        LandscapeView view(&selection);
        view.setExperiment(sineExperiment());
        view.setGridSize(200);
        QSignalSpy computed(&view, &LandscapeView::computed);
        view.compute();
        view.cancel();
        QVERIFY(computed.wait(20000));
        QVERIFY(view.landscapePlot()->trajectories().empty());
        QCOMPARE(view.statusText(), QString("Cancelled."));
    }

    // Once computed, showing other runs computes again for them; a change while computing cancels
    // that computation and starts one for the runs shown last.
    void recomputesWhenOtherRunsAreShown() {
        RunSelection selection;
        selection.begin({"a", "b", "c"});
        for (long step = 1; step <= 4; ++step)
            selection.deliver(std::vector<Snapshot>{snapshotAt(0, step), snapshotAt(1, step), snapshotAt(2, step)});
        selection.setShown({0, 1});
        LandscapeView view(&selection);
        view.setExperiment(sineExperiment());
        view.setGridSize(8);
        QSignalSpy computed(&view, &LandscapeView::computed);
        selection.setShown({0, 2});  // nothing asked for yet: nothing computed
        QVERIFY(!view.busy());
        // An idle view wakes nothing up: the worker's mailbox polls only while a worker runs.
        const auto activeTimers = [&] {
            const QList<QTimer*> timers = view.findChildren<QTimer*>();
            return std::count_if(timers.begin(), timers.end(), [](const QTimer* t) { return t->isActive(); });
        };
        QCOMPARE(activeTimers(), 0);
        view.compute();
        QVERIFY(activeTimers() > 0);
        QVERIFY(computed.wait(20000));
        QVERIFY(view.hasResult());
        QCOMPARE(activeTimers(), 0);
        selection.setShown({1, 2});
        QVERIFY(view.busy());
        selection.setShown({0, 1});  // cancels, then computes for a and b
        QVERIFY(computed.wait(20000));
        QVERIFY(!view.busy());
        QCOMPARE(computed.count(), 2);  // the cancelled one is not shown
        QVERIFY(view.hasResult());
        QVERIFY2(view.statusText().contains("grid"), qPrintable(view.statusText()));
        QCOMPARE(view.landscapePlot()->trajectories().size(), std::size_t(2));
        QCOMPARE(view.landscapePlot()->trajectories()[1]->name(), QString("b"));
    }

    void refusesRunsWithoutRecordedWeights() {
        RunSelection selection;
        selection.begin({"momentum"});
        LandscapeView view(&selection);
        view.setExperiment(sineExperiment());
        QSignalSpy computed(&view, &LandscapeView::computed);
        view.compute();
        QCOMPARE(computed.count(), 1);
        QVERIFY(!view.busy());
        QVERIFY2(view.statusText().contains("No recorded weights"), qPrintable(view.statusText()));
    }
};

QTEST_MAIN(TestLandscapeView)
#include "test_landscape_view.moc"
