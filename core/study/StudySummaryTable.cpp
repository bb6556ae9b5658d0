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

// "lr: upper edge; 1 tuning seed": the edges the choice sits on (or the diverged values it borders)
// and how often it wins when the tuning seeds are resampled.
QString choiceCheck(const QJsonObject& fragility) {
    QStringList sides;
    for (const QJsonValue& value : fragility["parameters"].toArray()) {
        const QJsonObject p = value.toObject();
        const QString key = p["parameter"].toString();
        const bool lowEdge = p["below"].toString() == "edge", highEdge = p["above"].toString() == "edge";
        if (lowEdge || highEdge)
            sides << key + ": " + (lowEdge && highEdge ? "both edges" : lowEdge ? "lower edge" : "upper edge");
        for (const char* side : {"below", "above"}) {
            if (p[side].toString() == "diverged") sides << key + ": " + side + " diverged";
            if (p[side].toString() == "bound") sides << key + ": at its bound";
        }
    }
    const QString stability = fragility["stability"].isDouble()
                                  ? QString("stable %1%").arg(qRound(100 * fragility["stability"].toDouble()))
                                  : QString("1 tuning seed");
    return (sides.isEmpty() ? QString("inside") : sides.join(", ")) + "; " + stability;
}

QString score(const QJsonValue& value) {
    if (value.isString() && value.toString() == "inf") return "diverged";
    return value.isDouble() ? QString::number(value.toDouble(), 'g', 3) : QString("-");
}

// "lr 0.149 / 0.078 / 0.338": the validation scores of the next values below and above the choice.
QString curveAroundChoice(const QJsonObject& fragility) {
    QStringList curves;
    for (const QJsonValue& value : fragility["parameters"].toArray()) {
        const QJsonObject p = value.toObject();
        curves << p["parameter"].toString() + " " + score(p["lower_neighbour"]["score"]) + " / " +
                      score(fragility["score"]) + " / " + score(p["upper_neighbour"]["score"]);
    }
    return curves.isEmpty() ? QString("-") : curves.join("; ");
}

}  // namespace

StudySummaryTable::StudySummaryTable(const QJsonObject& results) {
    const QString baseline = results["baseline"].toString();
    const bool target = results.contains("target");
    header_ = QStringList{"task",
                          "optimizer",
                          "chosen",
                          "choice: edge; stability",
                          "validation below / chosen / above",
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
                            entry.contains("fragility") ? choiceCheck(entry["fragility"].toObject()) : "-",
                            entry.contains("fragility") ? curveAroundChoice(entry["fragility"].toObject()) : "-",
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
    for (const QJsonValue& warning : results["warnings"].toArray()) warnings_ << warning.toString();
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
    for (const QString& warning : warnings_) text += "warning: " + warning + "\n";
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
    if (!warnings_.isEmpty()) text += "\n";
    for (const QString& warning : warnings_) text += "- **Warning:** " + warning + "\n";
    return text;
}

}  // namespace ml
