#pragma once
// The table the CLI prints after `study` and `aggregate`: one row per task and optimizer from
// results.json (the chosen configuration, test loss and accuracy, steps to the target, and
// P(better than the baseline) paired by seed), rendered as aligned text for the terminal or as a
// Markdown table for a report (`aggregate DIR --markdown`; the tables in docs/research/ come from it).
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

    QString text() const;      // columns padded to their widest cell
    QString markdown() const;  // | a | b | rows, '|' in a cell escaped

private:
    QStringList header_;
    std::vector<QStringList> rows_;
};

}  // namespace ml
