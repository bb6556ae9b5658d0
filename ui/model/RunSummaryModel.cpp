#include "model/RunSummaryModel.h"

#include "model/RunPalette.h"

#include <QBrush>
#include <QColor>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ml {

namespace {

QVariant number(double value) {
    if (!std::isfinite(value)) return QStringLiteral("–");
    return QString::number(value, 'g', 4);
}

// A training time as people read it: "0.4 ms", "12 ms", "3.4 s", "2 min 05 s", "1 h 02 min" (runs of
// a few milliseconds showed "0.00" in seconds).
QString readableDuration(double milliseconds) {
    if (!std::isfinite(milliseconds) || milliseconds < 0) return QStringLiteral("–");
    if (milliseconds < 9.95) return QString::number(milliseconds, 'f', 1) + QStringLiteral(" ms");
    if (std::lround(milliseconds) < 1000) return QString::number(std::lround(milliseconds)) + QStringLiteral(" ms");
    const long tenths = std::lround(milliseconds / 100.0);
    if (tenths < 600) return QString::number(tenths / 10.0, 'f', 1) + QStringLiteral(" s");
    const long seconds = std::lround(milliseconds / 1000.0);
    if (seconds < 3600)
        return QStringLiteral("%1 min %2 s").arg(seconds / 60).arg(seconds % 60, 2, 10, QLatin1Char('0'));
    const long minutes = std::lround(milliseconds / 60000.0);
    return QStringLiteral("%1 h %2 min").arg(minutes / 60).arg(minutes % 60, 2, 10, QLatin1Char('0'));
}

}  // namespace

RunSummaryModel::RunSummaryModel(QObject* parent) : QAbstractTableModel(parent) {}

void RunSummaryModel::reset(const std::vector<std::string>& labels, const std::vector<std::string>& optimizers,
                            Criterion criterion) {
    beginResetModel();
    criterion_ = criterion;
    rows_.clear();
    for (std::size_t i = 0; i < labels.size(); ++i) {
        Row row;
        row.optimizer = i < optimizers.size() ? optimizers[i] : std::string();
        row.result.label = labels[i];
        rows_.push_back(row);
    }
    looks_ = ownLooks(static_cast<int>(rows_.size()));
    endResetModel();
}

void RunSummaryModel::addMetrics(const std::vector<StepMetrics>& metrics) {
    if (metrics.empty()) return;
    for (const StepMetrics& m : metrics) {
        if (m.run < 0 || m.run >= static_cast<int>(rows_.size())) continue;
        Row& row = rows_[static_cast<std::size_t>(m.run)];
        row.result.status = RunStatus::Running;
        row.result.steps = m.step;
        row.result.wallMs = m.wallMs;
        row.lastBatchLoss = m.trainLoss;
        if (row.stepsToThreshold < 0 && reached(m)) row.stepsToThreshold = m.step;
        if (!std::isnan(m.fullTrainLoss)) row.result.finalTrainLoss = m.fullTrainLoss;
        if (m.evaluated()) {
            row.result.finalTestLoss = m.testLoss;
            row.result.finalTestAccuracy = m.testAccuracy;
        }
    }
    Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

void RunSummaryModel::finishRun(int run, const RunResult& result) {
    if (run < 0 || run >= static_cast<int>(rows_.size())) return;
    Row& row = rows_[static_cast<std::size_t>(run)];
    const float lastTrainLoss = row.result.finalTrainLoss;
    row.result = result;
    if (std::isnan(row.result.finalTrainLoss)) row.result.finalTrainLoss = lastTrainLoss;
    Q_EMIT dataChanged(index(run, 0), index(run, ColumnCount - 1));
}

bool RunSummaryModel::reached(const StepMetrics& m) const {
    if (criterion_ == Criterion::TrainLossAtMost) return m.trainLoss <= threshold();
    return m.evaluated() && m.testAccuracy >= threshold();
}

void RunSummaryModel::setThreshold(double threshold, const MetricsHistory& history) {
    thresholds_[static_cast<std::size_t>(criterion_)] = threshold;
    const bool loss = criterion_ == Criterion::TrainLossAtMost;
    for (int run = 0; run < static_cast<int>(rows_.size()) && run < history.runCount(); ++run) {
        Row& row = rows_[static_cast<std::size_t>(run)];
        row.stepsToThreshold = -1;
        const DecimatingHistory& track =
            history.track(run, loss ? MetricsHistory::Track::Train : MetricsHistory::Track::Evaluation);
        const QVector<double>& values = track.series(loss ? MetricsHistory::kTrainLoss : MetricsHistory::kTestAccuracy);
        for (int i = 0; i < track.size(); ++i) {
            if (loss ? values[i] <= threshold : values[i] >= threshold) {
                row.stepsToThreshold = static_cast<long>(track.steps()[i]);
                break;
            }
        }
    }
    Q_EMIT headerDataChanged(Qt::Horizontal, StepsToThreshold, StepsToThreshold);
    if (!rows_.empty()) Q_EMIT dataChanged(index(0, StepsToThreshold), index(rowCount() - 1, StepsToThreshold));
}

// A label names its optimizer when it is the optimizer's name, a kept run of it ("momentum #2") or
// a fork's branch into it ("momentum@500→neuron-mean").
bool RunSummaryModel::optimizersMatchLabels() const {
    return std::all_of(rows_.begin(), rows_.end(), [](const Row& row) {
        if (row.optimizer.empty()) return true;
        std::string label = row.result.label;
        if (const auto kept = label.rfind(" #"); kept != std::string::npos) label.resize(kept);
        if (const auto branch = label.rfind("→"); branch != std::string::npos)
            label = label.substr(branch + std::string("→").size());
        return row.optimizer == label;
    });
}

int RunSummaryModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int RunSummaryModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant RunSummaryModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= static_cast<int>(rows_.size())) return {};
    const Row& row = rows_[static_cast<std::size_t>(index.row())];
    const RunResult& r = row.result;
    if (role == Qt::DecorationRole && index.column() == Run) return swatch(index.row());
    if (role == Qt::ToolTipRole) {
        if (index.column() == Run)
            return tr("%1 · optimizer %2").arg(QString::fromStdString(r.label), QString::fromStdString(row.optimizer));
        if (index.column() == StepsToThreshold && row.stepsToThreshold < 0) return tr("Threshold not reached");
        if (index.column() == Status) return QString::fromStdString(r.statusText());
        return {};
    }
    if (role == Qt::ForegroundRole && index.column() == Status && r.status == RunStatus::Diverged)
        return QBrush(QColor(200, 0, 0));
    if (role == Qt::TextAlignmentRole && index.column() != Run && index.column() != Optimizer &&
        index.column() != Status)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == SortRole) return sortValue(index);
    if (role != Qt::DisplayRole) return {};
    switch (static_cast<Column>(index.column())) {
    case Run: return QString::fromStdString(r.label);
    case Optimizer: return QString::fromStdString(row.optimizer);
    case TrainLoss: return number(std::isnan(r.finalTrainLoss) ? row.lastBatchLoss : r.finalTrainLoss);
    case TestLoss: return number(r.finalTestLoss);
    case TestAccuracy:
        return std::isfinite(r.finalTestAccuracy) ? QString::number(100.0 * r.finalTestAccuracy, 'f', 1) + " %"
                                                  : QStringLiteral("–");
    case StepsToThreshold:
        return row.stepsToThreshold < 0 ? QStringLiteral("–") : QString::number(row.stepsToThreshold);
    case Steps: return QString::number(r.steps);
    case Time: return readableDuration(r.wallMs);
    case Status: return QString::fromStdString(r.statusText());
    case ColumnCount: break;
    }
    return {};
}

