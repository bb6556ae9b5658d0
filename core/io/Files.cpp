#include "io/Files.h"

#include "InputError.h"
#include "io/FileError.h"

#include <QFile>

namespace ml {

FileError::FileError(const QString& path, const QString& reason)
    : std::runtime_error((path + ": cannot write (" + reason + ")").toStdString()), path_(path), reason_(reason) {}

QByteArray readFileBytes(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        throw InputError(path.toStdString() + ": cannot open (" + file.errorString().toStdString() + ")");
    QByteArray bytes = file.readAll();
    if (file.error() != QFileDevice::NoError)
        throw InputError(path.toStdString() + ": cannot read (" + file.errorString().toStdString() + ")");
    return bytes;
}

void writeFileAtomically(const QString& path, QByteArrayView contents) {
    AtomicFile file(path);
    file.write(contents);
    file.commit();
}

AtomicFile::AtomicFile(const QString& path) : file_(path) {
    if (!file_.open(QIODevice::WriteOnly)) throw FileError(path, file_.errorString());
}

void AtomicFile::write(QByteArrayView bytes) {
    if (file_.write(bytes.data(), bytes.size()) != bytes.size()) throw FileError(path(), file_.errorString());
}

void AtomicFile::commit() {
    if (!file_.commit()) throw FileError(path(), file_.errorString());
}

}  // namespace ml
