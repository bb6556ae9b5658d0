#include "views/NeuronInspector.h"

#include "views/NeuronImagePlot.h"

#include <QTabWidget>
#include <QVBoxLayout>

namespace ml {

namespace {
const QSize kMinimumPlotSize(320, 300);  // three readable strips of "Over steps"
}  // namespace

NeuronInspector::NeuronInspector(QWidget* parent) : QWidget(parent) {
    tabs_ = new QTabWidget(this);
    history_ = new NeuronHistoryPlot(tabs_);
    images_ = new NeuronImagePlot(tabs_);
    // Both tabs have one fixed minimum: the plots' own minimum grows with what they show (the
    // image tab's colour scales), which made the dock jump when the tab was switched.
    for (QWidget* plot : {static_cast<QWidget*>(history_), static_cast<QWidget*>(images_)}) plot->setMinimumSize(kMinimumPlotSize);
    tabs_->addTab(history_, tr("Over steps"));
    tabs_->addTab(images_, tr("As image"));
    tabs_->setTabEnabled(1, false);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(tabs_);
}

QCustomPlot* NeuronInspector::plot() const { return history_; }
QCustomPlot* NeuronInspector::imagePlot() const { return images_; }

void NeuronInspector::setRun(int run) {
    if (run == run_) return;
    run_ = run;
    clear();
    reportRunChanged(run);
}

void NeuronInspector::setNeuron(int layer, int neuron) {
    layer_ = layer;
    neuron_ = neuron;
    images_->setNeuron(layer, neuron);
    updateImageTab();
    replay();
}

void NeuronInspector::setImageShape(ImageShape shape) {
    images_->setImageShape(shape);
    updateImageTab();
}

// The image tab is available for first-layer neurons of image data (sizes are checked per snapshot).
void NeuronInspector::updateImageTab() { tabs_->setTabEnabled(1, images_->imageShape().valid() && layer_ == 0 && neuron_ >= 0); }

void NeuronInspector::setHistoryCapacity(int capacity) {
    history_->setHistoryCapacity(capacity);
    archive_ = SnapshotArchive(capacity);
    replay();
}

void NeuronInspector::clear() {
    archive_.clear();
    replay();
}

void NeuronInspector::showSnapshot(const SharedSnapshot& shared) {
    const Snapshot& snapshot = *shared;  // the archive keeps its own slimmed copy
    if (snapshot.run != run_) return;
    const SnapshotArchive::Offer offer = archive_.offer(snapshot);
    if (offer == SnapshotArchive::Offer::Repeat) return;
    const bool selected = hasNeuron(snapshot, layer_, neuron_);
    if (selected && images_->applies(snapshot, layer_)) images_->showImages(snapshot, neuron_);  // always the newest
    switch (offer) {
    case SnapshotArchive::Offer::Thinned: return replay();
    case SnapshotArchive::Offer::Appended:
        if (!selected) return;
        if (history_->plottedConnections().empty()) return replay();  // the first snapshot with the neuron
        return history_->append(archive_.snapshots().back());
    default: return;
    }
}

void NeuronInspector::replay() {
    const Snapshot* latest = history_->showNeuron(layer_, neuron_, archive_.snapshots());
    images_->clearImages();
    if (latest && images_->applies(*latest, layer_)) images_->showImages(*latest, neuron_);
}

}  // namespace ml
