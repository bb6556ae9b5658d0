#include "common/RedrawWhenShown.h"

#include <QEvent>
#include <QWidget>

namespace ml {

RedrawWhenShown::RedrawWhenShown(QWidget* view, std::function<void()> redraw)
    : QObject(view), view_(view), redraw_(std::move(redraw)) {}

bool RedrawWhenShown::outOfSight() const {
    return view_->window()->isVisible() && (!view_->isVisible() || view_->visibleRegion().isEmpty());
}

bool RedrawWhenShown::deferWhileHidden() {
    const bool hidden = outOfSight();
    if (hidden && !pending_) {
        pending_ = true;
        // A tabbed dock behind another stays "visible", moved out of sight; raising it moves it
        // (or shows it): watch the view and its ancestors (as they are now, inside their dock).
        for (QWidget* widget = view_; widget; widget = widget->parentWidget()) widget->installEventFilter(this);
    }
    return hidden;
}

void RedrawWhenShown::request() {
    if (!deferWhileHidden()) redraw_();
}

bool RedrawWhenShown::eventFilter(QObject* watched, QEvent* event) {
    const QEvent::Type type = event->type();
    if (pending_ && (type == QEvent::Show || type == QEvent::Move || type == QEvent::Resize) && !outOfSight()) flush();
    return QObject::eventFilter(watched, event);
}

void RedrawWhenShown::stopWatching() {
    for (QWidget* widget = view_; widget; widget = widget->parentWidget()) widget->removeEventFilter(this);
}

void RedrawWhenShown::flush() {
    if (!pending_) return;
    pending_ = false;
    stopWatching();
    redraw_();
}

void RedrawWhenShown::flushAll(QWidget* root) {
    for (RedrawWhenShown* deferred : root->findChildren<RedrawWhenShown*>()) deferred->flush();
}

}  // namespace ml
