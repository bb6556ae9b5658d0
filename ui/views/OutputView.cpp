#include "views/OutputView.h"

#include "InputError.h"
#include "common/RedrawWhenShown.h"
#include "landscape/Trajectory.h"
#include "model/RunPalette.h"
#include "views/DivergingColorScale.h"
#include "views/ViewRegistry.h"

#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

namespace ml {

namespace {

// Class colours: the first two as diagram-network playgrounds draw them (orange, blue), then
// the usual categorical ones.
QColor classColor(int index) {
    static const std::array<QColor, 10> colours{
        QColor(0xf5, 0x93, 0x22), QColor(0x08, 0x77, 0xbd), QColor(0x2c, 0xa0, 0x2c), QColor(0xd6, 0x27, 0x28),
        QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b), QColor(0xe3, 0x77, 0xc2), QColor(0x7f, 0x7f, 0x7f),
        QColor(0xbc, 0xbd, 0x22), QColor(0x17, 0xbe, 0xcf)};
    return colours[static_cast<std::size_t>(index) % colours.size()];
}

QColor towardsWhite(const QColor& colour, double white) {
    const auto mix = [white](int c) { return int(std::lround(c + (255 - c) * white)); };
    return QColor(mix(colour.red()), mix(colour.green()), mix(colour.blue()));
}

// Values c + shade (classShades): class c's colour, from pale (unsure) to strong (sure).
QCPColorGradient classGradient(int classes) {
    QMap<double, QColor> stops;
    for (int c = 0; c < classes; ++c) {
        stops[double(c) / classes] = towardsWhite(classColor(c), 0.85);
        stops[(c + 0.995) / classes] = towardsWhite(classColor(c), 0.3);
    }
    QCPColorGradient gradient;
    gradient.setColorStops(stops);
    gradient.setLevelCount(std::max(350, 120 * classes));
    return gradient;
}

// The first `count` samples of `data` (all of them when it has fewer).
void takeFirst(const Dataset* data, Eigen::Index count, Batch& batch) {
    std::vector<Eigen::Index> indices(static_cast<std::size_t>(data ? std::min(count, data->size()) : 0));
    std::iota(indices.begin(), indices.end(), Eigen::Index{0});
    if (data) data->gather(indices, batch);
}

QCPGraph* pointGraph(QCPAxisRect* rect, const QString& name, const QCPScatterStyle& style) {
    auto* graph = new QCPGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    graph->setName(name);
    graph->setLineStyle(QCPGraph::lsNone);
    graph->setScatterStyle(style);
    // The marks' colour (a filled mark has no outline: drawing outlines doubled a redraw's time).
    graph->setPen(style.pen().style() == Qt::NoPen ? QPen(style.brush().color()) : style.pen());
    return graph;
}

// The title: what the colours or the curves are, and the marks of the data points.
QString titleOf(bool twoInputs, bool classification, bool difference) {
    const auto tr = [](const char* text) { return OutputView::tr(text); };
    if (!twoInputs) return difference ? tr("A − B of the fitted curves") : tr("Fitted curve  ● train  ○ test");
    if (!classification)
        return difference ? tr("A − B of the predicted value  ● train  ○ test")
                          : tr("Predicted value  ● train  ○ test");
    return difference ? tr("A − B: probability of A's predicted class  ● train  ○ test")
                      : tr("Decision regions (paler: less sure)  ● train  ○ test  ✕ wrong (train + test)");
}

}  // namespace

OutputView::OutputView(RunSelection* selection, QWidget* parent)
    : QWidget(parent), selection_(selection), plot_(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    plot_->plotLayout()->clear();
    title_ = new QCPTextElement(plot_, QString(), QFont(font().family(), font().pointSize(), QFont::Bold));
    plot_->plotLayout()->addElement(0, 0, title_);
    // The plot covers the whole view: whether it can be seen decides.
    auto* redraw = new RedrawWhenShown(plot_, [this] { refresh(); });
    connect(selection_, &RunSelection::selectionChanged, redraw, &RedrawWhenShown::request);
    connect(selection_, &RunSelection::stepChanged, redraw, &RedrawWhenShown::request);
    connect(selection_, &RunSelection::snapshotsArrived, redraw, [this, redraw] {
        if (selection_->step() < 0) redraw->request();  // live: the latest snapshots
    });
    showMessage(tr("No run yet."));
}

void OutputView::setExperiment(const Experiment& experiment) {
    experiment_ = experiment;
    prepared_ = false;
    failure_.clear();
    grid_.reset();
    rebuild(0, false);
}

void OutputView::setGridSize(int size) {
    gridSize_ = std::max(2, size);
    prepared_ = false;
    grid_.reset();
    rebuild(0, false);
}

