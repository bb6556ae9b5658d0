#pragma once
// Floats in the project's JSON files (weights, training states): written as their shortest text
// (reads back as the same float, bit for bit); JSON has no NaN or infinity, so a non-finite value
// is the string "nan", "inf" or "-inf" and read back as such. -0 is written 0 (Qt's reader keeps
// whole numbers as integers and would read "-0" as 0 anyway; this way a file round-trips byte for byte).
#include <QByteArray>
#include <QJsonValue>

#include <Eigen/Core>

#include <string>

namespace ml {

void appendJsonNumber(QByteArray& out, float value);

// [v0,v1,...] of any Eigen vector or block expression.
template <typename Values>
void appendJsonArray(QByteArray& out, const Values& values) {
    out.append('[');
    for (Eigen::Index i = 0; i < values.size(); ++i) {
        if (i > 0) out.append(',');
        appendJsonNumber(out, values(i));
    }
    out.append(']');
}

// A number, or one of the strings above. Refuses (InputError naming `context`) other values and
// finite numbers beyond float's range.
float floatFromJson(const QJsonValue& value, const std::string& context);

}  // namespace ml
