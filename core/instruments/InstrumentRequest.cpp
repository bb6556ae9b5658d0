#include "instruments/InstrumentRequest.h"

#include "InputError.h"

#include <string>

namespace ml {

int wholeOption(const QCommandLineParser& parser, const char* name, int fallback, int low) {
    if (!parser.isSet(name)) return fallback;
    bool ok = false;
    const int value = parser.value(name).toInt(&ok);
    if (!ok || value < low)
        throw InputError(std::string("--") + name + ": expected a whole number >= " + std::to_string(low) + ", not '" +
                         parser.value(name).toStdString() + "'");
    return value;
}

long countOption(const QCommandLineParser& parser, const QString& name, long fallback, long maximum) {
    if (!parser.isSet(name)) return fallback;
    bool ok = false;
    const qlonglong value = parser.value(name).toLongLong(&ok);
    if (!ok || value < 1 || value > maximum)
        throw InputError("--" + name.toStdString() + " " + parser.value(name).toStdString() +
                         ": expected a whole number from 1 to " + std::to_string(maximum));
    return long(value);
}

int InstrumentRequest::wholeNumber(const char* flag, int fallback, int low) const {
    return flags_ ? wholeOption(*flags_, flag, fallback, low) : fallback;
}

long InstrumentRequest::count(const char* flag, long fallback, long maximum) const {
    return flags_ ? countOption(*flags_, flag, fallback, maximum) : fallback;
}

}  // namespace ml
