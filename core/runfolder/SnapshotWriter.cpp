#include "runfolder/SnapshotWriter.h"

#include "InputError.h"
#include "nn/Network.h"

#include <QLocale>

namespace ml {

namespace {

std::vector<std::pair<long, long>> layerShapes(const Parameters& parameters) {
    std::vector<std::pair<long, long>> shapes;
    for (const Matrix& layer : parameters) shapes.emplace_back(long(layer.rows()), long(layer.cols()));
    return shapes;
}

QString megabytes(double bytes) { return QLocale::c().toString(bytes / 1e6, 'f', 1) + " MB"; }

}  // namespace

long snapshotCount(long totalSteps, long every) { return totalSteps / every + (totalSteps % every != 0 ? 1 : 0); }

void checkSnapshotBudget(const LockstepTrainer& trainer, long every, std::uint64_t budgetMb) {
    const std::uint64_t perSnapshot = SnapshotFileWriter::recordBytesBound(layerShapes(trainer.initialParameters()));
    const std::uint64_t perStep = perSnapshot * std::uint64_t(trainer.runCount());
    const std::uint64_t budget = budgetMb * 1000000;
    const long total = trainer.totalSteps();
    if (perStep * std::uint64_t(snapshotCount(total, every)) <= budget) return;
    if (perStep > budget)
        throw InputError("--snapshots-max-mb " + std::to_string(budgetMb) + ": one snapshot of every run takes up to " +
                         megabytes(double(perStep)).toStdString() + "; expected a larger budget");
    // The smallest interval whose files fit: count(every) <= budget / perStep.
    const long fitting = long(budget / perStep);
    long smallest = (total + fitting - 1) / fitting;
    while (smallest < total && perStep * std::uint64_t(snapshotCount(total, smallest)) > budget) ++smallest;
    throw InputError("--snapshots-every " + std::to_string(every) + ": " + std::to_string(snapshotCount(total, every)) +
                     " snapshots of " + std::to_string(trainer.runCount()) + " run(s) could take " +
                     megabytes(double(perStep) * double(snapshotCount(total, every))).toStdString() +
                     ", more than the " + std::to_string(budgetMb) +
                     " MB budget (--snapshots-max-mb); expected --snapshots-every " + std::to_string(smallest) +
                     " or more");
}

SnapshotWriter::SnapshotWriter(const RunFolderLayout& layout, const LockstepTrainer& trainer, long every)
    : every_(every), lastStep_(trainer.totalSteps()) {
    const auto shapes = layerShapes(trainer.initialParameters());
    std::vector<long> columnsPerInput;
    for (const Eigen::Index c : Network(trainer.experiment().network).columnsPerInput())
        columnsPerInput.push_back(long(c));
    for (int run = 0; run < trainer.runCount(); ++run) {
        const MomentumAggregation& aggregation = trainer.optimizer(run).aggregation();
        const SnapshotFileHeader header{trainer.experiment().runs[run].label, shapes, aggregation.scope(),
                                        aggregation.bias(), columnsPerInput};
        files_.push_back(std::make_unique<SnapshotFileWriter>(layout.snapshotsFile(run), header));
    }
}

bool SnapshotWriter::wantsSnapshot(int, long step) { return step % every_ == 0 || step == lastStep_; }

void SnapshotWriter::snapshotTaken(const SharedSnapshot& snapshot) {
    if (wantsSnapshot(snapshot->run, snapshot->step)) files_[std::size_t(snapshot->run)]->append(*snapshot);
}

void SnapshotWriter::runFinished(int run, const RunResult&) { files_[run]->close(); }

}  // namespace ml
