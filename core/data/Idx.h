#pragma once
// The IDX file format of MNIST (http://yann.lecun.com/exdb/mnist/): a big-endian header -- two
// zero bytes, a type code, the number of dimensions -- then each dimension as a 32-bit
// big-endian count, then the data. Only type 0x08 (unsigned byte) is supported. Files may be
// plain or gzip-compressed (read with zlib, which passes plain files through; a file of one gzip
// member, as gzip writes it, is inflated whole by libdeflate, about twice as fast).
#include "Dataset.h"
#include "ImageDataset.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ml {

struct IdxArray {
    std::vector<std::uint32_t> dims;  // outermost first, e.g. {60000, 28, 28}
    std::vector<std::uint8_t> data;   // row-major, product(dims) bytes
};

// Reads an IDX file of unsigned bytes. Strict: the magic, the type code, at least one
// dimension, every dimension >= 1, a payload of at most kMaxPayloadBytes (DataFiles.h), and the
// data exactly as long as the dimensions say (no missing, no trailing bytes). A lying header
// costs only the memory of the data really present. Errors: InputError naming the file.
IdxArray readIdx(const std::string& path);

// Writes an IDX file of unsigned bytes (gzip-compressed if path ends in ".gz"), atomically.
void writeIdx(const std::string& path, const std::vector<std::uint32_t>& dims, std::span<const std::uint8_t> data);

// Reads a 3-d images file [count x height x width] and a 1-d labels file [count] as one data set
// with labels < numClasses; pixels are scaled by `scale` when gathered.
ImageDataset loadIdxImages(const std::string& imagesPath, const std::string& labelsPath, int numClasses, float scale);

// Loads train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte and
// t10k-labels-idx1-ubyte (each plain or with ".gz") from `dir` as images with pixels scaled by
// 1/255, of `numClasses` classes, or (0) as many as the labels say: the largest label of the two
// files + 1, the same for both. A label beyond a given count is refused, naming its file.
// `missingHint` is appended to the message when the folder or a file is missing.
DataSplit loadIdxDirectory(const std::string& dir, const std::string& spec, const std::string& missingHint = {},
                           int numClasses = 0);

}  // namespace ml
