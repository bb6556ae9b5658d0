#pragma once
// Bad input from the user (a flag, a file, a field). Front ends print what() and exit with
// status 2; the message must name the flag, file, line or field and say what was expected.
#include <stdexcept>
#include <string>

namespace ml {

class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace ml
