#include "views/SummaryPanel.h"

#include "model/RunSummaryModel.h"

#include <QDoubleValidator>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QScrollBar>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QStyle>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace ml {

SummaryPanel::SummaryPanel(RunSummaryModel* model, QWidget* parent)
    : QWidget(parent), threshold_(new QLineEdit(this)), table_(new QTableView(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* row = new QHBoxLayout;
    auto* thresholdLabel = new QLabel(this);
    row->addWidget(thresholdLabel);
    threshold_->setValidator(new QDoubleValidator(0.0, 1e30, 12, threshold_));
    threshold_->setMaximumWidth(100);
    // The field follows the model's criterion (loss for regression, test accuracy for classification).
    auto showCriterion = [this, model, thresholdLabel] {
        const bool accuracy = model->criterion() == RunSummaryModel::Criterion::TestAccuracyAtLeast;
        thresholdLabel->setText(accuracy ? tr("Accuracy threshold:") : tr("Loss threshold:"));
        threshold_->setText(QString::number(model->threshold()));
        threshold_->setToolTip(
            accuracy ? tr("\"Steps to acc.\" counts the steps until the test accuracy first reaches this value (0..1)")
                     : tr("\"Steps to\" counts the steps until the training batch loss first reaches this value"));
    };
    connect(model, &QAbstractItemModel::modelReset, this, showCriterion);
    showCriterion();
    connect(threshold_, &QLineEdit::editingFinished, this, &SummaryPanel::applyThreshold);
    row->addWidget(threshold_);
    row->addStretch(1);
    layout->addLayout(row);

    // Sortable by any column (click its header); unsorted, the rows keep the runs' order.
    auto* sorted = new QSortFilterProxyModel(this);
    sorted->setSourceModel(model);
    sorted->setSortRole(RunSummaryModel::SortRole);
    table_->setModel(sorted);
    table_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    table_->setSortingEnabled(true);
    table_->verticalHeader()->hide();
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setAlternatingRowColors(true);
    // Fits a ~500 px dock: columns as wide as their contents, the status (last) takes the rest and
    // wraps ("diverged at / step N"), rows grow to fit it, and the Optimizer column is hidden
    // while it would only repeat the run labels (the Run cell's tooltip names the optimizer).
    QHeaderView* header = table_->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(RunSummaryModel::Status, QHeaderView::Stretch);
    header->setMinimumSectionSize(24);
    header->setDefaultAlignment(Qt::AlignCenter);
    table_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->setWordWrap(true);
    table_->setTextElideMode(Qt::ElideMiddle);
    auto showOptimizerColumn = [this, model] {
        table_->setColumnHidden(RunSummaryModel::Optimizer, model->optimizersMatchLabels());
    };
    connect(model, &QAbstractItemModel::modelReset, this, showOptimizerColumn);
    showOptimizerColumn();
    // The Run column as wide as its labels up to a few typical ones: a fork's "momentum@500→
    // neuron-mean" is elided in the middle (its tooltip gives it whole) instead of pushing every
    // figure out of a narrow dock.
    header->setSectionResizeMode(RunSummaryModel::Run, QHeaderView::Interactive);
    auto fitRunColumn = [this] {
        int widest = 0;
        for (int row = 0; row < table_->model()->rowCount(); ++row)
            widest =
                std::max(widest, table_->sizeHintForIndex(table_->model()->index(row, RunSummaryModel::Run)).width());
        const int cap = table_->fontMetrics().horizontalAdvance(QStringLiteral("neuron-mean #12")) +
                        table_->iconSize().width() + 16;
        table_->horizontalHeader()->resizeSection(RunSummaryModel::Run, std::clamp(widest, 60, cap));
        updateGeometry();  // the dock's minimum follows the columns
    };
    connect(model, &QAbstractItemModel::modelReset, this, fitRunColumn);
    connect(model, &QAbstractItemModel::dataChanged, this, fitRunColumn);
    fitRunColumn();
    layout->addWidget(table_, 1);
}

namespace {

int contentsWidth(const QTableView& table, int column) {
    int width = 0;
    for (int row = 0; row < table.model()->rowCount(); ++row)
        width = std::max(width, table.sizeHintForIndex(table.model()->index(row, column)).width());
    return width;
}

// Before any run is in the table (the window's first layout): room for a typical label and status.
int typicalWidth(const QTableView& table, int column) {
    const int padding = 2 * table.style()->pixelMetric(QStyle::PM_FocusFrameHMargin) + 8;
    if (column == RunSummaryModel::Run)
        return table.fontMetrics().horizontalAdvance(QStringLiteral("neuron-mean")) + table.iconSize().width() +
               2 * padding;
    if (column == RunSummaryModel::Status)
        return table.fontMetrics().horizontalAdvance(QStringLiteral("diverged at")) + padding;
    if (column == RunSummaryModel::Optimizer) return 0;
    // A number column: a typical value is wider than its two-line header ("Train / loss").
    return table.fontMetrics().horizontalAdvance(QStringLiteral("0.006835")) + padding;
}

}  // namespace

QSize SummaryPanel::sizeHint() const {
    const QHeaderView* header = table_->horizontalHeader();
    int columns = 0;
    for (int column = 0; column < header->count(); ++column)
        if (!header->isSectionHidden(column))
            // Contents, not current sizes: before the first layout (or stretched) those say nothing.
            columns += column == RunSummaryModel::Run  // its width is capped (long labels elide)
                           ? std::max(header->sectionSize(column), typicalWidth(*table_, column))
                           : std::max({header->sectionSizeHint(column), contentsWidth(*table_, column),
                                       typicalWidth(*table_, column)});
    const int frame = 2 * table_->frameWidth() + table_->verticalScrollBar()->sizeHint().width();
    const QMargins margins = layout()->contentsMargins();
    return {std::max(QWidget::sizeHint().width(), columns + frame + margins.left() + margins.right()),
            QWidget::sizeHint().height()};
}

void SummaryPanel::applyThreshold() {
    bool ok = false;
    const double value = threshold_->text().toDouble(&ok);
    if (ok && value >= 0.0) Q_EMIT thresholdChanged(value);
}

}  // namespace ml
