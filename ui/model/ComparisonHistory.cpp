#include "model/ComparisonHistory.h"

namespace ml {

QString ComparisonRecord::title() const {
    return QStringLiteral("#%1 %2 · %3 runs · %4")
        .arg(number)
        .arg(QString::fromStdString(experiment.name))
        .arg(runCount())
        .arg(finished.toString(QStringLiteral("HH:mm:ss")));
}

QString ComparisonRecord::runLabel(int run) const {
    return QStringLiteral("%1 #%2").arg(QString::fromStdString(labels.at(static_cast<std::size_t>(run)))).arg(number);
}

std::vector<RunLook> ComparisonRecord::looks(bool kept) const {
    std::vector<RunLook> looks;
    for (int run = 0; run < runCount(); ++run)
        looks.push_back(
            {run < static_cast<int>(colorSlots.size()) ? colorSlots[static_cast<std::size_t>(run)] : run, kept});
    return looks;
}

void ComparisonHistory::add(ComparisonRecord record) {
    if (record.labels.empty()) return;
    record.number = next_++;
    if (!record.finished.isValid()) record.finished = QDateTime::currentDateTime();
    records_.push_back(std::move(record));
    Q_EMIT changed();
}

const ComparisonRecord* ComparisonHistory::find(int number) const {
    for (const ComparisonRecord& record : records_)
        if (record.number == number) return &record;
    return nullptr;
}

}  // namespace ml
