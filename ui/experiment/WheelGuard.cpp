#include "experiment/WheelGuard.h"

#include <QAbstractScrollArea>
#include <QAbstractSpinBox>
#include <QCoreApplication>
#include <QComboBox>
#include <QEvent>
#include <QWidget>

namespace ml {

void WheelGuard::protect(QWidget* root) {
    auto* guard = root->findChild<WheelGuard*>(QString(), Qt::FindDirectChildrenOnly);
    if (!guard) guard = new WheelGuard(root);
    QList<QWidget*> fields;
    for (QAbstractSpinBox* box : root->findChildren<QAbstractSpinBox*>()) fields << box;
    for (QComboBox* combo : root->findChildren<QComboBox*>()) fields << combo;
    for (QWidget* field : fields) {
        field->setFocusPolicy(Qt::StrongFocus);  // the wheel must not give focus (Qt::WheelFocus)
        field->removeEventFilter(guard);         // installed once, however often protect() is called
        field->installEventFilter(guard);
    }
}

bool WheelGuard::eventFilter(QObject* watched, QEvent* event) {
    auto* field = static_cast<QWidget*>(watched);
    if (event->type() != QEvent::Wheel || field->hasFocus()) return false;
    // The scroll area that holds the field scrolls instead (its viewport turns wheel into scrolling).
    for (QWidget* ancestor = field->parentWidget(); ancestor; ancestor = ancestor->parentWidget()) {
        if (auto* area = qobject_cast<QAbstractScrollArea*>(ancestor)) {
            QCoreApplication::sendEvent(area->viewport(), event);
            return true;
        }
    }
    event->ignore();  // no scroll area: the field just does not take it
    return true;
}

}  // namespace ml
