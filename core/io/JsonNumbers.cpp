#include "io/JsonNumbers.h"

#include "InputError.h"
#include "io/NumberText.h"

#include <QString>

#include <cmath>

namespace ml {

void appendJsonNumber(QByteArray& out, float value) {
    if (std::isnan(value)) return void(out.append("\"nan\""));
    if (std::isinf(value)) return void(out.append(value > 0 ? "\"inf\"" : "\"-inf\""));
    appendShortest(out, value == 0.0f ? 0.0f : value);
}

float floatFromJson(const QJsonValue& value, const std::string& context) {
    if (value.isDouble()) {
        // A finite number beyond float's range would silently become infinity. The limit is the
        // midpoint between FLT_MAX and 2^128: below it a number rounds to FLT_MAX (whose shortest
        // text, 3.4028235e+38, is a little above FLT_MAX itself); from it on, to infinity.
        constexpr double kRoundsToInfinity = 0x1.ffffffp127;
        const double number = value.toDouble();
        if (std::abs(number) >= kRoundsToInfinity)
            throw InputError(
                context + ": " + QString::number(number, 'g', 6).toStdString() +
                " is outside float's range (at most about 3.4e+38); write \"inf\" or \"-inf\" for infinity");
        return static_cast<float>(number);
    }
    const QString text = value.toString();
    if (text == "nan") return NAN;
    if (text == "inf") return INFINITY;
    if (text == "-inf") return -INFINITY;
    throw InputError(context + ": expected a number (or \"nan\", \"inf\", \"-inf\")");
}

}  // namespace ml
