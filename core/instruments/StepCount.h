#pragma once
// An experiment's step count (up to kMaxCount) as an int flag's fallback: an interval beyond int is
// never due.
#include <algorithm>
#include <limits>

namespace ml {

inline int clampToInt(long count) { return static_cast<int>(std::min<long>(count, std::numeric_limits<int>::max())); }

}  // namespace ml
