#pragma once
// Scratch files for the fuzz targets whose reader takes a path (the CLI's own entry points): one
// private folder per process, in $TMPDIR (scripts/fuzz.sh points it at /dev/shm, a tmpfs), each
// input overwriting the last.
#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QString>
#include <QTemporaryDir>

#include <cstdint>
#include <cstdlib>

namespace ml::fuzz {

class FuzzScratch {
public:
    static FuzzScratch& instance() {
        static FuzzScratch scratch;
        return scratch;
    }
    QString path(const QString& relative) const { return QDir(dir_.path()).filePath(relative); }
    // Writes `bytes` to `relative` inside the folder (creating its parent folders); returns the path,
    // or "" when that path cannot be a file (the input named "a" as a file and then "a/b").
    QString write(const QString& relative, const QByteArray& bytes) const {
        const QString file = path(relative);
        QDir().mkpath(QFileInfo(file).absolutePath());
        QFile out(file);
        if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate)) return {};
        if (out.write(bytes) != bytes.size()) std::abort();  // the scratch folder itself failed
        return file;
    }
    // An empty subfolder `name` (whatever the previous input left there).
    QString freshFolder(const QString& name) const {
        QDir folder(path(name));
        folder.removeRecursively();
        if (!QDir().mkpath(folder.path())) std::abort();
        return folder.path();
    }

private:
    FuzzScratch() {
        if (!dir_.isValid()) std::abort();
    }
    QTemporaryDir dir_;
};

inline QByteArray bytesOf(const std::uint8_t* data, std::size_t size) {
    return QByteArray(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
}

}  // namespace ml::fuzz
