#pragma once
// The runs on screen, whether streaming from the trainer or read from a CLI run folder: their
// convergence history (for the plot) and their summary (for the table). One place feeds both,
// so the live app, a loaded folder and `momentum-lab-cli export` show the same figures.
#include "model/ComparisonHistory.h"
#include "model/MetricsHistory.h"
#include "model/RunSummaryModel.h"
#include "experiment/Experiment.h"
#include "runfolder/RunFolderReader.h"

#include <QObject>

namespace ml {

struct TrainingPlan;

class RunComparison : public QObject {
    Q_OBJECT
public:
    explicit RunComparison(QObject* parent = nullptr, int historyCapacity = MetricsHistory::kDefaultCapacity);

    const MetricsHistory& history() const { return history_; }
    RunSummaryModel* summary() { return &summary_; }
    const RunSummaryModel& summary() const { return summary_; }
    const Experiment& experiment() const { return experiment_; }
    QString source() const { return source_; }  // folder path, or empty for a live training

    void begin(const Experiment& experiment, const TrainingPlan& plan);
    void addMetrics(const std::vector<StepMetrics>& metrics);
    void finishRun(int run, const RunResult& result);
    void showFolder(const RunFolder& folder);
    // The comparison on screen as a record for the run history (its own runs, not the overlays).
    ComparisonRecord record() const;
    // Shows a kept comparison again (as after showFolder).
    void show(const ComparisonRecord& record);
    // Appends a kept comparison's runs to those on screen (labels "label #N"); live runs go on.
    void overlay(const ComparisonRecord& record);
    int ownRunCount() const { return ownRuns_; }  // runs of this comparison (the overlays follow)
    RunLook look(int run) const { return history_.look(run); }
    const std::vector<RunLook>& looks() const { return history_.looks(); }
    void clear();
    void setThreshold(double threshold);
    // The experiment was renamed, nothing else changed: titles and the report follow the name.
    void renameExperiment(const std::string& name);

    // CSV of one run (metrics.csv columns) and of the summary (summary.csv columns).
    QByteArray metricsCsv(int run) const;
    // The one name every export gives that CSV: "<name>.csv", the name being what names the run's
    // folder in a CLI run folder (runFileName in runfolder/RunFolderLayout.h).
    QString metricsCsvFileName(int run) const;
    QByteArray summaryCsv() const;
    // Per run, its key hyper-parameters for a figure's legend: "lr 0.01, momentum 0.9" (lr, and
    // every other hyper-parameter its optimizer reads that is not at its default).
    QStringList runDetails() const;

Q_SIGNALS:
    void changed();  // new data: views refresh

private:
    void setLooks(std::vector<RunLook> looks);
    MetricsHistory history_;
    RunSummaryModel summary_;
    Experiment experiment_;
    QString source_;
    int ownRuns_ = 0;
    std::vector<std::string> optimizers_;  // per run shown
};

}  // namespace ml
