#include "study/StudySummaryTable.h"

#include "stats/Bootstrap.h"
#include "study/StudyAggregate.h"

#include <QJsonArray>

#include <algorithm>
#include <cmath>

namespace ml {

namespace {

QString number(const QJsonValue& value) {
    return value.isDouble() ? QString::number(value.toDouble(), 'f', 4) : value.toString("-");
}

QString withRange(const QJsonObject& statistic, const char* centre, const char* low, const char* high) {
    if (!statistic.contains(centre)) return "-";
    return number(statistic[centre]) + " [" + number(statistic[low]) + ", " + number(statistic[high]) + "]";
}

}  // namespace

StudySummaryTable::StudySummaryTable(const QJsonObject& results) {
    const QString baseline = results["baseline"].toString();
    const bool target = results.contains("target");
    header_ = QStringList{"task",
                          "optimizer",
                          "chosen",
                          "seeds",
                          "test loss median [IQR]",
                          "test loss mean [95% CI]",
                          "test accuracy mean [95% CI]"};
    if (target) header_ << "median steps to loss " + QString::number(results["target"].toDouble()) + " (reached)";
    header_ << "P(loss < " + baseline + ")";
    for (const QJsonValue& task : results["tasks"].toArray()) {
        stats::SeededValues baselineLosses;
        for (const QJsonValue& entry : task["optimizers"].toArray())
            if (entry["optimizer"].toString() == baseline) baselineLosses = finalTestLosses(entry.toObject());
        for (const QJsonValue& value : task["optimizers"].toArray()) {
            const QJsonObject entry = value.toObject();
            QString chosen = roundedConfiguration(entry["configuration"].toString());
            if (entry["chosen_trial"].toInt(-1) == 0) chosen += " (defaults)";
            QStringList row{task["task"].toString(),
                            entry["optimizer"].toString(),
                            chosen,
                            QString::number(entry["seeds"].toInt()),
                            withRange(entry["test_loss"].toObject(), "median", "q1", "q3"),
                            withRange(entry["test_loss"].toObject(), "mean", "ci_low", "ci_high"),
                            withRange(entry["test_accuracy"].toObject(), "mean", "ci_low", "ci_high")};
            if (target) {
                const QJsonValue steps = entry["steps_to_target_median"];
                const QString median = steps.isString() && steps.toString() == "inf" ? QString("never")
                                       : steps.isDouble()                            ? QString::number(steps.toDouble())
                                                                                     : QString("-");
                row << median + (entry.contains("reached_target")
                                     ? " (" + QString::number(entry["reached_target"].toInt()) + "/" +
                                           QString::number(entry["seeds"].toInt()) + ")"
                                     : QString());
            }
            const double better = stats::probabilityBetter(finalTestLosses(entry), baselineLosses).probability;
            row << (entry["optimizer"].toString() == baseline ? QString("baseline")
                    : std::isnan(better)                      ? QString("-")
                                                              : QString::number(better, 'f', 2));
            rows_.push_back(row);
        }
    }
}

QString StudySummaryTable::text() const {
    std::vector<qsizetype> widths;
    for (const QString& h : header_) widths.push_back(h.size());
    for (const QStringList& row : rows_)
        for (qsizetype c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
    const auto line = [&](const QStringList& cells) {
        QString text;
        for (qsizetype c = 0; c < cells.size(); ++c)
            text += (c + 1 < cells.size() ? cells[c].leftJustified(widths[c] + 2) : cells[c]);
        return text + "\n";
    };
    QString text = line(header_);
    for (const QStringList& row : rows_) text += line(row);
    return text;
}

QString StudySummaryTable::markdown() const {
    const auto line = [](QStringList cells) {
        for (QString& cell : cells) cell.replace("|", "\\|");
        return "| " + cells.join(" | ") + " |\n";
    };
    QString text = line(header_);
    text += "|" + QString("---|").repeated(header_.size()) + "\n";
    for (const QStringList& row : rows_) text += line(row);
    return text;
}

}  // namespace ml
