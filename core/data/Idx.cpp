#include "Idx.h"

#include "DataFiles.h"
#include "InputError.h"
#include "io/MemoryBudget.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <span>

namespace ml {

namespace {

const char* typeName(int code) {
    switch (code) {
    case 0x08: return "unsigned byte";
    case 0x09: return "signed byte";
    case 0x0B: return "short";
    case 0x0C: return "int";
    case 0x0D: return "float";
    case 0x0E: return "double";
    default: return nullptr;
    }
}

std::string hexByte(int b) {
    static const char* digits = "0123456789ABCDEF";
    return std::string("0x") + digits[(b >> 4) & 15] + digits[b & 15];
}

// A gzFile that closes itself; reads report short reads and zlib errors as InputError.
class GzReader {
public:
    explicit GzReader(const std::string& path) : path_(path), file_(gzopen(path.c_str(), "rb")) {
        if (!file_) throw InputError("cannot open " + path + ": " + std::strerror(errno));
    }
    ~GzReader() { gzclose(file_); }
    GzReader(const GzReader&) = delete;
    GzReader& operator=(const GzReader&) = delete;

    // Reads up to n bytes; returns how many were read (fewer only at the end of the data).
    std::size_t read(std::uint8_t* out, std::size_t n) {
        std::size_t done = 0;
        while (done < n) {
            const unsigned chunk = static_cast<unsigned>(std::min<std::size_t>(n - done, 1u << 20));
            const int got = gzread(file_, out + done, chunk);
            if (got < 0) fail();
            if (got == 0) break;
            done += static_cast<std::size_t>(got);
        }
        if (done < n) {  // a truncated gzip stream shows up as an error after the short read
            int errnum = Z_OK;
            gzerror(file_, &errnum);
            if (errnum != Z_OK) fail();
        }
        return done;
    }
    // True if the file is not gzip-compressed (so its size on disk is the data size).
    bool isPlain() { return gzdirect(file_) != 0; }

private:
    [[noreturn]] void fail() {
        int errnum = Z_OK;
        const char* msg = gzerror(file_, &errnum);
        throw InputError(path_ + ": cannot read the data (" + (errnum == Z_ERRNO ? std::strerror(errno) : msg) + ")");
    }
    std::string path_;
    gzFile file_;
};

std::uint32_t bigEndian32(const std::uint8_t* p) {
    return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}

std::string dimsText(const std::vector<std::uint32_t>& dims) {
    std::string s;
    for (std::uint32_t d : dims) s += (s.empty() ? "" : " x ") + std::to_string(d);
    return s;
}

// The IDX file named `base` in dir, plain or gzipped; "" if neither exists. Whatever exists under
// the name is taken: readIdx refuses a folder, FIFO or device by name.
QString findIdxFile(const QDir& dir, const QString& base) {
    for (const QString& name : {base, base + QStringLiteral(".gz")})
        if (QFileInfo::exists(dir.filePath(name))) return dir.filePath(name);
    return {};
}

// The ISIZE of a gzip file (its last 4 bytes); nothing when it cannot be read.
std::optional<std::int64_t> gzipDeclaredSizeOfFile(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly) || file.size() < 18 || !file.seek(file.size() - 18)) return std::nullopt;
    const std::optional<std::uint32_t> size = gzipDeclaredSize(file.read(18));
    return size ? std::optional<std::int64_t>(*size) : std::nullopt;
}

// The fast path for a gzip file (DataFiles.h, inflateSingleMember): the whole file inflated in one
// call from a read-only mapping into `data`, which then holds the payload alone. False, with `data`
// empty, when the file is anything but one gzip member of exactly that size, or when the header it
// holds is not the one already checked (the file was replaced meanwhile): the reader's zlib stream
// then reads it (or says what is wrong).
bool inflateWholeIdx(const QString& path, std::span<const std::uint8_t> magic, std::span<const std::uint8_t> dims,
                     std::uint64_t payload, std::vector<std::uint8_t>& data) {
    QFile file(path);
    const uchar* mapped = file.open(QIODevice::ReadOnly) ? file.map(0, file.size()) : nullptr;
    if (!mapped) return false;
    const std::size_t headerBytes = magic.size() + dims.size();
    data.resize(headerBytes + payload);
    if (!inflateSingleMember(QByteArrayView(mapped, file.size()), data) ||
        !std::equal(magic.begin(), magic.end(), data.begin()) ||
        !std::equal(dims.begin(), dims.end(), data.begin() + static_cast<std::ptrdiff_t>(magic.size()))) {
        data = {};
        return false;
    }
    data.erase(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(headerBytes));
    return true;
}

}  // namespace

