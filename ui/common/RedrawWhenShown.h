#pragma once
// Defers a view's redraw while it is hidden in a shown window (a dock tabbed behind another, a
// closed dock): snapshots arriving during training then cost nothing there, and the view redraws
// once when it is shown. A widget outside any shown window (a test, an export) redraws at once.
// An export draws views that may never have been on screen: flushAll() first brings every
// deferred view under a widget up to date.
#include <QObject>

#include <functional>

class QWidget;

namespace ml {

class RedrawWhenShown : public QObject {
    Q_OBJECT
public:
    RedrawWhenShown(QWidget* view, std::function<void()> redraw);
    // Redraw now if the view can be seen, else on its next show.
    void request();
    // True (and a redraw on the next show) when the view is hidden in a shown window.
    bool deferWhileHidden();
    bool pending() const { return pending_; }
    // Redraws now if a redraw waits for the view's next show.
    void flush();
    // flush() on every RedrawWhenShown of `root` and its descendants.
    static void flushAll(QWidget* root);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    bool outOfSight() const;
    void stopWatching();

    QWidget* view_;
    std::function<void()> redraw_;
    bool pending_ = false;
};

}  // namespace ml
