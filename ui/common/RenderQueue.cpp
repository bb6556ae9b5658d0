#include "common/RenderQueue.h"

#include <QCoreApplication>

#include <algorithm>

namespace ml {

RenderQueue& RenderQueue::instance() {
    static RenderQueue* queue = [] {
        auto* created = new RenderQueue;
        created->setParent(QCoreApplication::instance());  // deleted with the application
        return created;
    }();
    return *queue;
}

void RenderQueue::request(QObject* owner, std::function<void()> draw) {
    const auto same =
        std::find_if(entries_.begin(), entries_.end(), [owner](const Entry& e) { return e.owner == owner; });
    if (same != entries_.end()) same->draw = std::move(draw);
    else entries_.push_back({owner, std::move(draw)});
    if (!posted_) post(1);
}

bool RenderQueue::pending(const QObject* owner) const {
    return std::any_of(entries_.begin(), entries_.end(), [owner](const Entry& e) { return e.owner == owner; });
}

// A queued call posted while the event loop delivers posted events runs in its next pass (Qt
// leaves events posted during a pass for the next one), so each call is one turn later.
void RenderQueue::post(int turnsToWait) {
    posted_ = true;
    QMetaObject::invokeMethod(
        this, [this, turnsToWait] { runOne(turnsToWait); }, Qt::QueuedConnection);
}

void RenderQueue::runOne(int turnsToWait) {
    if (turnsToWait > 0) return post(turnsToWait - 1);
    posted_ = false;
    while (!entries_.empty()) {
        Entry entry = std::move(entries_.front());
        entries_.pop_front();
        if (!entry.owner) continue;  // deleted meanwhile
        entry.draw();
        break;
    }
    if (!entries_.empty()) post(0);
}

}  // namespace ml
