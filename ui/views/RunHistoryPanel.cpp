#include "views/RunHistoryPanel.h"

#include <QHBoxLayout>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace ml {

RunHistoryPanel::RunHistoryPanel(const ComparisonHistory* history, QWidget* parent)
    : QWidget(parent), history_(history), list_(new QListWidget(this)), show_(new QPushButton(tr("Show again"), this)),
      overlay_(new QPushButton(tr("Overlay"), this)) {
    show_->setToolTip(tr("Show the chosen comparison instead of the current one (which is kept in this list)"));
    overlay_->setToolTip(tr("Add the chosen comparison's runs to the ones on screen"));
    // Entries wrap to the dock's width (a tab beside the summary, ~300 px at 1366 x 768) instead
    // of scrolling sideways.
    list_->setWordWrap(true);
    list_->setResizeMode(QListView::Adjust);
    list_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(show_);
    buttons->addWidget(overlay_);
    buttons->addStretch();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(list_, 1);
    layout->addLayout(buttons);
    connect(history_, &ComparisonHistory::changed, this, &RunHistoryPanel::rebuild);
    connect(show_, &QPushButton::clicked, this, [this] {
        if (chosen() > 0) Q_EMIT showRequested(chosen());
    });
    connect(overlay_, &QPushButton::clicked, this, [this] {
        if (chosen() > 0) Q_EMIT overlayRequested(chosen());
    });
    connect(list_, &QListWidget::itemDoubleClicked, this,
            [this](QListWidgetItem* item) { Q_EMIT showRequested(item->data(Qt::UserRole).toInt()); });
    connect(list_, &QListWidget::currentRowChanged, this, [this] {
        show_->setEnabled(chosen() > 0);
        overlay_->setEnabled(chosen() > 0);
    });
    rebuild();
}

int RunHistoryPanel::chosen() const {
    const QListWidgetItem* item = list_->currentItem();
    return item ? item->data(Qt::UserRole).toInt() : 0;
}

void RunHistoryPanel::rebuild() {
    list_->clear();
    const std::vector<ComparisonRecord>& records = history_->records();
    for (auto it = records.rbegin(); it != records.rend(); ++it) {
        auto* item = new QListWidgetItem(it->title(), list_);
        item->setData(Qt::UserRole, it->number);
        QStringList runs;
        for (const std::string& label : it->labels) runs << QString::fromStdString(label);
        item->setToolTip(tr("%1\nruns: %2%3")
                             .arg(QString::fromStdString(it->experiment.name), runs.join(QStringLiteral(", ")),
                                  it->source.isEmpty() ? QString() : tr("\nfolder: %1").arg(it->source)));
    }
    if (list_->count() == 0) {
        auto* item =
            new QListWidgetItem(tr("Past comparisons of this session appear here when the next one starts."), list_);
        item->setFlags(Qt::NoItemFlags);
    }
    show_->setEnabled(chosen() > 0);
    overlay_->setEnabled(chosen() > 0);
}

}  // namespace ml
