#pragma once
// The desktop app's large blocks come and go on different threads: a snapshot (about 2 MB for
// 784-128-10) is built by the training thread and dropped later by the GUI. By default glibc
// raises its mmap threshold whenever an mmapped block is freed, after which such blocks are carved
// from the arenas and their freed space stays resident (fragmentation): measured with
// momentum-lab-gui-bench, resident memory grew about five times faster than the live heap.
// A fixed threshold keeps every block of 128 KiB or more mmapped, so freeing it returns it to the
// system. (Training allocates nothing per step, so the mmap calls only follow snapshots.)
#include <malloc.h>

namespace ml {

inline void returnLargeBlocksWhenFreed() { mallopt(M_MMAP_THRESHOLD, 128 * 1024); }

}  // namespace ml
