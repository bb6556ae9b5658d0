#pragma once
// One neuron (or one connection) over time, for every run the shared RunSelection shows. The
// histories come from the selection's archives, which record EVERY run of the comparison from
// its first snapshot, so a neuron clicked late, a run switched after training, or a past
// comparison overlaid all show their whole history. "Over steps" (NeuronHistoryPlot) overlays
// the runs; for image data (setImageShape, first-layer neurons whose input count is
// height*width) "As image" (NeuronImagePlot) shows one row per panel at the selection's step.
// Strips are as tall as the "strip height" box says (the plot scrolls when they do not fit);
// "robust y" leaves the first-step spike out of the y-ranges (default on). For a channel of a
// conv layer, "Kernels" (KernelImagePlot) shows its kernels as small images, per quantity and panel,
// and "Feature maps" (FeatureMapView) what the channel makes of a chosen test image. The image
// tabs scroll when their rows do not fit (a docked inspector is short), and "Open in its own
// window" (above the tabs, shown for "As image" and "Kernels") shows the current one in a separate
// resizable window that follows the inspector (neuron, step, runs) until it is closed.
//
// Public API
//   setNeuron(layer, neuron) the neuron's incoming connections; (-1, -1) = nothing selected
//   setConnection(layer, neuron, input)  follows one connection (input = column; bias = inputs)
//   layer(), neuron(), connection() (-1: the whole neuron)
//   setImageShape(shape)     invalid shape: no image tab
//   setExperiment(e)         the network and data of the comparison on screen (feature maps)
//   setHistoryCapacity(n)    at most n plotted steps per run
//   openInWindow()           the current image tab in its own window (raised when already open)
//   history(), plot(), imagePlot(), images(), kernels(), featureMaps(), openInWindowButton(),
//   imageWindow(), kernelWindow() (the plots of the open windows, or null)
#include "data/Dataset.h"
#include "experiment/Experiment.h"
#include "views/NeuronHistoryPlot.h"
#include "model/RunSelection.h"

#include <QPointer>
#include <QWidget>

class QCheckBox;
class QToolButton;
class QSpinBox;
class QTabWidget;

namespace ml {

class FeatureMapView;
class KernelImagePlot;
class NeuronImagePlot;

class NeuronInspector : public QWidget {
    Q_OBJECT
public:
    explicit NeuronInspector(RunSelection* selection, QWidget* parent = nullptr);

    void setNeuron(int layer, int neuron);
    void setConnection(int layer, int neuron, int input);
    int layer() const { return layer_; }
    int neuron() const { return neuron_; }
    int connection() const { return column_; }
    void setImageShape(ImageShape shape);
    void setExperiment(const Experiment& experiment);
    void setHistoryCapacity(int capacity);
    void setStripHeight(int pixels);

    const NeuronHistoryPlot& history() const { return *history_; }
    QCustomPlot* plot() const;
    QCustomPlot* imagePlot() const;
    NeuronImagePlot* images() const { return images_; }
    KernelImagePlot* kernels() const { return kernels_; }
    FeatureMapView* featureMaps() const { return featureMaps_; }
    QTabWidget* tabs() const { return tabs_; }
    QToolButton* openInWindowButton() const { return openInWindow_; }
    NeuronImagePlot* imageWindow() const;
    KernelImagePlot* kernelWindow() const;
    void openInWindow();

private:
    void replay();
    void showImages();
    void showKernels();
    void showFeatureMaps();
    void updateImageTab();
    void updateOpenInWindow();
    QWidget* showInWindow(QWidget* plot, const QString& title);

    RunSelection* selection_;
    QTabWidget* tabs_ = nullptr;
    NeuronHistoryPlot* history_ = nullptr;
    NeuronImagePlot* images_ = nullptr;
    KernelImagePlot* kernels_ = nullptr;
    FeatureMapView* featureMaps_ = nullptr;
    QSpinBox* stripHeight_ = nullptr;
    QCheckBox* robust_ = nullptr;
    QToolButton* openInWindow_ = nullptr;
    QPointer<NeuronImagePlot> imageWindow_;  // the plots of the separate windows (gone when closed)
    QPointer<KernelImagePlot> kernelWindow_;
    int layer_ = -1;
    int neuron_ = -1;
    int column_ = -1;
};

}  // namespace ml
