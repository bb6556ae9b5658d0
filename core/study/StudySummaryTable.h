#pragma once
// The table the CLI prints after `study` and `aggregate`: one row per task and optimizer from
// results.json (the chosen configuration, whether it sits on an edge of what was searched and how
// stable it is, the validation scores around it, test loss and accuracy, steps to the target, and
// P(better than the baseline) paired by seed), rendered as aligned text for the terminal or as a
// Markdown table for a report (`aggregate DIR --markdown`; the tables in docs/research/ come from it).
// Both end with a warning for each chosen value on an edge of what was searched.
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <vector>

namespace ml {

class StudySummaryTable {
public:
    // `results`: DIR/results/results.json as aggregateStudy writes it.
    explicit StudySummaryTable(const QJsonObject& results);

    const QStringList& header() const { return header_; }
    const std::vector<QStringList>& rows() const { return rows_; }
    const QStringList& warnings() const { return warnings_; }  // results.json "warnings"

    QString text() const;      // columns padded to their widest cell
    QString markdown() const;  // | a | b | rows, '|' in a cell escaped

private:
    QStringList header_;
    std::vector<QStringList> rows_;
    QStringList warnings_;
};

}  // namespace ml
