#include "io/MemoryBudget.h"

#include "InputError.h"

#include <QByteArray>
#include <QtGlobal>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <unistd.h>

namespace ml {

namespace {

std::uint64_t physicalMemoryBytes() {
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long pageSize = ::sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || pageSize <= 0) return std::uint64_t{4} << 30;  // unknown: assume a small machine (4 GiB)
    return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(pageSize);
}

// "512M" -> 512 MiB; nothing when `text` is not a positive size.
bool parseSize(const QByteArray& text, std::uint64_t& bytes) {
    QByteArray number = text.trimmed();
    double unit = 1.0;
    if (!number.isEmpty()) {
        const char suffix = static_cast<char>(std::toupper(static_cast<unsigned char>(number.back())));
        const int power = QByteArray("KMGT").indexOf(suffix) + 1;
        if (power > 0) {
            unit = std::pow(1024.0, power);
            number.chop(1);
        }
    }
    bool ok = false;
    const double value = number.toDouble(&ok) * unit;
    if (!ok || !(value >= 1.0 && value < 1.8e19)) return false;  // 1 byte up to what 64 bits hold
    bytes = static_cast<std::uint64_t>(value);
    return true;
}

}  // namespace

std::uint64_t memoryBudgetBytes() {
    if (!qEnvironmentVariableIsSet(kMemoryBudgetVariable)) return physicalMemoryBytes() / 2;
    const QByteArray value = qgetenv(kMemoryBudgetVariable);
    std::uint64_t bytes = 0;
    if (!parseSize(value, bytes))
        throw InputError(std::string(kMemoryBudgetVariable) + "='" + value.toStdString() +
                         "': expected a size in bytes, or with K, M, G or T (e.g. 512M, 4G)");
    return bytes;
}

std::string byteSizeText(std::uint64_t bytes) {
    static const char* const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) return std::to_string(bytes) + " bytes";
    double value = static_cast<double>(bytes) / 1024.0;
    int unit = 0;
    while (value >= 1024.0 && unit < 5) {
        value /= 1024.0;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.*f %s", value < 10.0 ? 1 : 0, value, units[unit]);
    return text;
}

std::string memoryBudgetText() {
    const std::uint64_t budget = memoryBudgetBytes();
    const bool overridden = qEnvironmentVariableIsSet(kMemoryBudgetVariable);
    return byteSizeText(budget) + " (" + (overridden ? "set by " : "half of the physical memory; set ") +
           kMemoryBudgetVariable + (overridden ? "" : " to change it") + ")";
}

std::uint64_t saturatingProduct(std::uint64_t a, std::uint64_t b) {
    std::uint64_t product = 0;
    return __builtin_mul_overflow(a, b, &product) ? std::numeric_limits<std::uint64_t>::max() : product;
}

void requireWithinMemoryBudget(std::uint64_t bytes, const std::string& what) {
    if (bytes <= memoryBudgetBytes()) return;
    throw InputError(what + " needs " + byteSizeText(bytes) + ", more than the memory budget of " + memoryBudgetText());
}

}  // namespace ml
