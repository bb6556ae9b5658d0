#pragma once
// gzip in memory for the data loaders (zlib; Qt's qCompress/qUncompress use zlib's own framing,
// not gzip). Bad data throws ml::InputError. Plain reading and atomic writing: io/Files.h.
#include "io/Files.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <cstdint>
#include <optional>

namespace ml {

// Largest uncompressed payload any loader accepts (a guard against lying headers / gzip bombs).
inline constexpr std::int64_t kMaxPayloadBytes = std::int64_t{1} << 30;  // 1 GiB

// Reads a file; if its name ends in ".gz" it is decompressed (at most kMaxPayloadBytes and the
// memory budget, io/MemoryBudget.h).
QByteArray readMaybeGzippedFile(const QString& path);

// gzip (RFC 1952) compression and decompression. `name` is used in error messages.
// Smallest: zlib level 9 (files written once); Fastest: level 1 (training states, written while
// training: a 784-128-10 adam state of 4.9 MB in ~0.1 s instead of ~2 s, 2.1 MB instead of 1.8 MB).
enum class GzipLevel { Smallest, Fastest };
QByteArray gzipCompress(QByteArrayView data, GzipLevel level = GzipLevel::Smallest);
// The size a gzip stream's trailer declares (ISIZE: the uncompressed size modulo 2^32; of the last
// member when there are several); nothing when `gz` is too short to be gzip. A gzip bomb cannot
// hide behind it: gunzip stops at the declared size.
std::optional<std::uint32_t> gzipDeclaredSize(QByteArrayView gz);
// Decompresses at most min(maxBytes, the trailer's ISIZE): a trailer over maxBytes is refused
// before anything is inflated, data beyond the trailer's size as soon as it appears.
QByteArray gunzip(QByteArrayView gz, const QString& name, std::int64_t maxBytes = kMaxPayloadBytes);

}  // namespace ml
