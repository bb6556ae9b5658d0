#pragma once
// The run history as a list (newest first): each kept comparison with its experiment name, run
// count and time; its tooltip lists the runs and where it came from. "Show again" replaces the
// comparison on screen by the chosen one (the one on screen is kept too); "Overlay" adds the
// chosen one's runs to the screen (plot, summary and every matrix view). Double-click = show.
#include "model/ComparisonHistory.h"

#include <QWidget>

class QListWidget;
class QPushButton;

namespace ml {

class RunHistoryPanel : public QWidget {
    Q_OBJECT
public:
    explicit RunHistoryPanel(const ComparisonHistory* history, QWidget* parent = nullptr);
    QListWidget* list() const { return list_; }
    int chosen() const;  // the selected record's number, 0 when none

Q_SIGNALS:
    void showRequested(int number);
    void overlayRequested(int number);

private:
    void rebuild();

    const ComparisonHistory* history_;
    QListWidget* list_;
    QPushButton* show_;
    QPushButton* overlay_;
};

}  // namespace ml
