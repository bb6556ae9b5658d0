#pragma once
// Counts this process's heap allocations, to prove a code path allocation-free.
//
// Linking AllocationCounter.cpp into an executable replaces glibc's allocation entry points
// (malloc, calloc, realloc, memalign, aligned_alloc, posix_memalign) with counting wrappers around
// glibc's own implementation. Eigen allocates with malloc, and libstdc++'s operator new calls
// malloc, so both are counted. Only the benchmark and the allocation test link it: it is not part of
// momentum_lab_core.
#include <cstddef>

namespace ml {

// Allocations (of any size, on any thread) since the program started.
std::size_t heapAllocationCount();
// False in sanitizer builds (MOMENTUM_LAB_SANITIZED): their runtimes replace malloc themselves, so
// nothing is wrapped or counted there, and the tests that need the count skip.
bool allocationCountingAvailable();

}  // namespace ml
