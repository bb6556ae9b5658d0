#include "AllocationCounter.h"

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <malloc.h>

#ifdef MOMENTUM_LAB_SANITIZED
std::size_t ml::heapAllocationCount() { return 0; }
bool ml::allocationCountingAvailable() { return false; }
#else

// glibc's implementation, under the names glibc exports for exactly this purpose (wrapping malloc;
// see "Replacing malloc" in the glibc manual). glibc 2.34 removed the older __malloc_hook.
extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* pointer, std::size_t size);
void* __libc_memalign(std::size_t alignment, std::size_t size);
void __libc_free(void* pointer);
}

namespace {
std::atomic<std::size_t> g_allocations{0};
void count() { g_allocations.fetch_add(1, std::memory_order_relaxed); }
}  // namespace

std::size_t ml::heapAllocationCount() { return g_allocations.load(std::memory_order_relaxed); }
bool ml::allocationCountingAvailable() { return true; }

extern "C" {

void* malloc(std::size_t size) noexcept {
    count();
    return __libc_malloc(size);
}

void* calloc(std::size_t count_, std::size_t size) noexcept {
    count();
    return __libc_calloc(count_, size);
}

void* realloc(void* pointer, std::size_t size) noexcept {
    count();
    return __libc_realloc(pointer, size);
}

void free(void* pointer) noexcept { __libc_free(pointer); }

void* memalign(std::size_t alignment, std::size_t size) noexcept {
    count();
    return __libc_memalign(alignment, size);
}

void* aligned_alloc(std::size_t alignment, std::size_t size) noexcept {
    count();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void** result, std::size_t alignment, std::size_t size) noexcept {
    // The contract of posix_memalign: a power of two that is a multiple of sizeof(void*).
    if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    count();
    void* pointer = __libc_memalign(alignment, size);
    if (pointer == nullptr && size != 0) return ENOMEM;
    *result = pointer;
    return 0;
}

}  // extern "C"
#endif  // MOMENTUM_LAB_SANITIZED
