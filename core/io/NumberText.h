#pragma once
// Numbers as text for the files the app writes, through std::to_chars: no locale, no allocation,
// and for floats the shortest text that reads back as the same float, so a file round-trips bit
// for bit ("0.1", "1e-05", "3"). Each call appends to `out` and allocates only when out's capacity
// does not suffice (writers keep one buffer and reuse it).
#include <QByteArray>

namespace ml {

// Finite values only make sense here; a non-finite one is written "nan", "inf" or "-inf".
void appendShortest(QByteArray& out, float value);
void appendFixed(QByteArray& out, double value, int decimals);  // "%.{decimals}f"
void appendInteger(QByteArray& out, long long value);

}  // namespace ml
