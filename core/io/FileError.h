#pragma once
// A file that cannot be written (or committed): the disk, permissions or a missing folder, not
// the user's input. Front ends report what() ("PATH: cannot write (REASON)") and exit with 1.
#include <QString>

#include <stdexcept>

namespace ml {

class FileError : public std::runtime_error {
public:
    FileError(const QString& path, const QString& reason);
    const QString& path() const { return path_; }
    const QString& reason() const { return reason_; }

private:
    QString path_;
    QString reason_;
};

}  // namespace ml
