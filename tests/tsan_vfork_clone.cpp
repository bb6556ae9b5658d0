// Linked into the test executables of the ThreadSanitizer build only (tests/CMakeLists.txt).
//
// QProcess (Qt 6.4, src/3rdparty/forkfd) starts every child with glibc's
// clone(fn, stack, CLONE_VM | CLONE_VFORK | CLONE_PIDFD | SIGCHLD, ...): a vfork whose child only
// execs. TSan's clone interceptor (clang 14 and clang 16 alike) treats any clone as a fork: it runs
// its after-fork bookkeeping in the child, which with CLONE_VM is the parent's own memory, and the
// parent then aborts ("CHECK failed: tsan_rtl.cpp:234 ((!thr->slot)) != (0)" in ForkAfter). So
// the tests that start the CLI or pdflatex could not run under TSan at all.
//
// This definition replaces the runtime's (its `clone` is a weak alias of __interceptor_clone): a
// clone that shares the memory (CLONE_VM) goes to glibc directly. While a CLONE_VFORK child runs,
// the calling thread is suspended, so the child acting on that thread's TSan state is what vfork
// means; other threads are not touched. Any other clone (a real fork) still goes through TSan's
// interceptor. Nothing is suppressed: every memory access stays checked.
#include <dlfcn.h>
#include <linux/sched.h>  // CLONE_VM, without <sched.h>'s declaration of clone

#include <cstdarg>

extern "C" int __interceptor_clone(int (*fn)(void*), void* stack, int flags, void* arg, ...);

extern "C" int clone(int (*fn)(void*), void* stack, int flags, void* arg, ...) {
    // glibc reads these three by `flags`; Qt passes all three.
    va_list rest;
    va_start(rest, arg);
    void* parentTid = va_arg(rest, void*);
    void* tls = va_arg(rest, void*);
    void* childTid = va_arg(rest, void*);
    va_end(rest);
    if (!(flags & CLONE_VM)) return __interceptor_clone(fn, stack, flags, arg, parentTid, tls, childTid);
    using Clone = int (*)(int (*)(void*), void*, int, void*, ...);
    static const auto glibcClone = reinterpret_cast<Clone>(dlsym(RTLD_NEXT, "clone"));
    return glibcClone(fn, stack, flags, arg, parentTid, tls, childTid);
}
