#include "views/NeuronInspector.h"

#include "views/ChannelUnits.h"
#include "views/FeatureMapView.h"
#include "views/KernelImagePlot.h"
#include "views/NeuronImagePlot.h"
#include "model/Quantity.h"
#include "common/RedrawWhenShown.h"

#include <QCheckBox>
#include <QGuiApplication>
#include <QScreen>
#include <QToolButton>
#include <algorithm>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QSpinBox>
#include <QTabWidget>
#include <QVBoxLayout>

namespace ml {

namespace {
// Low enough that at 1366 x 768 the convergence plot keeps most of the height; taller strips
// scroll ("Strip height" sets them, the dock can be made taller).
const QSize kMinimumPlotSize(320, 200);
constexpr int kDefaultStripHeight = 80;  // pixels per strip
constexpr int kImageTab = 1;
constexpr int kKernelTab = 2;

// A plot in a scroll area: the plot keeps its minimum size (readable rows) and scrolls.
QScrollArea* scrollable(QWidget* plot, QWidget* parent) {
    auto* scroll = new QScrollArea(parent);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(plot);
    return scroll;
}
}  // namespace

NeuronInspector::NeuronInspector(RunSelection* selection, QWidget* parent) : QWidget(parent), selection_(selection) {
    tabs_ = new QTabWidget(this);
    auto* scroll = new QScrollArea(tabs_);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    history_ = new NeuronHistoryPlot(scroll);
    // The strips scroll vertically only: a long title or legend must not push them sideways
    // behind a scroll bar in a narrow dock (1366 x 768).
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    history_->setMinimumWidth(kMinimumPlotSize.width() / 2);
    scroll->setWidget(history_);
    images_ = new NeuronImagePlot;
    kernels_ = new KernelImagePlot;
    QScrollArea* imagesPage = scrollable(images_, tabs_);
    QScrollArea* kernelsPage = scrollable(kernels_, tabs_);
    featureMaps_ = new FeatureMapView(selection_, tabs_);
    // The tabs have one fixed minimum: the plots' own minimum grows with what they show (the
    // image tab's rows), which made the dock jump when the tab was switched; they scroll instead.
    for (QWidget* page : {static_cast<QWidget*>(scroll), static_cast<QWidget*>(imagesPage),
                          static_cast<QWidget*>(kernelsPage), static_cast<QWidget*>(featureMaps_)})
        page->setMinimumSize(kMinimumPlotSize);
    tabs_->addTab(scroll, tr("Over steps"));
    tabs_->addTab(imagesPage, tr("As image"));
    tabs_->addTab(kernelsPage, tr("Kernels"));
    tabs_->addTab(featureMaps_, tr("Feature maps"));
    for (int tab = 1; tab < tabs_->count(); ++tab) tabs_->setTabEnabled(tab, false);
    // Feature maps run the networks and may load the test data: only while their tab is shown.
    connect(tabs_, &QTabWidget::currentChanged, this, [this] {
        showFeatureMaps();
        updateOpenInWindow();
    });
    openInWindow_ = new QToolButton(this);
    openInWindow_->setText(tr("Open in its own window"));
    openInWindow_->setToolTip(tr("Show this tab in a separate window that can be made as large as the screen"));
    connect(openInWindow_, &QToolButton::clicked, this, &NeuronInspector::openInWindow);
    updateOpenInWindow();

    stripHeight_ = new QSpinBox(this);
    stripHeight_->setRange(60, 600);
    stripHeight_->setSingleStep(20);
    stripHeight_->setSuffix(tr(" px"));
    stripHeight_->setToolTip(
        tr("Height of each strip (momentum, gradient, weight); the plot scrolls when they do not fit"));
    robust_ = new QCheckBox(tr("robust y"), this);
    robust_->setChecked(true);
    robust_->setToolTip(
        tr("y-ranges leave out each series' first point and the outer 1 % of values (the first-step spike)"));
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Strip height"), this));
    bar->addWidget(stripHeight_);
    bar->addWidget(robust_);
    bar->addStretch();
    bar->addWidget(openInWindow_);  // in the bar, not beside the tabs: a narrow dock needs their width
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(tabs_, 1);
    connect(stripHeight_, &QSpinBox::valueChanged, this, &NeuronInspector::setStripHeight);
    connect(robust_, &QCheckBox::toggled, history_, &NeuronHistoryPlot::setRobustRange);
    stripHeight_->setValue(kDefaultStripHeight);

    connect(selection_, &RunSelection::selectionChanged, this, &NeuronInspector::replay);
    connect(selection_, &RunSelection::stepChanged, this, &NeuronInspector::showImages);
    // Hidden (behind the heat-map tab): nothing is drawn per snapshot; shown, the history is replayed.
    auto* hidden = new RedrawWhenShown(this, [this] { replay(); });
    connect(selection_, &RunSelection::snapshotsArrived, this, [this, hidden] {
        if (hidden->deferWhileHidden()) return;
        if (history_->plottedConnections().empty() && layer_ >= 0)
            return replay();  // the first snapshot with the neuron
        history_->appendNew();
        if (selection_->step() < 0) showImages();
    });
}

QCustomPlot* NeuronInspector::plot() const { return history_; }
QCustomPlot* NeuronInspector::imagePlot() const { return images_; }
NeuronImagePlot* NeuronInspector::imageWindow() const { return imageWindow_.data(); }
KernelImagePlot* NeuronInspector::kernelWindow() const { return kernelWindow_.data(); }

void NeuronInspector::setStripHeight(int pixels) {
    history_->setStripHeight(pixels);
    if (stripHeight_->value() != pixels) stripHeight_->setValue(pixels);
}

void NeuronInspector::setNeuron(int layer, int neuron) { setConnection(layer, neuron, -1); }

void NeuronInspector::setConnection(int layer, int neuron, int input) {
    layer_ = layer;
    neuron_ = neuron;
    column_ = layer < 0 || neuron < 0 ? -1 : input;
    for (NeuronImagePlot* plot : {images_, imageWindow_.data()})
        if (plot) plot->setNeuron(layer, neuron);
    for (KernelImagePlot* plot : {kernels_, kernelWindow_.data()})
        if (plot) plot->setChannel(layer, neuron);
    featureMaps_->setChannel(layer, neuron);
    updateImageTab();
    replay();
}

void NeuronInspector::setImageShape(ImageShape shape) {
    images_->setImageShape(shape);
    if (imageWindow_) imageWindow_->setImageShape(shape);
    history_->setImageShape(shape);
    updateImageTab();
}

void NeuronInspector::setExperiment(const Experiment& experiment) {
    featureMaps_->setExperiment(experiment);
    showFeatureMaps();
}

// The image tab is available for first-layer neurons of image data (sizes are checked per snapshot).
void NeuronInspector::updateImageTab() {
    tabs_->setTabEnabled(1, images_->imageShape().valid() && layer_ == 0 && neuron_ >= 0);
}

void NeuronInspector::setHistoryCapacity(int capacity) {
    history_->setHistoryCapacity(capacity);
    replay();
}

void NeuronInspector::replay() {
    std::vector<NeuronHistoryPlot::RunSource> runs;
    for (const int run : selection_->shown())
        runs.push_back({run, selection_->labels().value(run), selection_->store().archive(run), selection_->look(run)});
    history_->showNeuron(layer_, neuron_, column_, runs);
    showImages();
}

void NeuronInspector::showImages() {
    std::vector<NeuronImagePlot::Row> rows;
    if (layer_ == 0 && neuron_ >= 0) {
        for (const RunSelection::Panel& panel : selection_->panels()) {
            if (!panel.ready() || !images_->applies(*panel.snapshot, 0) ||
                neuron_ >= panel.snapshot->layers.front().parameters.rows())
                continue;
            const int pixels = images_->imageShape().height * images_->imageShape().width;
            auto rowOf = [&](Quantity quantity) {
                const Matrix values = RunSelection::values(panel, 0, quantity);
                return values.size() == 0 ? Vector() : Vector(values.row(neuron_).head(pixels).transpose());
            };
            rows.push_back({panel.caption, rowOf(Quantity::Weight), rowOf(Quantity::FirstMoment),
                            missingQuantityReason(*panel.snapshot)});
        }
    }
    showKernels();
    for (NeuronImagePlot* plot : {images_, imageWindow_.data()}) {
        if (!plot) continue;
        if (rows.empty()) plot->clearImages();
        else plot->showRows(rows);
    }
}

// The chosen channel's kernels, when the layer is a convolution (the tab is enabled only then).
void NeuronInspector::showKernels() {
    const std::vector<RunSelection::Panel> panels = selection_->panels();
    const auto first =
        std::find_if(panels.begin(), panels.end(), [](const RunSelection::Panel& p) { return p.ready(); });
    UnitLayer conv;
    if (first != panels.end() && layer_ >= 0 && layer_ < static_cast<int>(first->snapshot->layers.size()))
        conv = networkUnits(*first->snapshot, std::nullopt).layers[static_cast<std::size_t>(layer_)];
    const bool applies = conv.isConv() && neuron_ >= 0 && neuron_ < conv.outputs;
    tabs_->setTabEnabled(2, applies);
    tabs_->setTabEnabled(3, applies);
    showFeatureMaps();
    if (!applies) {
        for (KernelImagePlot* plot : {kernels_, kernelWindow_.data()})
            if (plot) plot->clearImages();
        return;
    }
    tabs_->setTabEnabled(1, false);  // a conv layer's inputs are no image of the data
    std::vector<KernelImagePlot::Column> columns;
    for (const RunSelection::Panel& panel : panels) {
        KernelImagePlot::Column column{panel.caption, {}};
        for (const Quantity quantity : KernelImagePlot::quantities()) {
            const Matrix values = panel.ready() ? RunSelection::values(panel, layer_, quantity) : Matrix();
            column.rows.push_back(values.rows() > neuron_ ? Matrix(values.row(neuron_)) : Matrix());
        }
        columns.push_back(std::move(column));
    }
    for (KernelImagePlot* plot : {kernels_, kernelWindow_.data()})
        if (plot) plot->showColumns(conv.kernel, conv.inputs, columns);
}

void NeuronInspector::updateOpenInWindow() {
    const int tab = tabs_->currentIndex();
    openInWindow_->setVisible(tab == kImageTab || tab == kKernelTab);
}

void NeuronInspector::openInWindow() {
    const int tab = tabs_->currentIndex();
    if (tab == kImageTab) {
        if (!imageWindow_) {
            imageWindow_ = new NeuronImagePlot;
            imageWindow_->setImageShape(images_->imageShape());
            imageWindow_->setNeuron(layer_, neuron_);
            showInWindow(imageWindow_, tr("Neuron inspector: as image"));
        }
        imageWindow_->window()->raise();
    } else if (tab == kKernelTab) {
        if (!kernelWindow_) {
            kernelWindow_ = new KernelImagePlot;
            kernelWindow_->setChannel(layer_, neuron_);
            showInWindow(kernelWindow_, tr("Neuron inspector: kernels"));
        }
        kernelWindow_->window()->raise();
    }
    showImages();  // fills the new window (and the tabs, unchanged)
}

// A separate top-level window (owned by the inspector, deleted when closed) holding `plot`, as
// large as the screen allows up to 1000 x 800.
QWidget* NeuronInspector::showInWindow(QWidget* plot, const QString& title) {
    auto* window = new QWidget(this, Qt::Window);
    window->setAttribute(Qt::WA_DeleteOnClose);
    window->setWindowTitle(title);
    auto* layout = new QVBoxLayout(window);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(scrollable(plot, window));
    QSize size(1000, 800);
    if (const QScreen* screen = this->screen() ? this->screen() : QGuiApplication::primaryScreen())
        size = size.boundedTo(screen->availableSize() * 0.9);
    window->resize(size);
    window->show();
    return window;
}

}  // namespace ml

namespace ml {

// Only while the tab is shown: the maps run every shown network and may load the test data.
void NeuronInspector::showFeatureMaps() {
    if (tabs_->currentWidget() == featureMaps_) featureMaps_->refresh();
}

}  // namespace ml
