#pragma once
// Helpers shared by the test executables.
#include "InputError.h"

#include <QByteArray>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QList>
#include <QString>

#include <map>

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

// `csv` with every cell of its wall_ms column (the documented wall-time field of metrics.csv and
// summary.csv, runfolder/RunCsv.h) replaced by "*"; any other file comes back unchanged. The column is
// counted from the end of the row, so a quoted label with commas in the first column does not shift it.
inline QByteArray maskWallTime(const QByteArray& csv) {
    QList<QByteArray> lines = csv.split('\n');
    const QList<QByteArray> header = lines.front().split(',');
    const qsizetype column = header.indexOf("wall_ms");
    if (column < 0) return csv;
    const qsizetype fromEnd = header.size() - 1 - column;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        if (lines[i].isEmpty()) continue;
        QList<QByteArray> cells = lines[i].split(',');
        if (cells.size() > fromEnd) cells[cells.size() - 1 - fromEnd] = "*";
        lines[i] = cells.join(',');
    }
    return lines.join('\n');
}

// Every file under `directory` (path relative to it -> contents, wall time masked).
inline std::map<QString, QByteArray> folderContents(const QString& directory) {
    std::map<QString, QByteArray> files;
    QDirIterator it(directory, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        QFile file(it.next());
        if (!file.open(QIODevice::ReadOnly)) continue;  // the comparison then reports it missing
        files[QDir(directory).relativeFilePath(file.fileName())] = maskWallTime(file.readAll());
    }
    return files;
}

// Empty when both folders hold the same files with the same bytes (wall time masked), else what differs.
inline QString folderDifference(const QString& a, const QString& b) {
    const std::map<QString, QByteArray> left = folderContents(a), right = folderContents(b);
    QStringList problems;
    for (const auto& [name, bytes] : left) {
        const auto other = right.find(name);
        if (other == right.end()) problems << name + " only in " + a;
        else if (other->second != bytes) problems << name + " differs";
    }
    for (const auto& [name, bytes] : right)
        if (!left.count(name)) problems << name + " only in " + b;
    if (left.empty()) problems << a + " holds no files";
    return problems.join("; ");
}

}  // namespace ml::test
