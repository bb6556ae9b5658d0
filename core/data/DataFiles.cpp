#include "DataFiles.h"

#include "InputError.h"

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
    return path.endsWith(QLatin1String(".gz")) ? gunzip(bytes, path) : bytes;
}

QByteArray gzipCompress(QByteArrayView data) {
    ZStream<deflateEnd> s;
    // windowBits 15 + 16 selects the gzip wrapper.
    if (deflateInit2(&s.z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
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

QByteArray gunzip(QByteArrayView gz, const QString& name, std::int64_t maxBytes) {
    if (gz.size() > static_cast<qsizetype>(std::numeric_limits<uInt>::max()))
        throw InputError(str(name) + ": compressed data too large (over 4 GiB)");
    ZStream<inflateEnd> s;
    if (inflateInit2(&s.z, 16 + MAX_WBITS) != Z_OK) throw std::runtime_error("zlib inflateInit2 failed");
    s.z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
    s.z.avail_in = static_cast<uInt>(gz.size());
    QByteArray out;
    constexpr qsizetype kChunk = 1 << 20;
    int rc = Z_OK;
    while (rc != Z_STREAM_END) {
        if (out.size() >= maxBytes)
            throw InputError(str(name) + ": decompresses to more than " + std::to_string(maxBytes) +
                             " bytes, the limit");
        const qsizetype before = out.size();
        const qsizetype chunk = std::min<qsizetype>(kChunk, maxBytes - before);
        out.resize(before + chunk);
        s.z.next_out = reinterpret_cast<Bytef*>(out.data() + before);
        s.z.avail_out = static_cast<uInt>(chunk);
        rc = inflate(&s.z, Z_NO_FLUSH);
        out.resize(before + chunk - static_cast<qsizetype>(s.z.avail_out));
        if (rc == Z_BUF_ERROR && s.z.avail_in == 0)
            throw InputError(str(name) + ": truncated gzip data (unexpected end of stream)");
        if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
            throw InputError(str(name) + ": not valid gzip data (" +
                             (s.z.msg ? s.z.msg : "zlib error " + std::to_string(rc)) + ")");
    }
    return out;
}

}  // namespace ml
