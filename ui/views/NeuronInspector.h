#pragma once
// One neuron over time, over the whole run. Every snapshot of the chosen run goes into a bounded
// SnapshotArchive, whether or not a neuron is selected, so a neuron clicked late in (or after) a
// run shows its history from the start: setNeuron(layer, j) (layer = parameter layer, j = its
// row) replays the archive into the "Over steps" tab (NeuronHistoryPlot: momentum, gradient and
// weight of the incoming connections); later snapshots add points. For image data
// (setImageShape, first-layer neurons whose input count is height*width) the "As image" tab
// (NeuronImagePlot) shows the neuron's incoming weights and momentum as images.
//
// Public API
//   setRun(run)              only snapshots of this run are used (default 0); forgets the archive
//                            and reports the run change (SnapshotView: the router re-sends its latest)
//   setNeuron(layer, neuron) replots from the archive; (-1, -1) = nothing selected
//   setImageShape(shape)     invalid shape: no image tab
//   showSnapshot(s)          archived (and plotted) unless of another run or s.step is not past
//                            the last added one (re-delivered snapshots)
//   clear()                  forgets the archive and history (keeps run, neuron and image shape)
//   setHistoryCapacity(n)    at most n archived snapshots and plotted steps (forgets the archive)
//   archive(), history()     the archive and the step plots (for export and tests)
//   plot(), imagePlot()      the two tabs' plots
#include "model/SnapshotArchive.h"
#include "views/NeuronHistoryPlot.h"
#include "views/SnapshotView.h"

#include <QWidget>

class QTabWidget;

namespace ml {

class NeuronImagePlot;

class NeuronInspector : public QWidget, public SnapshotView {
    Q_OBJECT
public:
    explicit NeuronInspector(QWidget* parent = nullptr);

    void setRun(int run);
    int run() const { return run_; }
    void setNeuron(int layer, int neuron);
    int layer() const { return layer_; }
    int neuron() const { return neuron_; }
    void setImageShape(ImageShape shape);
    void setRuns(const QStringList&) override {}  // the run is chosen with setRun (MainWindow: the diagram's)
    void showSnapshot(const SharedSnapshot& snapshot) override;
    void clear() override;
    bool wantsEverySnapshot() const override { return true; }

    void setHistoryCapacity(int capacity);
    const SnapshotArchive& archive() const { return archive_; }
    const NeuronHistoryPlot& history() const { return *history_; }

    QCustomPlot* plot() const;
    QCustomPlot* imagePlot() const;

private:
    void replay();
    void updateImageTab();

    QTabWidget* tabs_ = nullptr;
    NeuronHistoryPlot* history_ = nullptr;
    NeuronImagePlot* images_ = nullptr;
    int run_ = 0;
    int layer_ = -1;
    int neuron_ = -1;
    SnapshotArchive archive_;  // the chosen run's snapshots, oldest first
};

}  // namespace ml
