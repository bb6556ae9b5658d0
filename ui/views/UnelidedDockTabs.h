#pragma once
// Keeps the names on a main window's dock tabs whole ("Neuron inspector", not "Neuron inspe…").
// QMainWindow's tab bars elide their tabs to fit (and then never need their scroll buttons);
// without eliding or scroll buttons, a tab bar's minimum width is its tabs' natural width, which
// the dock layout then gives the tabbed docks. QMainWindow creates its tab bars as it needs them
// (tabifying, the user's drags), so each is set when it is first polished.
#include <QObject>

class QMainWindow;

namespace ml {

class UnelidedDockTabs : public QObject {
public:
    explicit UnelidedDockTabs(QMainWindow* window);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
};

}  // namespace ml
