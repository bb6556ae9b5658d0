#include "DataFiles.h"

#include "InputError.h"
#include "io/MemoryBudget.h"

#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <limits>
#include <memory>

namespace ml {

namespace {

std::string str(const QString& s) { return s.toStdString(); }

// Owns a z_stream and ends it with the matching call (inflateEnd / deflateEnd).
template <int (*End)(z_streamp)>
struct ZStream {
    z_stream z{};
    ~ZStream() { End(&z); }
};

}  // namespace

QByteArray readMaybeGzippedFile(const QString& path) {
    QByteArray bytes = readFileBytes(path);
    if (!path.endsWith(QLatin1String(".gz"))) return bytes;
    if (const std::optional<std::uint32_t> declared = gzipDeclaredSize(bytes))
        requireWithinMemoryBudget(*declared,
                                  path.toStdString() + ": decompressing it (the size its gzip trailer declares)");
    return gunzip(bytes, path);
}

std::optional<std::uint32_t> gzipDeclaredSize(QByteArrayView gz) {
    constexpr qsizetype kSmallestGzip = 18;  // 10-byte header + empty deflate data + 8-byte trailer
    if (gz.size() < kSmallestGzip) return std::nullopt;
    const auto* end = reinterpret_cast<const unsigned char*>(gz.data() + gz.size());
    return std::uint32_t{end[-4]} | std::uint32_t{end[-3]} << 8 | std::uint32_t{end[-2]} << 16 |
           std::uint32_t{end[-1]} << 24;
}

QByteArray gzipCompress(QByteArrayView data, GzipLevel level) {
    ZStream<deflateEnd> s;
    // windowBits 15 + 16 selects the gzip wrapper.
    if (deflateInit2(&s.z, level == GzipLevel::Fastest ? Z_BEST_SPEED : Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                     Z_DEFAULT_STRATEGY) != Z_OK)
        throw std::runtime_error("zlib deflateInit2 failed");
    QByteArray out(static_cast<qsizetype>(deflateBound(&s.z, static_cast<uLong>(data.size()))), '\0');
    s.z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    s.z.avail_in = static_cast<uInt>(data.size());
    s.z.next_out = reinterpret_cast<Bytef*>(out.data());
    s.z.avail_out = static_cast<uInt>(out.size());
    if (deflate(&s.z, Z_FINISH) != Z_STREAM_END) throw std::runtime_error("zlib deflate failed");
    out.truncate(static_cast<qsizetype>(s.z.total_out));
    return out;
}

bool gzipSizePlausible(std::int64_t declared, std::int64_t compressedBytes) {
    return declared <= kMaxDeflateExpansion * compressedBytes;
}

bool inflateSingleMember(QByteArrayView gz, std::span<std::uint8_t> out) {
    const std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)> inflater(
        libdeflate_alloc_decompressor(), libdeflate_free_decompressor);
    if (!inflater) return false;
    std::size_t consumed = 0, produced = 0;
    return libdeflate_gzip_decompress_ex(inflater.get(), gz.data(), static_cast<std::size_t>(gz.size()), out.data(),
                                         out.size(), &consumed, &produced) == LIBDEFLATE_SUCCESS &&
           consumed == static_cast<std::size_t>(gz.size()) && produced == out.size();
}

QByteArray gunzip(QByteArrayView gz, const QString& name, std::int64_t maxBytes) {
    if (gz.size() > static_cast<qsizetype>(std::numeric_limits<uInt>::max()))
        throw InputError(str(name) + ": compressed data too large (over 4 GiB)");
    ZStream<inflateEnd> s;
    if (inflateInit2(&s.z, 16 + MAX_WBITS) != Z_OK) throw std::runtime_error("zlib inflateInit2 failed");
    s.z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
    s.z.avail_in = static_cast<uInt>(gz.size());
    const std::optional<std::uint32_t> declared = gzipDeclaredSize(gz);
    if (declared && *declared > maxBytes)
        throw InputError(str(name) + ": its gzip trailer (last 4 bytes) declares " + std::to_string(*declared) +
                         " bytes uncompressed, more than the limit of " + std::to_string(maxBytes) +
                         "; expected a complete gzip file within the limit");
    if (declared && gzipSizePlausible(*declared, gz.size())) {
        QByteArray whole(static_cast<qsizetype>(*declared), Qt::Uninitialized);
        if (inflateSingleMember(
                gz, {reinterpret_cast<std::uint8_t*>(whole.data()), static_cast<std::size_t>(whole.size())}))
            return whole;
    }
    // One byte past the declared size is enough to see a lie. The trailer is the last member's: once
    // a second member starts (`cat a.gz b.gz`, as gzip reads it), only maxBytes bounds the output.
    std::optional<std::uint32_t> bound = declared;
    std::int64_t cap = declared ? std::int64_t{*declared} + 1 : maxBytes;
    QByteArray out;
    constexpr qsizetype kChunk = 1 << 20;
    int rc = Z_OK;
    for (;;) {
        if (rc == Z_STREAM_END) {
            if (s.z.avail_in == 0) break;
            const auto* next = s.z.next_in;
            if (s.z.avail_in < 2 || next[0] != 0x1f || next[1] != 0x8b)
                throw InputError(str(name) + ": " + std::to_string(s.z.avail_in) +
                                 " bytes after the end of the gzip data (at byte " +
                                 std::to_string(gz.size() - s.z.avail_in) +
                                 "); expected the end of the file or another gzip member");
            if (inflateReset(&s.z) != Z_OK) throw std::runtime_error("zlib inflateReset failed");
            bound.reset();
            cap = maxBytes;
            rc = Z_OK;
        }
        if (out.size() >= cap)
            throw InputError(str(name) + ": decompresses to more than " + std::to_string(maxBytes) +
                             " bytes, the limit");
        const qsizetype before = out.size();
        const qsizetype chunk = std::min<qsizetype>(kChunk, cap - before);
        out.resize(before + chunk);
        s.z.next_out = reinterpret_cast<Bytef*>(out.data() + before);
        s.z.avail_out = static_cast<uInt>(chunk);
        rc = inflate(&s.z, Z_NO_FLUSH);
        out.resize(before + chunk - static_cast<qsizetype>(s.z.avail_out));
        if (bound && out.size() > *bound)
            throw InputError(str(name) + ": decompresses to more than the " + std::to_string(*bound) +
                             " bytes its gzip trailer declares (corrupt, a gzip bomb, or several gzip members of which "
                             "the last is the smaller: recompress it as one)");
        if (rc == Z_BUF_ERROR && s.z.avail_in == 0)
            throw InputError(str(name) + ": truncated gzip data (unexpected end of stream)");
        if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
            throw InputError(str(name) + ": not valid gzip data (" +
                             (s.z.msg ? s.z.msg : "zlib error " + std::to_string(rc)) + ")");
    }
    return out;
}

}  // namespace ml
