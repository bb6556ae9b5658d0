#pragma once
// The desktop app's large blocks come and go on different threads: a snapshot (about 2 MB for
// 784-128-10) is built by the training thread and dropped later by the GUI. glibc keeps such freed
// space inside its arenas for reuse, so resident memory grew several times faster than the live
// heap (momentum-lab-gui-bench, which prints both). Every few seconds the app hands the arenas'
// free pages back (malloc_trim). A fixed mmap threshold did the same but cost every snapshot its
// page faults: in a side-by-side run training fell from 80 to 50 steps/s and the GUI's p99 frame
// rose from 22 to 29 ms.
#include <QObject>
#include <QTimer>

#include <malloc.h>

namespace ml {

// Starts a timer owned by `parent` that returns freed heap pages to the system every 5 s.
inline void returnFreedMemoryPeriodically(QObject* parent) {
    auto* timer = new QTimer(parent);
    QObject::connect(timer, &QTimer::timeout, [] { malloc_trim(0); });
    timer->start(5000);
}

}  // namespace ml