IdxArray readIdx(const std::string& path) {
    checkRegularFile(QString::fromStdString(path));  // gzopen would block on a FIFO without a writer
    GzReader in(path);
    std::array<std::uint8_t, 4> magic{};
    if (in.read(magic.data(), 4) < 4) throw InputError(path + ": too short for an IDX file (needs a 4-byte header)");
    if (magic[0] != 0 || magic[1] != 0)
        throw InputError(path + ": not an IDX file (the first two bytes must be zero, found " + hexByte(magic[0]) +
                         " " + hexByte(magic[1]) + ")");
    if (magic[2] != 0x08) {
        const char* name = typeName(magic[2]);
        throw InputError(path + ": type code " + hexByte(magic[2]) + (name ? std::string(" (") + name + ")" : "") +
                         (name ? " is not supported" : " is not a valid IDX type") + "; expected 0x08 (unsigned byte)");
    }
    const int rank = magic[3];
    if (rank == 0) throw InputError(path + ": the header declares 0 dimensions; expected at least 1");

    IdxArray result;
    std::vector<std::uint8_t> header(static_cast<std::size_t>(rank) * 4);
    if (in.read(header.data(), header.size()) < header.size())
        throw InputError(path + ": truncated header (expected " + std::to_string(rank) + " dimension sizes)");
    std::uint64_t payload = 1;  // product in 64 bits: at most 2^32 per factor, checked against the limit each step
    for (int i = 0; i < rank; ++i) {
        const std::uint32_t d = bigEndian32(header.data() + 4 * i);
        result.dims.push_back(d);
        if (d == 0) throw InputError(path + ": dimension " + std::to_string(i + 1) + " is 0; expected at least 1");
        payload *= d;
        if (payload > static_cast<std::uint64_t>(kMaxPayloadBytes))
            throw InputError(path + ": the dimensions " + dimsText(result.dims) + (i + 1 < rank ? " x ..." : "") +
                             " declare more than " + std::to_string(kMaxPayloadBytes) + " bytes, the limit");
    }

    const std::int64_t headerBytes = 4 + 4 * std::int64_t{rank};
    // What the file says it holds, checked against the header before anything is allocated: the
    // size on disk for a plain file, the gzip trailer's ISIZE for a compressed one (a gzip bomb, or a
    // file whose data does not match its header, is refused here instead of after inflating it).
    const QString file = QString::fromStdString(path);
    const bool plain = in.isPlain();
    const std::optional<std::int64_t> declared =
        plain ? std::optional<std::int64_t>(QFileInfo(file).size()) : gzipDeclaredSizeOfFile(file);
    // ISIZE is the size modulo 2^32; the payload limit (1 GiB) keeps a valid file below that.
    if (declared && *declared - headerBytes != static_cast<std::int64_t>(payload)) {
        const std::int64_t holds = *declared - headerBytes;
        throw InputError(path + ": the dimensions " + dimsText(result.dims) + " need " + std::to_string(payload) +
                         " data bytes but " + (plain ? "the file holds " : "its gzip trailer declares ") +
                         std::to_string(holds) +
                         (holds < static_cast<std::int64_t>(payload) ? " (truncated)" : " (trailing bytes)"));
    }
    requireWithinMemoryBudget(payload, path + ": the dimensions " + dimsText(result.dims));
    // A plain file's size was checked above, so its payload is known to be there: allocate it once.
    // So is a compressed file's when its size can hold what the trailer promises. A trailer may lie
    // (the fuzzer found 0.9 GB promised by 18 bytes; reserving it would not commit pages, but under
    // AddressSanitizer costs time in proportion): beyond deflate's limit the buffer grows
    // (geometrically) only as data arrives, so such a file costs what it really holds.
    const bool plausible = plain || (declared && gzipSizePlausible(*declared, QFileInfo(file).size()));
    if (!plain && plausible && inflateWholeIdx(file, magic, header, payload, result.data)) return result;
    // (Asking for huge pages, madvise(MADV_HUGEPAGE), made loading Fashion-MNIST ~5 % faster but a
    // plain file 8x slower on an idle machine here: the kernel compacts memory on each fault.)
    if (plausible) result.data.reserve(payload);
    constexpr std::size_t kChunk = std::size_t{1} << 20;
    while (result.data.size() < payload) {
        const std::size_t before = result.data.size();
        const std::size_t want = std::min<std::size_t>(kChunk, payload - before);
        result.data.resize(before + want);
        const std::size_t got = in.read(result.data.data() + before, want);
        if (got < want)
            throw InputError(path + ": truncated: the dimensions " + dimsText(result.dims) + " need " +
                             std::to_string(payload) + " data bytes but the file holds only " +
                             std::to_string(before + got));
    }
    std::uint8_t extra = 0;
    if (in.read(&extra, 1) != 0)
        throw InputError(path + ": trailing bytes after the " + std::to_string(payload) +
                         " data bytes that the dimensions " + dimsText(result.dims) + " declare");
    return result;
}

void writeIdx(const std::string& path, const std::vector<std::uint32_t>& dims, std::span<const std::uint8_t> data) {
    std::uint64_t payload = 1;
    for (std::uint32_t d : dims) payload *= d;
    if (dims.empty() || dims.size() > 255 || payload != data.size())
        throw std::invalid_argument("writeIdx: dimensions do not match the data");
    QByteArray bytes;
    bytes.reserve(static_cast<qsizetype>(4 + 4 * dims.size() + data.size()));
    bytes.append('\0').append('\0').append(char(0x08)).append(static_cast<char>(dims.size()));
    for (std::uint32_t d : dims)
        for (int shift = 24; shift >= 0; shift -= 8) bytes.append(static_cast<char>((d >> shift) & 0xFF));
    bytes.append(reinterpret_cast<const char*>(data.data()), static_cast<qsizetype>(data.size()));
    const QString file = QString::fromStdString(path);
    writeFileAtomically(file, file.endsWith(QLatin1String(".gz")) ? gzipCompress(bytes) : bytes);
}

