#pragma once
// ML_TINY_LOOPS marks a function whose loops run over a handful of values (a tiny network's layers,
// 1-2-2-1): GCC compiles its loops as written, neither vectorised (the trip-count checks and
// remainders cost more than they save) nor turned into memcpy/memset calls (a library call costs
// more than copying two floats). Clang, used for the sanitizer builds, has no per-function
// optimize attribute; there it is empty.
#if defined(__clang__)
#define ML_TINY_LOOPS
#else
#define ML_TINY_LOOPS [[gnu::optimize("no-tree-vectorize", "no-tree-loop-distribute-patterns")]]
#endif