int OutputView::classCount() const { return grid_->classification() ? experiment_.network.outputs() : 1; }

// The grid and the data points, the first time the experiment is drawn; failure_ says why not.
QString OutputView::cannotDraw() {
    prepare();
    return failure_;
}

bool OutputView::prepare() {
    if (prepared_) return failure_.isEmpty();
    prepared_ = true;
    failure_.clear();
    const NetworkSpec& network = experiment_.network;
    const int inputs = network.inputs();
    if (experiment_.recorded.asBlocks) {
        failure_ = tr("a recorded model's layers are not one network the output view can evaluate");
        return false;
    }
    if (inputs != 1 && inputs != 2) {
        failure_ = tr("the network %1 has %2 inputs; the output view draws networks of 1 or 2 inputs")
                       .arg(QString::fromStdString(network.text()))
                       .arg(inputs);
        return false;
    }
    if (inputs == 1 && network.loss == LossKind::CrossEntropy) {
        failure_ = tr("the network %1 classifies 1 input; the output view draws a fit for 1 input (mse loss)")
                       .arg(QString::fromStdString(network.text()));
        return false;
    }
    try {
        const DataSplit data = loadExperimentData(experiment_);
        if (data.train && data.train->inputDim() != inputs)
            throw InputError("the data " + experiment_.data + " have " + std::to_string(data.train->inputDim()) +
                             " values per example; the network reads " + std::to_string(inputs));
        grid_ = std::make_unique<OutputGrid>(network, inputRangeOf({data.train.get(), data.test.get()}), gridSize_);
        takeFirst(data.train.get(), kMaxPointsShown, train_.samples);
        takeFirst(data.test.get(), kMaxPointsShown, test_.samples);
        train_.first = grid_->addPoints(train_.samples.inputs);
        test_.first = grid_->addPoints(test_.samples.inputs);
    } catch (const std::exception& error) {
        failure_ = tr("cannot draw the network's output: %1").arg(QString::fromUtf8(error.what()));
        grid_.reset();
    }
    return failure_.isEmpty();
}

// Layout: title; [one axis rect per panel | the colour scale (two inputs)].
void OutputView::rebuild(int columns, bool difference) {
    if (columns == columnCount() && difference == drawnAsDifference_ && (columns == 0 || grid_)) return;
    plot_->clearPlottables();
    plot_->plotLayout()->clear();
    panels_.clear();
    scale_ = nullptr;
    drawnAsDifference_ = difference;
    title_ = new QCPTextElement(plot_, QString(), QFont(font().family(), font().pointSize(), QFont::Bold));
    plot_->plotLayout()->addElement(0, 0, title_);
    if (columns == 0 || !grid_) return;
    auto* body = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(1, 0, body);
    const bool two = grid_->inputs() == 2;
    const int classes = classCount();
    const bool classification = grid_->classification();
    if (two) {
        scale_ = new QCPColorScale(plot_);
        scale_->setBarWidth(8);
        body->addElement(0, columns, scale_);
        if (classification && !difference) {
            auto ticker = QSharedPointer<QCPAxisTickerText>::create();
            for (int c = 0; c < classes; ++c) ticker->addTick(c + 0.5, tr("class %1").arg(c));
            scale_->axis()->setTicker(ticker);
            scale_->setLabel(tr("predicted class"));
        } else
            scale_->setLabel(difference ? (classification ? tr("A − B: probability of A's class") : tr("A − B: output"))
                                        : tr("predicted value"));
    }
    const InputRange& range = grid_->range();
    for (int c = 0; c < columns; ++c) {
        PanelPlots plots;
        plots.rect = new QCPAxisRect(plot_);
        body->addElement(0, c, plots.rect);
        plots.rect->axis(QCPAxis::atBottom)->setRange(range.low[0], range.high[0]);
        for (QCPAxis* axis : {plots.rect->axis(QCPAxis::atBottom), plots.rect->axis(QCPAxis::atLeft)})
            axis->ticker()->setTickCount(columns > 2 ? 3 : 5);
        plots.rect->axis(QCPAxis::atLeft)->setTickLabels(c == 0);  // one value range for every panel
        if (two) {
            plots.rect->axis(QCPAxis::atLeft)->setRange(range.low[1], range.high[1]);
            plots.map = new QCPColorMap(plots.rect->axis(QCPAxis::atBottom), plots.rect->axis(QCPAxis::atLeft));
            plots.map->setName(tr("output %1").arg(c + 1));
            plots.map->setInterpolate(false);
            plots.map->data()->setSize(grid_->size(), grid_->size());
            plots.map->data()->setRange(QCPRange(range.low[0], range.high[0]), QCPRange(range.low[1], range.high[1]));
            plots.map->setColorScale(scale_);
        }
        for (int k = 0; k < classes; ++k) {
            const QColor colour = classification ? classColor(k) : QColor(90, 90, 90);
            const QString kind = classification ? tr(" class %1").arg(k) : QString();
            const double size = (classification ? 6 : 4.5) * (columns > 2 ? 0.7 : 1.0);  // narrow panels: smaller
            plots.train.push_back(pointGraph(
                plots.rect, tr("train%1 %2").arg(kind).arg(c + 1),
                QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(Qt::NoPen), QBrush(colour.darker(140)), size)));
            plots.test.push_back(
                pointGraph(plots.rect, tr("test%1 %2").arg(kind).arg(c + 1),
                           QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(colour, 1.5), Qt::white, size)));
        }
        if (!two) {  // over the data points
            plots.curve = new QCPGraph(plots.rect->axis(QCPAxis::atBottom), plots.rect->axis(QCPAxis::atLeft));
            plots.curve->setName(tr("fit %1").arg(c + 1));
        }
        if (classification)
            plots.crosses = pointGraph(
                plots.rect, tr("misclassified %1").arg(c + 1),
                QCPScatterStyle(QCPScatterStyle::ssCross, QPen(Qt::black, 1.6), Qt::NoBrush, columns > 2 ? 7 : 9));
        panels_.push_back(plots);
    }
    if (two && !(classification && !difference)) applyDivergingScale(scale_, DivergingColorScale());
    else if (two) {
        scale_->setGradient(classGradient(classes));
        scale_->setDataRange(QCPRange(0, classes));
    }
}

