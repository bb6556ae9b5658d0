#pragma once
// Helpers shared by the test executables.
#include "InputError.h"

#include <QString>

namespace ml::test {

// The message of the ml::InputError that f throws, or "" if it throws none.
template <typename F>
QString inputErrorOf(F&& f) {
    try {
        f();
    } catch (const ml::InputError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

}  // namespace ml::test
