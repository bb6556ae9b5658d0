#pragma once
// The summary table: one row per run with its final figures, the steps it needed to reach a
// user-set threshold, its training time and status. The threshold fits the loss: regression
// (MSE) counts the steps until the training batch loss is <= the threshold (default 0.01);
// classification (cross-entropy, whose loss rarely gets that low) the steps until the test
// accuracy is >= the threshold (default 0.9), at evaluations.
// Fed live (addMetrics / finishRun) or from a run folder. The threshold crossing is found at
// full resolution while metrics stream in; after setThreshold() it is recomputed from the
// MetricsHistory, i.e. exact up to its capacity (200,000 points per run), then to its stride.
// Headers are short (two lines) so the table fits a narrow dock; their tooltips spell them out.
// The Run cell's tooltip names the optimizer; optimizersMatchLabels() tells the panel that the
// Optimizer column would only repeat the labels. "–" in Steps to threshold = not reached.
#include "model/MetricsHistory.h"
#include "model/RunPalette.h"
#include "train/Snapshot.h"

#include <array>

#include <QAbstractTableModel>
#include <QIcon>

#include <map>
#include <string>
#include <vector>

namespace ml {

class RunSummaryModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Run,
        Optimizer,
        TrainLoss,
        TestLoss,
        TestAccuracy,
        StepsToThreshold,
        Steps,
        Time,
        Status,
        ColumnCount
    };
    // The value a column sorts by: numbers as numbers, a missing value ("–") after every number.
    static constexpr int SortRole = Qt::UserRole;

    explicit RunSummaryModel(QObject* parent = nullptr);

    enum class Criterion { TrainLossAtMost, TestAccuracyAtLeast };
    void reset(const std::vector<std::string>& labels, const std::vector<std::string>& optimizers,
               Criterion criterion = Criterion::TrainLossAtMost);
    Criterion criterion() const { return criterion_; }
    void addMetrics(const std::vector<StepMetrics>& metrics);
    void finishRun(int run, const RunResult& result);
    void setThreshold(double threshold, const MetricsHistory& history);
    double threshold() const { return thresholds_[static_cast<std::size_t>(criterion_)]; }
    bool optimizersMatchLabels() const;
    // The swatch of each row (reset: each row its own colour slot).
    void setLooks(std::vector<RunLook> looks);

    // The run's figures as a RunResult (summary.csv form); stepsToThreshold: -1 = not reached.
    const RunResult& result(int run) const { return rows_.at(static_cast<std::size_t>(run)).result; }
    long stepsToThreshold(int run) const { return rows_.at(static_cast<std::size_t>(run)).stepsToThreshold; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        std::string optimizer;
        RunResult result;
        float lastBatchLoss = NAN;
        long stepsToThreshold = -1;
    };
    QVariant sortValue(const QModelIndex& index) const;
    QIcon swatch(int row) const;  // the run's colour (one QIcon per look for the model's life)

    std::vector<Row> rows_;
    std::vector<RunLook> looks_;
    mutable std::map<std::pair<int, bool>, QIcon> swatches_;
    bool reached(const StepMetrics& m) const;
    Criterion criterion_ = Criterion::TrainLossAtMost;
    std::array<double, 2> thresholds_ = {0.01, 0.9};  // per Criterion
};

}  // namespace ml
