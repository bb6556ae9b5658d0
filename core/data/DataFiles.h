#pragma once
// gzip in memory for the data loaders (zlib, and libdeflate for whole single-member files; Qt's
// qCompress/qUncompress use zlib's own framing, not gzip). Bad data throws ml::InputError. Plain
// reading and atomic writing: io/Files.h.
#include "io/Files.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <cstdint>
#include <optional>
#include <span>

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
// before anything is inflated, data beyond the trailer's size as soon as it appears. Every member
// is read, as gzip does (`cat a.gz b.gz`); bytes after the last member that are not one are refused.
QByteArray gunzip(QByteArrayView gz, const QString& name, std::int64_t maxBytes = kMaxPayloadBytes);

// Deflate writes at most about 1032 bytes per byte of input (RFC 1951's longest match in the
// fewest bits), so a gzip trailer promising more than that per byte of the file is a lie.
inline constexpr std::int64_t kMaxDeflateExpansion = 1032;
// True when `declared` bytes could come out of `compressedBytes` of gzip (kMaxDeflateExpansion):
// only then is the declared size worth allocating up front.
bool gzipSizePlausible(std::int64_t declared, std::int64_t compressedBytes);

// The fast path of every gzip reader: decompresses `gz` into `out` in one call over whole buffers
// (libdeflate, about twice as fast as zlib's stream) when `gz` is exactly one gzip member whose data
// are exactly out.size() bytes with a matching CRC. `out` is sized by the caller from the trailer,
// after its checks against the limits, so nothing here allocates. False for anything else (several
// members, bytes after the member, corrupt or truncated data, another size; `out` then holds
// garbage): the caller reads `gz` with zlib's stream instead, which accepts what gzip accepts and
// says what is wrong with the rest.
bool inflateSingleMember(QByteArrayView gz, std::span<std::uint8_t> out);

}  // namespace ml
