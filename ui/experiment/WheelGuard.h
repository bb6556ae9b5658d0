#pragma once
// Keeps the mouse wheel for scrolling: a spin box or combo box inside a scrolled form takes
// wheel events only while it has keyboard focus; otherwise the scroll area around it scrolls.
// (Without this, scrolling the experiment panel changed whatever field passed under the pointer.)
//   WheelGuard::protect(root)  guards every spin box and combo box under root (call again for
//                              fields created later); the guard is a child of root
#include <QObject>

class QWidget;

namespace ml {

class WheelGuard : public QObject {
    Q_OBJECT
public:
    static void protect(QWidget* root);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    explicit WheelGuard(QObject* parent) : QObject(parent) {}
};

}  // namespace ml
