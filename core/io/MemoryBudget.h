#pragma once
// The memory budget: what one process may claim for a single thing it loads or builds (a data set,
// a file, a network with its optimizer state). Half of the physical memory by default;
// MOMENTUM_LAB_MEMORY_BUDGET overrides it with a size: bytes, or a number with K, M, G or T
// (powers of 1024), e.g. 512M or 4G. Checked before allocating, so what would not fit is refused
// with the size it needs instead of ending in std::bad_alloc or the OOM killer.
#include <cstdint>
#include <string>

namespace ml {

inline constexpr const char* kMemoryBudgetVariable = "MOMENTUM_LAB_MEMORY_BUDGET";

// The budget in bytes. Throws InputError naming the variable when its value is not a size.
std::uint64_t memoryBudgetBytes();
// "11.7 GiB (half of the physical memory; set MOMENTUM_LAB_MEMORY_BUDGET to change it)".
std::string memoryBudgetText();
// "1.5 GiB", "800 KiB", "17 bytes".
std::string byteSizeText(std::uint64_t bytes);
// a x b, or the largest uint64 when the product does not fit (a size no budget admits).
std::uint64_t saturatingProduct(std::uint64_t a, std::uint64_t b);
// Throws InputError "WHAT needs SIZE, more than the memory budget of BUDGET" when bytes > budget.
void requireWithinMemoryBudget(std::uint64_t bytes, const std::string& what);

}  // namespace ml