void RunSummaryModel::setLooks(std::vector<RunLook> looks) {
    looks_ = std::move(looks);
    if (!rows_.empty())
        Q_EMIT dataChanged(index(0, Run), index(static_cast<int>(rows_.size()) - 1, Run), {Qt::DecorationRole});
}

QIcon RunSummaryModel::swatch(int row) const {
    const RunLook look = row < static_cast<int>(looks_.size()) ? looks_[static_cast<std::size_t>(row)] : RunLook{row};
    auto [at, added] = swatches_.try_emplace({look.slot, look.kept});
    if (added) at->second = runSwatch(look);
    return at->second;
}

QVariant RunSummaryModel::sortValue(const QModelIndex& index) const {
    const Row& row = rows_[static_cast<std::size_t>(index.row())];
    const RunResult& r = row.result;
    auto orLast = [](double value) { return std::isfinite(value) ? value : std::numeric_limits<double>::infinity(); };
    switch (static_cast<Column>(index.column())) {
    case TrainLoss: return orLast(std::isnan(r.finalTrainLoss) ? row.lastBatchLoss : r.finalTrainLoss);
    case TestLoss: return orLast(r.finalTestLoss);
    case TestAccuracy: return orLast(r.finalTestAccuracy);
    case StepsToThreshold:
        return row.stepsToThreshold < 0 ? std::numeric_limits<double>::infinity() : double(row.stepsToThreshold);
    case Steps: return double(r.steps);
    case Time: return r.wallMs;
    default: return data(index, Qt::DisplayRole);  // text columns
    }
}

QVariant RunSummaryModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Optimizer: return tr("Optimizer (hidden while every run is named after its optimizer)");
        case TrainLoss:
            return tr("Train loss: over the whole training set at the last evaluation (batch loss before any)");
        case TestLoss: return tr("Test loss");
        case TestAccuracy: return tr("Test accuracy");
        case StepsToThreshold:
            if (criterion_ == Criterion::TestAccuracyAtLeast)
                return tr("Steps to test accuracy ≥ %1: first evaluation at or above the threshold (– = not reached)")
                    .arg(threshold(), 0, 'g', 4);
            return tr("Steps to loss ≤ %1: first step whose training batch loss was at or below the threshold (– = not reached)")
                .arg(threshold(), 0, 'g', 4);
        case Time: return tr("Training time: the run's own, evaluations excluded");
        default: return {};
        }
    }
    if (role != Qt::DisplayRole) return {};
    switch (static_cast<Column>(section)) {
    case Run: return tr("Run");
    case Optimizer: return tr("Optimizer");
    case TrainLoss: return tr("Train\nloss");  // two short lines keep the table narrow (tooltips say more)
    case TestLoss: return tr("Test\nloss");
    case TestAccuracy: return tr("Test\nacc.");
    case StepsToThreshold:
        if (criterion_ == Criterion::TestAccuracyAtLeast) return tr("Steps to\nacc. ≥ %1").arg(threshold(), 0, 'g', 4);
        return tr("Steps to\n≤ %1").arg(threshold(), 0, 'g', 4);
    case Steps: return tr("Steps");
    case Time: return tr("Time");
    case Status: return tr("Status");
    case ColumnCount: break;
    }
    return {};
}

}  // namespace ml
