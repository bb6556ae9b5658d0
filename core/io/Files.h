#pragma once
// Whole-file reading and atomic writing, shared by every reader and writer of the project.
// Reading a file the user named is input (ml::InputError); writing is not (ml::FileError).
#include <QByteArray>
#include <QByteArrayView>
#include <QFile>
#include <QSaveFile>
#include <QString>

#include <string>
#include <vector>

namespace ml {

// Refuses, before it is opened, what is not a regular file -- a folder, a FIFO, a device, a socket
// (/dev/zero would fill memory, a FIFO without a writer would block). A missing file passes:
// opening it then says so. Throws InputError naming the path.
void checkRegularFile(const QString& path);

// Opens `file` (its fileName(): a path or a Qt resource) for reading, after checkRegularFile: the
// one way every reader of the project opens what it reads, so that a FIFO or a device is refused
// by name instead of blocking or never ending. Throws InputError naming the path.
void openForReading(QFile& file);

// Reads a file or a Qt resource (":/data/...") completely, after checkRegularFile with the memory
// budget (io/MemoryBudget.h). Throws InputError naming the path.
QByteArray readFileBytes(const QString& path);

// Checks, before anything is written, that `path` (given by `what`, e.g. "--out") is a writable
// folder or can be created inside one. Throws InputError naming it and saying what was expected.
void checkOutputFolder(const QString& path, const std::string& what);

// Whether `path` is `folder` or lies inside it once links are resolved (neither need exist yet:
// the part that exists is resolved, std::filesystem::weakly_canonical). Two names of one folder
// through a link are the same folder here.
bool isSameOrInside(const QString& path, const QString& folder);

// Removes `path` itself: a file, a link (never followed: what it points at stays) or a folder with
// everything in it. A missing path is fine. Throws FileError naming the path.
void removePath(const QString& path);

// Writes `contents` to `path` atomically: either the whole file appears or the old one stays.
// Throws FileError naming the path.
void writeFileAtomically(const QString& path, QByteArrayView contents);

// A file written piece by piece that appears only on commit() (QSaveFile); destroyed without
// commit() it leaves the old file. Every write, the flush and the sync to disk are checked;
// failures throw FileError naming the path and the reason ("No space left on device").
class AtomicFile {
public:
    explicit AtomicFile(const QString& path);
    void write(QByteArrayView bytes);
    void commit();  // flushes and syncs (checked), then publishes
    QString path() const { return file_.fileName(); }

private:
    [[noreturn]] void discard(const QString& reason);
    QSaveFile file_;
};

// A log that grows while the process runs (a run's metrics.csv): bytes are appended to the file
// itself, never rewritten, so after any kill of the process it holds everything up to the last
// flush() (close() also syncs it to disk, like AtomicFile). Opening starts it empty. Every write,
// flush and sync is checked; failures throw FileError naming the path.
class AppendOnlyFile {
public:
    explicit AppendOnlyFile(const QString& path);
    void append(QByteArrayView bytes);  // buffered in the process
    void flush();                       // hands the buffer to the operating system
    void close();                       // flushes, syncs and closes; later calls do nothing
    void closeUnsynced();               // flushes and closes, for a DurableBatch to sync
    QString path() const { return file_.fileName(); }

private:
    QFile file_;
};

// The files of one unit of work (a study trial's run folder), written in place when they come and
// made durable together by commit(), which syncs each of them and the logs written elsewhere. The
// unit's own marker, written atomically after commit(), is what says they are whole (a folder
// without it is cleared and run again), so each file needs no atomic rename of its own, which would
// cost it a second inode and a second sync. Errors: FileError naming the path.
class DurableBatch {
public:
    void write(const QString& path, QByteArrayView contents);  // the whole file, now, unsynced
    void syncOnCommit(const QString& logPath);                 // a log closed with AppendOnlyFile::closeUnsynced()
    void commit();                                             // later calls do nothing until the next write

private:
    std::vector<QString> unsynced_;
};

// Makes every file written so far on the file system holding `folder` durable, with one syncfs(2):
// one pass of writeback and one cache flush for many files, instead of an fsync (and a flush) per
// file. It also writes whatever other programs left dirty on that file system. Errors: FileError
// naming `folder`.
void syncFileSystemOf(const QString& folder);

}  // namespace ml
