#include "io/Files.h"

#include "InputError.h"
#include "io/FileError.h"
#include "io/MemoryBudget.h"

#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <system_error>
#include <climits>
#include <fcntl.h>
#include <sys/vfs.h>
#include <unistd.h>

namespace ml {

namespace {

// Why the last write or flush of `file` failed. Qt loses errno when a write was partial (it then
// says "Unknown error"), so the system's reason comes first; callers clear errno before the call.
QString writeFailure(const QFileDevice& file) { return errno != 0 ? qt_error_string(errno) : file.errorString(); }

}  // namespace

FileError::FileError(const QString& path, const QString& reason)
    : std::runtime_error((path + ": cannot write (" + reason + ")").toStdString()), path_(path), reason_(reason) {}

void checkRegularFile(const QString& path) {
    const QFileInfo info(path);
    if (!info.exists()) return;
    const std::string named = path.toStdString();
    if (info.isDir()) throw InputError(named + ": is a folder; expected a file");
    if (!info.isFile()) throw InputError(named + ": is not a regular file (a FIFO, device or socket); expected a file");
}

void openForReading(QFile& file) {
    const QString path = file.fileName();
    checkRegularFile(path);
    if (!file.open(QIODevice::ReadOnly))
        throw InputError(path.toStdString() + ": cannot open (" + file.errorString().toStdString() + ")");
}

QByteArray readFileBytes(const QString& path) {
    checkRegularFile(path);
    requireWithinMemoryBudget(static_cast<std::uint64_t>(std::max<qint64>(0, QFileInfo(path).size())),
                              path.toStdString() + ": reading it");
    QFile file(path);
    openForReading(file);
    QByteArray bytes = file.readAll();
    if (file.error() != QFileDevice::NoError)
        throw InputError(path.toStdString() + ": cannot read (" + file.errorString().toStdString() + ")");
    return bytes;
}

namespace {

// The kernel's own file systems: they accept no new folders, whatever the permissions say.
const char* virtualFileSystem(const QString& folder) {
    struct statfs info {};
    if (::statfs(QFile::encodeName(folder).constData(), &info) != 0) return nullptr;
    switch (static_cast<unsigned long>(info.f_type)) {
    case 0x9fa0: return "proc";
    case 0x62656572: return "sysfs";
    case 0x27e0eb: return "cgroup";
    case 0x63677270: return "cgroup2";
    case 0x64626720: return "debugfs";
    default: return nullptr;
    }
}

}  // namespace

void checkOutputFolder(const QString& path, const std::string& what) {
    if (path.isEmpty()) throw InputError(what + ": empty; expected the folder to write into");
    const std::string named = what + " " + path.toStdString();
    for (const QString& part : QFileInfo(path).absoluteFilePath().split('/', Qt::SkipEmptyParts))
        if (QFile::encodeName(part).size() > NAME_MAX)
            throw InputError(named + ": the name '" + part.left(20).toStdString() + "...' is " +
                             std::to_string(QFile::encodeName(part).size()) +
                             " bytes long; a file system takes at most " + std::to_string(NAME_MAX) +
                             " bytes per name");
    const QFileInfo info(path);
    if (info.exists()) {
        if (!info.isDir())
            throw InputError(named + ": is not a folder; expected a folder to write into (or a new one)");
        if (!info.isWritable()) throw InputError(named + ": the folder is not writable");
        if (const char* system = virtualFileSystem(path))
            throw InputError(named + ": is on the kernel's " + system + " file system, which holds no files of ours");
        return;
    }
    QString ancestor = info.absoluteFilePath();  // the nearest existing folder, where it would be created
    while (!QFileInfo::exists(ancestor)) {
        if (QFileInfo(ancestor).isSymLink())  // exists() follows links: this one points nowhere
            throw InputError(named + ": cannot be created: " + ancestor.toStdString() + " is a link to " +
                             QFileInfo(ancestor).symLinkTarget().toStdString() + ", which does not exist");
        ancestor = QFileInfo(ancestor).absolutePath();
    }
    const QFileInfo parent(ancestor);
    if (!parent.isDir())
        throw InputError(named + ": cannot be created: " + ancestor.toStdString() + " is not a folder");
    if (!parent.isWritable())
        throw InputError(named + ": cannot be created: the folder " + ancestor.toStdString() + " is not writable");
    if (const char* system = virtualFileSystem(ancestor))
        throw InputError(named + ": cannot be created: " + ancestor.toStdString() + " is on the kernel's " + system +
                         " file system, which takes no folders of ours");
}

void removePath(const QString& path) {
    std::error_code error;
    std::filesystem::remove_all(QFile::encodeName(path).toStdString(), error);
    if (error) throw FileError(path, "cannot remove it: " + QString::fromStdString(error.message()));
}

bool isSameOrInside(const QString& path, const QString& folder) {
    const auto resolved = [](const QString& name) {
        std::error_code error;
        const std::filesystem::path absolute = std::filesystem::absolute(QFile::encodeName(name).toStdString(), error);
        const std::filesystem::path canonical = std::filesystem::weakly_canonical(absolute, error);
        return (error ? absolute : canonical).lexically_normal();
    };
    const std::filesystem::path inner = resolved(path), outer = resolved(folder);
    const auto outerEnd = std::mismatch(outer.begin(), outer.end(), inner.begin(), inner.end()).first;
    // "a/b/" normalizes with an empty last element; it matches any continuation.
    return outerEnd == outer.end() || (std::next(outerEnd) == outer.end() && outerEnd->empty());
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
    errno = 0;
    if (file_.write(bytes.data(), bytes.size()) != bytes.size()) discard(writeFailure(file_));
}

void AtomicFile::commit() {
    // QSaveFile::commit() (Qt 6.4) publishes the file even when its final flush fails (a full
    // disk) and ignores fsync errors: flush and sync here, where a failure still discards it.
    errno = 0;
    if (!file_.flush()) discard(writeFailure(file_));
    if (::fsync(file_.handle()) != 0) discard(qt_error_string(errno));
    if (!file_.commit()) throw FileError(path(), file_.errorString());
}

void AtomicFile::discard(const QString& reason) {
    file_.cancelWriting();  // commit() then removes the temporary file and keeps the old one
    file_.commit();
    throw FileError(path(), reason);
}

AppendOnlyFile::AppendOnlyFile(const QString& path) : file_(path) {
    if (!file_.open(QIODevice::WriteOnly | QIODevice::Truncate)) throw FileError(path, file_.errorString());
}

void AppendOnlyFile::append(QByteArrayView bytes) {
    errno = 0;
    if (file_.write(bytes.data(), bytes.size()) != bytes.size()) throw FileError(path(), writeFailure(file_));
}

void AppendOnlyFile::flush() {
    errno = 0;
    if (!file_.flush()) throw FileError(path(), writeFailure(file_));
}

void AppendOnlyFile::close() {
    if (!file_.isOpen()) return;
    flush();
    if (::fsync(file_.handle()) != 0) throw FileError(path(), qt_error_string(errno));
    file_.close();
}

void AppendOnlyFile::closeUnsynced() {
    if (!file_.isOpen()) return;
    flush();
    file_.close();
}

namespace {

// Syncs a file written and closed elsewhere (fsync through a descriptor of our own).
void syncClosedFile(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) throw FileError(path, file.errorString());
    if (::fsync(file.handle()) != 0) throw FileError(path, qt_error_string(errno));
}

}  // namespace

void DurableBatch::write(const QString& path, QByteArrayView contents) {
    AppendOnlyFile file(path);
    file.append(contents);
    file.closeUnsynced();
    unsynced_.push_back(path);
}

void DurableBatch::syncOnCommit(const QString& logPath) { unsynced_.push_back(logPath); }

void DurableBatch::commit() {
    // One after another: overlapping them on threads measured no faster here (5 small files: about
    // 1 ms either way), and the study runner commits on a thread of its own.
    for (const QString& path : unsynced_) syncClosedFile(path);
    unsynced_.clear();
}

void syncFileSystemOf(const QString& folder) {
    // QFile refuses to open a folder: a descriptor of our own.
    const int descriptor = ::open(QFile::encodeName(folder).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (descriptor < 0) throw FileError(folder, qt_error_string(errno));
    // syncfs reports write-back errors of the file system since Linux 5.8.
    const int result = ::syncfs(descriptor);
    const int error = errno;
    ::close(descriptor);
    if (result != 0) throw FileError(folder, qt_error_string(error));
}

}  // namespace ml
