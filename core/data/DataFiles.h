#pragma once
// Whole-file reading and writing for the data loaders, with gzip in memory (zlib; Qt's
// qCompress/qUncompress use zlib's own framing, not gzip). Failures throw ml::InputError.
#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <cstdint>

namespace ml {

// Largest uncompressed payload any loader accepts (a guard against lying headers / gzip bombs).
inline constexpr std::int64_t kMaxPayloadBytes = std::int64_t{1} << 30;  // 1 GiB

// Reads a file or a Qt resource (":/data/...") completely.
QByteArray readFileBytes(const QString& path);

// Reads a file; if its name ends in ".gz" it is decompressed (at most kMaxPayloadBytes).
QByteArray readMaybeGzippedFile(const QString& path);

// gzip (RFC 1952) compression and decompression. `name` is used in error messages.
QByteArray gzipCompress(QByteArrayView data);
QByteArray gunzip(QByteArrayView gz, const QString& name, std::int64_t maxBytes = kMaxPayloadBytes);

// Writes `data` to `path` atomically (QSaveFile): either the whole file appears or none.
void writeFileAtomically(const QString& path, QByteArrayView data);

}  // namespace ml
