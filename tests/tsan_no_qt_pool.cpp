// Linked into the test executables of the ThreadSanitizer build only (tests/CMakeLists.txt).
//
// Qt Gui (6.4) splits large image work over QThreadPool::globalInstance(): format conversions,
// smooth scaling, and the raster engine's fills of large areas (seen: QImage::scaled in test_ui,
// a QCustomPlot band fill in test_study_views). The job, its pixels and the QSemaphore that says
// it is done cross between the calling thread and the pool's threads inside uninstrumented Qt
// (QMutex and QSemaphore are futex-based), so TSan reports Qt's own hand-over as a race: the job
// allocated on the GUI thread and deleted on a pool thread. Those frames have no symbols (Qt's
// internal functions are not exported), so no suppression can name them; only a whole-library
// one could, and it would also hide every race of ours reached from Qt Gui's event dispatcher.
//
// So, in the TSan build, Qt has no global pool: Qt Gui's callers take a null pool as "work on
// this thread" (the same branch they take for small images, or once the pool is gone at exit).
// Calls from inside libQt6Core are bound to its own definition and are unaffected. Our code uses
// no QThreadPool (its threads are std::threads and QThread::create workers); nothing is
// suppressed, every access stays checked.
#include <QThreadPool>

QThreadPool* QThreadPool::globalInstance() { return nullptr; }
