#pragma once
// Numbers as text for the files the app writes, through std::to_chars: no locale, no allocation,
// and for floats the shortest text that reads back as the same float, so a file round-trips bit
// for bit ("0.1", "1e-05", "3"). The append forms add to `out` and allocate only when out's
// capacity does not suffice (writers keep one buffer and reuse it); the write forms fill
// [first, last) and return the end of the text (a row is built on the stack, then appended once).
#include <QByteArray>

namespace ml {

// Room for any text below (a fixed double with few decimals of a value up to 1e300 included).
inline constexpr int kNumberTextBytes = 320;

// A non-finite value is written "nan", "inf" or "-inf".
char* writeShortest(char* first, char* last, float value);
char* writeFixed(char* first, char* last, double value, int decimals);  // "%.{decimals}f"
char* writeInteger(char* first, char* last, long long value);

void appendShortest(QByteArray& out, float value);
void appendFixed(QByteArray& out, double value, int decimals);
void appendInteger(QByteArray& out, long long value);

}  // namespace ml
