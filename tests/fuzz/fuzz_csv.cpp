// libFuzzer target: the CSV data-set reader ("csv:FILE"), on a file as the CLI reads it, including
// the fixed train/test split. A refusal (InputError) is a correct answer.
#include "FuzzScratch.h"
#include "InputError.h"
#include "data/CsvLoader.h"

#include <cmath>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const QString path = ml::fuzz::FuzzScratch::instance().write("data.csv", ml::fuzz::bytesOf(data, size));
    try {
        const ml::DataSplit split = ml::loadCsvDataSplit(path.toStdString(), "csv:" + path.toStdString());
        if (!split.train || !split.test || split.train->size() < 1 || split.test->size() < 1) std::abort();
    } catch (const ml::InputError&) {}
    return 0;
}
