#include "io/NumberText.h"

#include <charconv>
#include <cmath>

namespace ml {

namespace {

// Longer than any float, long long or "%.3f" double the writers produce (a fixed double can
// reach 309 digits; the caller asks for few decimals of small values, and to_chars reports a
// text that does not fit instead of overflowing).
constexpr int kScratch = 400;

void appendChecked(QByteArray& out, const char* first, std::to_chars_result result) {
    if (result.ec == std::errc()) out.append(first, result.ptr - first);
    else out.append("nan");  // cannot happen with kScratch bytes; never write half a number
}

}  // namespace

void appendShortest(QByteArray& out, float value) {
    if (std::isnan(value)) return void(out.append("nan"));  // to_chars would write "-nan" for some NaNs
    char text[32];
    appendChecked(out, text, std::to_chars(text, text + sizeof text, value));
}

void appendFixed(QByteArray& out, double value, int decimals) {
    if (std::isnan(value)) return void(out.append("nan"));
    char text[kScratch];
    appendChecked(out, text, std::to_chars(text, text + sizeof text, value, std::chars_format::fixed, decimals));
}

void appendInteger(QByteArray& out, long long value) {
    char text[24];
    appendChecked(out, text, std::to_chars(text, text + sizeof text, value));
}

}  // namespace ml
