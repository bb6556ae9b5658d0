#pragma once
// The summary table of the compared runs (sortable by any column) with the loss-threshold field above it.
#include <QWidget>

class QLineEdit;
class QTableView;

namespace ml {

class RunSummaryModel;

class SummaryPanel : public QWidget {
    Q_OBJECT
public:
    explicit SummaryPanel(RunSummaryModel* model, QWidget* parent = nullptr);
    QTableView* table() const { return table_; }
    // As wide as every shown column at its contents' width (the dock's first size asks for it).
    QSize sizeHint() const override;

Q_SIGNALS:
    void thresholdChanged(double threshold);

private:
    void applyThreshold();

    QLineEdit* threshold_;
    QTableView* table_;
};

}  // namespace ml
