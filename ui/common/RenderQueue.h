#pragma once
// Expensive view drawings, one per turn of the GUI event loop. A training delivery changes
// several views at once; drawn together in one turn (two 784-128-10 diagram canvases at ~4 ms
// each, on top of the convergence plot's replot) they made one frame of ~15-20 ms. Queued here,
// each drawing gets a turn of its own, so input and timers run between them.
// A request waits one turn before the first drawing: the turn that made the request usually
// queued other work (the plots' queued replots), which then runs without the drawing.
//
//   RenderQueue::instance().request(owner, draw)  draw() runs in a later turn, once however often
//                                                 `owner` asks before; dropped if owner is deleted
#include <QObject>
#include <QPointer>

#include <deque>
#include <functional>

namespace ml {

class RenderQueue : public QObject {
public:
    static RenderQueue& instance();  // the GUI thread's queue
    void request(QObject* owner, std::function<void()> draw);
    bool pending(const QObject* owner) const;

private:
    struct Entry {
        QPointer<QObject> owner;
        std::function<void()> draw;
    };
    void post(int turnsToWait);
    void runOne(int turnsToWait);

    std::deque<Entry> entries_;
    bool posted_ = false;
};

}  // namespace ml
