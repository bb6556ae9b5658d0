#include "model/RunSelection.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace ml {

RunSelection::RunSelection(QObject* parent) : QObject(parent) {}

void RunSelection::begin(const QStringList& labels) {
    labels_ = labels;
    currentRuns_ = static_cast<int>(labels.size());
    store_.reset(currentRuns_);
    shown_.clear();
    for (int run = 0; run < std::min<int>(kDefaultShown, currentRuns_); ++run) shown_.push_back(run);
    step_ = -1;
    Q_EMIT selectionChanged();
    Q_EMIT stepChanged();
}

void RunSelection::begin(const QStringList& labels, const std::vector<RunSnapshots::ArchivePtr>& archives) {
    begin(labels);
    store_.reset(0);
    store_.append(archives);
    Q_EMIT selectionChanged();
}

void RunSelection::addRuns(const QStringList& labels, const std::vector<RunSnapshots::ArchivePtr>& archives) {
    const int first = store_.append(archives);
    labels_ += labels;
    // Shown up to the default count, as a new comparison's runs are (Compare ticks the rest): six
    // small multiples made the docked heat-map wider than a 1366 px window could give it.
    for (int k = 0; k < static_cast<int>(labels.size()) && static_cast<int>(shown_.size()) < kDefaultShown; ++k)
        shown_.push_back(first + k);
    Q_EMIT selectionChanged();
}

void RunSelection::deliver(const std::vector<Snapshot>& snapshots) {
    std::vector<SharedSnapshot> shared;
    for (const Snapshot& snapshot : snapshots) shared.push_back(std::make_shared<const Snapshot>(snapshot));
    deliver(shared);
}

void RunSelection::deliver(const std::vector<SharedSnapshot>& snapshots) {
    std::set<int> runs;
    for (const SharedSnapshot& snapshot : snapshots) {
        if (snapshot->run >= currentRuns_) continue;  // not a run of the current comparison
        if (store_.offer(snapshot->run, snapshot) != SnapshotArchive::Offer::Repeat) runs.insert(snapshot->run);
    }
    if (!runs.empty()) Q_EMIT snapshotsArrived({runs.begin(), runs.end()});
}

void RunSelection::setLooks(std::vector<RunLook> looks) {
    const auto same = [](RunLook a, RunLook b) { return a.slot == b.slot && a.kept == b.kept; };
    if (std::equal(looks.begin(), looks.end(), looks_.begin(), looks_.end(), same)) return;
    looks_ = std::move(looks);
    Q_EMIT selectionChanged();  // the views redraw in the runs' colours
}

void RunSelection::clear() {
    labels_.clear();
    currentRuns_ = 0;
    store_.reset(0);
    shown_.clear();
    step_ = -1;
    Q_EMIT selectionChanged();
    Q_EMIT stepChanged();
}

void RunSelection::setShown(std::vector<int> runs) {
    runs.erase(std::remove_if(runs.begin(), runs.end(), [this](int run) { return run < 0 || run >= labels_.size(); }),
               runs.end());
    if (runs == shown_) return;
    shown_ = std::move(runs);
    Q_EMIT selectionChanged();
}

void RunSelection::setRunShown(int run, bool shown) {
    std::vector<int> runs = shown_;
    const auto found = std::find(runs.begin(), runs.end(), run);
    if (shown && found == runs.end()) {
        runs.push_back(run);
        std::sort(runs.begin(), runs.end());
    } else if (!shown && found != runs.end()) {
        runs.erase(found);
    }
    setShown(std::move(runs));
}

void RunSelection::setMode(Mode mode) {
    if (mode == mode_) return;
    mode_ = mode;
    Q_EMIT selectionChanged();
}

void RunSelection::setStep(long step) {
    if (step == step_) return;
    step_ = step;
    Q_EMIT stepChanged();
}

std::vector<RunSelection::Panel> RunSelection::panels() const {
    auto label = [this](int run) { return labels_.value(run); };
    auto stepText = [](const SharedSnapshot& s) { return s ? QStringLiteral(" · step %1").arg(s->step) : QString(); };
    std::vector<Panel> panels;
    if (isDifference()) {
        Panel panel;
        panel.run = shown_[0];
        panel.minus = shown_[1];
        panel.snapshot = store_.at(panel.run, step_);
        panel.minusSnapshot = store_.at(panel.minus, step_);
        panel.caption = QStringLiteral("%1 − %2%3").arg(label(panel.run), label(panel.minus), stepText(panel.snapshot));
        panels.push_back(panel);
        return panels;
    }
    for (const int run : shown_) {
        Panel panel;
        panel.run = run;
        panel.snapshot = store_.at(run, step_);
        panel.caption = label(run) + stepText(panel.snapshot);
        panels.push_back(panel);
    }
    return panels;
}

Matrix RunSelection::values(const Panel& panel, int layer, Quantity quantity) {
    if (!panel.ready()) return {};
    Matrix a = extractQuantity(*panel.snapshot, layer, quantity);
    if (panel.minus < 0) return a;
    const Matrix b = extractQuantity(*panel.minusSnapshot, layer, quantity);
    if (a.size() == 0 || b.rows() != a.rows() || b.cols() != a.cols()) return {};
    return a - b;
}

bool RunSelection::keeps(const Panel& panel, Quantity quantity) {
    if (!panel.ready() || !keepsQuantity(*panel.snapshot, quantity)) return false;
    if (panel.minus < 0) return true;
    // values() subtracts only matrices of one shape; every quantity has its layer's parameters' shape.
    const auto shape = [](const Snapshot& s) {
        return s.layers.empty() ? std::pair<Eigen::Index, Eigen::Index>()
                                : std::pair{s.layers[0].parameters.rows(), s.layers[0].parameters.cols()};
    };
    return keepsQuantity(*panel.minusSnapshot, quantity) && shape(*panel.snapshot) == shape(*panel.minusSnapshot);
}

// Asked on every delivery: decided from the snapshots' matrices being there (keepsQuantity),
// never by extracting the quantities (10 matrices of 784 x 129 per panel for MNIST).
std::vector<Quantity> RunSelection::availableQuantities() const {
    std::vector<Quantity> kept;
    const std::vector<Panel> shownPanels = panels();
    const bool none = std::none_of(shownPanels.begin(), shownPanels.end(), [](const Panel& p) { return p.ready(); });
    for (const Quantity quantity : allQuantities())
        if (none || std::any_of(shownPanels.begin(), shownPanels.end(),
                                [quantity](const Panel& p) { return keeps(p, quantity); }))
            kept.push_back(quantity);
    return kept;
}

double maxAbs(const Matrix& values) {
    double maximum = 0.0;
    for (Eigen::Index k = 0; k < values.size(); ++k) {
        const double v = std::abs(static_cast<double>(values.data()[k]));
        if (std::isfinite(v)) maximum = std::max(maximum, v);
    }
    return maximum;
}

}  // namespace ml
