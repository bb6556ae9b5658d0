#include "io/NumberText.h"

#include <charconv>
#include <cmath>
#include <cstring>

namespace ml {

namespace {

// The text, or "nan" where it does not fit (never half a number; the callers leave enough room).
char* checked(char* first, char* last, std::to_chars_result result) {
    if (result.ec == std::errc()) return result.ptr;
    if (last - first < 3) return first;
    std::memcpy(first, "nan", 3);
    return first + 3;
}

}  // namespace

char* writeShortest(char* first, char* last, float value) {
    if (std::isnan(value)) return checked(first, last, {first, std::errc::value_too_large});  // not "-nan"
    return checked(first, last, std::to_chars(first, last, value));
}

char* writeFixed(char* first, char* last, double value, int decimals) {
    if (std::isnan(value)) return checked(first, last, {first, std::errc::value_too_large});
    return checked(first, last, std::to_chars(first, last, value, std::chars_format::fixed, decimals));
}

char* writeInteger(char* first, char* last, long long value) {
    return checked(first, last, std::to_chars(first, last, value));
}

void appendShortest(QByteArray& out, float value) {
    char text[kNumberTextBytes];
    out.append(text, writeShortest(text, text + sizeof text, value) - text);
}

void appendFixed(QByteArray& out, double value, int decimals) {
    char text[kNumberTextBytes];
    out.append(text, writeFixed(text, text + sizeof text, value, decimals) - text);
}

void appendInteger(QByteArray& out, long long value) {
    char text[kNumberTextBytes];
    out.append(text, writeInteger(text, text + sizeof text, value) - text);
}

}  // namespace ml
