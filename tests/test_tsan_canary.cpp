// Built and run in the ThreadSanitizer build only (tests/CMakeLists.txt): proves that
// tests/tsan.supp and the clone shim (tsan_vfork_clone.cpp) do not hide a race in our code. The
// test function races on purpose with a QThread::create worker (the kind of thread the landscape and
// study workers are), inside a Qt Test executable with Qt Test's watchdog (what the suppressions
// are about); then a real child process is started, as the session tests do. CTest passes it only
// when TSan's summary names this file's data race (PASS_REGULAR_EXPRESSION; the sanitizer
// exits 66 at the first report, as halt_on_error=1 asks).
#include <QProcess>
#include <QTest>
#include <QThread>

#include <memory>

class TsanCanaryTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void childProcessesStart() {
        // Fails on the unshimmed runtime: TSan's CHECK in ForkAfter aborts the test here.
        QProcess child;
        child.start("/bin/echo", {"hello"});
        QVERIFY(child.waitForFinished(10'000));
        QCOMPARE(child.readAllStandardOutput(), QByteArray("hello\n"));
    }

    void raceOnPurpose() {
        // Both threads write `counter` with nothing ordering them: the report must come.
        auto counter = std::make_shared<long>(0);
        std::unique_ptr<QThread> worker(QThread::create([counter] {
            for (int i = 0; i < 1000; ++i) ++*counter;
        }));
        worker->start();
        for (int i = 0; i < 1000; ++i) ++*counter;
        worker->wait();
        QVERIFY(*counter > 0);
    }
};

QTEST_GUILESS_MAIN(TsanCanaryTest)
#include "test_tsan_canary.moc"
