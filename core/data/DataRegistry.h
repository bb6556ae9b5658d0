#pragma once
// One entry point for every data set, by spec string:
//   toy:NAME       synthetic, seeded by the experiment seed (ToyData.h)
//   csv:PATH       a CSV file, or csv:TRAIN,TEST (CsvLoader.h)
//   idx:DIR        MNIST-style IDX files in DIR (Idx.h), as many classes as the labels say;
//                  idx:DIR:classes=N for N classes
//   iris, digits   bundled real data (BundledData.h)
//   mnist          10,000 real MNIST digits in mnistDirectory() (MnistImport.h), 8,000 / 2,000
//   fashion-mnist  the Debian package dataset-fashion-mnist, 60,000 / 10,000
// Only toy data depends on `seed`; real data sets have fixed splits.
#include "Dataset.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ml {

inline constexpr const char* kFashionMnistDirectory = "/usr/share/datasets/fashion-mnist";

// Loads the data set named by `spec`. Unknown or bad spec, missing or malformed files:
// InputError saying what was expected.
DataSplit loadDataSplit(const std::string& spec, std::uint64_t seed);

// Whether loadDataSplit's result depends on `seed` (only toy data is generated from it).
bool dataDependsOnSeed(const std::string& spec);

// The specs that need no path (toy sets, bundled and downloadable sets), e.g. for a combo box.
std::vector<std::string> knownDataSpecs();

}  // namespace ml
