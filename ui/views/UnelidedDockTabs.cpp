#include "views/UnelidedDockTabs.h"

#include <QChildEvent>
#include <QMainWindow>
#include <QTabBar>

namespace ml {

UnelidedDockTabs::UnelidedDockTabs(QMainWindow* window) : QObject(window) { window->installEventFilter(this); }

bool UnelidedDockTabs::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::ChildPolished)
        if (auto* bar = qobject_cast<QTabBar*>(static_cast<QChildEvent*>(event)->child())) {
            bar->setElideMode(Qt::ElideNone);
            bar->setUsesScrollButtons(false);
        }
    return QObject::eventFilter(watched, event);
}

}  // namespace ml