void OutputView::showMessage(const QString& text) {
    message_ = text;
    rebuild(0, false);
    title_->setText(text);
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void OutputView::drawPoints(PanelPlots& plots, const Eigen::VectorXi* predictedTrain,
                            const Eigen::VectorXi* predictedTest) {
    const bool two = grid_->inputs() == 2;
    const bool classification = grid_->classification();
    QVector<double> crossX, crossY;
    const auto draw = [&](const Batch& samples, const std::vector<QCPGraph*>& graphs,
                          const Eigen::VectorXi* predicted) {
        int wrong = 0;
        std::vector<QVector<double>> xs(graphs.size()), ys(graphs.size());
        for (Eigen::Index i = 0; i < samples.size(); ++i) {
            const std::size_t k = classification ? static_cast<std::size_t>(samples.labels(i)) : 0;
            if (k >= graphs.size()) continue;
            const double x = samples.inputs(i, 0);
            const double y = two ? double(samples.inputs(i, 1)) : double(samples.targets(i, 0));
            xs[k].push_back(x);
            ys[k].push_back(y);
            if (predicted && (*predicted)(i) != samples.labels(i)) {
                crossX.push_back(x);
                crossY.push_back(y);
                ++wrong;
            }
        }
        for (std::size_t k = 0; k < graphs.size(); ++k) graphs[k]->setData(xs[k], ys[k]);
        return wrong;
    };
    plots.wrongTrain = draw(train_.samples, plots.train, predictedTrain);
    plots.wrongTest = draw(test_.samples, plots.test, predictedTest);
    if (plots.crosses) plots.crosses->setData(crossX, crossY);
}

void OutputView::drawPanel(PanelPlots& plots, const RunSelection::Panel& panel, double& largest) {
    const bool two = grid_->inputs() == 2;
    const bool classification = grid_->classification();
    const bool difference = panel.minusSnapshot != nullptr;
    bool drawn = false;
    Eigen::VectorXi predictedTrain, predictedTest;
    if (panel.ready()) {
        const Parameters weights = snapshotWeights(*panel.snapshot);
        drawn = !weights.empty() && grid_->compute(weights, outputs_);
        if (drawn && classification && !difference) {
            predictedTrain = predictedClasses(outputs_.middleRows(train_.first, train_.samples.size()));
            predictedTest = predictedClasses(outputs_.middleRows(test_.first, test_.samples.size()));
        }
        if (drawn && difference) {
            const Parameters minus = snapshotWeights(*panel.minusSnapshot);
            drawn = !minus.empty() && grid_->compute(minus, minusOutputs_);
        }
    }
    // The grid's rows only (the data points follow them).
    const Eigen::Index n = grid_->gridPoints();
    Eigen::VectorXf values;
    if (drawn && !difference)
        values = classification ? classShades(outputs_.topRows(n)) : Eigen::VectorXf(outputs_.col(0).head(n));
    else if (drawn && classification) {  // the probability of A's predicted class, A − B
        const Eigen::VectorXi classes = predictedClasses(outputs_.topRows(n));
        values.resize(n);
        for (Eigen::Index i = 0; i < n; ++i) values(i) = outputs_(i, classes(i)) - minusOutputs_(i, classes(i));
    } else if (drawn) values = outputs_.col(0).head(n) - minusOutputs_.col(0).head(n);
    if (drawn && (difference || !classification)) largest = std::max(largest, double(values.cwiseAbs().maxCoeff()));

    if (two) {
        QCPColorMapData* data = plots.map->data();
        if (!drawn) data->fill(NAN);
        else
            for (int r = 0; r < grid_->size(); ++r)
                for (int c = 0; c < grid_->size(); ++c) data->setCell(c, r, values(grid_->pointIndex(c, r)));
    } else {
        QVector<double> xs(grid_->size()), ys(grid_->size());
        for (int c = 0; c < grid_->size(); ++c) {
            xs[c] = grid_->coordinate(0, c);
            ys[c] = drawn ? double(values(c)) : NAN;
        }
        plots.curve->setData(xs, ys, true);
        plots.curve->setPen(QPen(difference ? QColor(60, 60, 60) : runColor(selection_->look(panel.run)), 2.2));
    }
    // A − B of a fit is not drawn over the targets; the decision regions keep their points.
    const bool pointsShown = two || !difference;
    for (QCPGraph* graph : plots.train) graph->setVisible(pointsShown);
    for (QCPGraph* graph : plots.test) graph->setVisible(pointsShown);
    drawPoints(plots, predictedTrain.size() ? &predictedTrain : nullptr,
               predictedTest.size() ? &predictedTest : nullptr);

    QString caption = panel.caption;
    caption.replace(QStringLiteral(" · "), QStringLiteral("\n"));
    if (!panel.ready()) caption += tr(" (no snapshot)");
    else if (!drawn) caption += tr(" (another network)");
    else if (predictedTrain.size()) caption += tr("\n%1 + %2 wrong").arg(plots.wrongTrain).arg(plots.wrongTest);
    plots.rect->axis(QCPAxis::atBottom)->setLabel(caption);
}

void OutputView::refresh() {
    if (!prepare()) return showMessage(failure_);
    const std::vector<RunSelection::Panel> panels = selection_->panels();
    if (panels.empty()) return showMessage(tr("No run shown."));
    const bool difference = selection_->isDifference();
    rebuild(static_cast<int>(panels.size()), difference);
    message_.clear();
    double largest = 0.0;
    for (std::size_t c = 0; c < panels.size(); ++c) drawPanel(panels_[c], panels[c], largest);

    const bool two = grid_->inputs() == 2;
    const bool classification = grid_->classification();
    if (two && (difference || !classification)) {
        DivergingColorScale scale;
        scale.fitToMaximum(largest);
        applyDivergingScale(scale_, scale);
    }
    if (!two) {  // one value range for every panel: the targets and every curve
        double low = INFINITY, high = -INFINITY;
        for (const PanelPlots& plots : panels_)
            for (QCPGraph* graph : plots.rect->graphs()) {
                if (!graph->visible()) continue;
                bool found = false;
                const QCPRange range = graph->getValueRange(found);
                if (found) low = std::min(low, range.lower), high = std::max(high, range.upper);
            }
        if (low <= high) {
            const double pad = high > low ? 0.08 * (high - low) : 1.0;
            for (const PanelPlots& plots : panels_) plots.rect->axis(QCPAxis::atLeft)->setRange(low - pad, high + pad);
        }
    }
    title_->setText(titleOf(two, classification, difference));
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

namespace {

class OutputEntry : public View {
public:
    explicit OutputEntry(const ViewContext& context) : view_(new OutputView(context.selection)), context_(context) {}
    QWidget* widget() const override { return view_; }
    void startOver(const Experiment& next, bool) override { view_->setExperiment(next); }
    std::vector<std::string> openFolder(const RunFolder& folder, bool) override {
        view_->setExperiment(folder.experiment);
        return {};
    }
    std::vector<ViewFigure> figures() const override {
        view_->refresh();
        // A network the view cannot draw says so before any snapshot is missing.
        QString reason = view_->cannotDraw();
        if (reason.isEmpty()) reason = noSnapshotReason(context_);
        if (reason.isEmpty()) reason = view_->message();
        return {{"network-output", OutputView::tr("Network output"), view_->plot(), {}, reason}};
    }

private:
    OutputView* view_;
    ViewContext context_;
};

}  // namespace

ViewRegistration outputView() {
    return {"network-output", OutputView::tr("Network output"),
            DockPlace{.objectName = "outputDock",
                      .area = Qt::RightDockWidgetArea,
                      .join = DockPlace::Join::Tab,
                      .beside = "network-diagram",
                      .hidden = true},
            [](const ViewContext& context) { return std::make_unique<OutputEntry>(context); }};
}

}  // namespace ml
