#pragma once
// gzip in memory for the data loaders (zlib; Qt's qCompress/qUncompress use zlib's own framing,
// not gzip). Bad data throws ml::InputError. Plain reading and atomic writing: io/Files.h.
#include "io/Files.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <cstdint>

namespace ml {

// Largest uncompressed payload any loader accepts (a guard against lying headers / gzip bombs).
inline constexpr std::int64_t kMaxPayloadBytes = std::int64_t{1} << 30;  // 1 GiB

// Reads a file; if its name ends in ".gz" it is decompressed (at most kMaxPayloadBytes).
QByteArray readMaybeGzippedFile(const QString& path);

// gzip (RFC 1952) compression and decompression. `name` is used in error messages.
QByteArray gzipCompress(QByteArrayView data);
QByteArray gunzip(QByteArrayView gz, const QString& name, std::int64_t maxBytes = kMaxPayloadBytes);

}  // namespace ml