namespace {

IdxArray readIdxLabels(const std::string& labelsPath) {
    IdxArray labels = readIdx(labelsPath);
    if (labels.dims.size() != 1)
        throw InputError(labelsPath + ": labels must have 1 dimension (the count), found " +
                         std::to_string(labels.dims.size()) + " (" + dimsText(labels.dims) + ")");
    return labels;
}

// The labels (read by readIdxLabels) and the images of `imagesPath` as one data set of numClasses
// classes; `why` says where the class count came from, for the message on a label beyond it.
ImageDataset idxImages(const std::string& imagesPath, const std::string& labelsPath, IdxArray labels, int numClasses,
                       float scale, const std::string& why = {}) {
    const auto bad =
        std::find_if(labels.data.begin(), labels.data.end(), [&](std::uint8_t l) { return l >= numClasses; });
    if (bad != labels.data.end())
        throw InputError(labelsPath + ": label " + std::to_string(*bad) + " at position " +
                         std::to_string(bad - labels.data.begin()) + " is out of range; expected 0 to " +
                         std::to_string(numClasses - 1) + why);
    IdxArray images = readIdx(imagesPath);
    if (images.dims.size() != 3)
        throw InputError(imagesPath + ": images must have 3 dimensions (count x height x width), found " +
                         std::to_string(images.dims.size()) + " (" + dimsText(images.dims) + ")");
    if (images.dims[0] != labels.dims[0])
        throw InputError(imagesPath + " holds " + std::to_string(images.dims[0]) + " images but " + labelsPath +
                         " holds " + std::to_string(labels.dims[0]) + " labels; expected the same count");
    // Rows and columns multiply to at most kMaxPayloadBytes, so each fits an int.
    const ImageShape shape{static_cast<int>(images.dims[1]), static_cast<int>(images.dims[2])};
    return ImageDataset(std::move(images.data), std::move(labels.data), shape, numClasses, scale);
}

int largestLabel(const IdxArray& labels) { return *std::max_element(labels.data.begin(), labels.data.end()); }

}  // namespace

ImageDataset loadIdxImages(const std::string& imagesPath, const std::string& labelsPath, int numClasses, float scale) {
    return idxImages(imagesPath, labelsPath, readIdxLabels(labelsPath), numClasses, scale);
}

DataSplit loadIdxDirectory(const std::string& dirPath, const std::string& spec, const std::string& missingHint,
                           int numClasses) {
    const QDir dir(QString::fromStdString(dirPath));
    const std::string hint = missingHint.empty() ? "" : "; " + missingHint;
    if (QFileInfo(dir.path()).isFile())
        throw InputError("IDX folder " + dirPath +
                         ": is a file; expected a folder holding train-images-idx3-ubyte, "
                         "train-labels-idx1-ubyte, t10k-images-idx3-ubyte and t10k-labels-idx1-ubyte (plain or .gz)");
    if (!dir.exists()) throw InputError("IDX folder " + dirPath + " does not exist" + hint);
    const auto path = [&](const char* base) {
        const QString found = findIdxFile(dir, QString::fromLatin1(base));
        if (found.isEmpty())
            throw InputError("IDX folder " + dirPath + ": found neither " + base + " nor " + base + ".gz" + hint);
        return found.toStdString();
    };
    const std::string trainImages = path("train-images-idx3-ubyte"), trainLabels = path("train-labels-idx1-ubyte");
    const std::string testImages = path("t10k-images-idx3-ubyte"), testLabels = path("t10k-labels-idx1-ubyte");
    constexpr float kScale = 1.0f / 255.0f;
    IdxArray trainLabelArray = readIdxLabels(trainLabels), testLabelArray = readIdxLabels(testLabels);
    // The class count: given, or the largest label of either file + 1 (the same for both).
    const int classes =
        numClasses > 0 ? numClasses : std::max(largestLabel(trainLabelArray), largestLabel(testLabelArray)) + 1;
    const std::string why = numClasses > 0 ? " (classes=" + std::to_string(numClasses) + ")" : "";
    auto train = std::make_shared<ImageDataset>(
        idxImages(trainImages, trainLabels, std::move(trainLabelArray), classes, kScale, why));
    auto test = std::make_shared<ImageDataset>(
        idxImages(testImages, testLabels, std::move(testLabelArray), classes, kScale, why));
    if (test->imageShape().height != train->imageShape().height ||
        test->imageShape().width != train->imageShape().width)
        throw InputError(testImages + ": image size differs from " + trainImages);
    return {spec, std::move(train), std::move(test)};
}

}  // namespace ml
