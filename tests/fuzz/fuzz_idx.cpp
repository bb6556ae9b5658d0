// libFuzzer target: the IDX reader (readIdx, behind "idx:DIR" and `import-mnist`), on a file as the
// CLI reads it. A refusal (InputError) is a correct answer; anything else the sanitizers catch is a
// finding. The input is written plain, so zlib's pass-through path is exercised; a corpus file
// starting with the gzip magic exercises the decompression.
#include "FuzzScratch.h"
#include "InputError.h"
#include "data/Idx.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const QString path = ml::fuzz::FuzzScratch::instance().write("input-idx3-ubyte", ml::fuzz::bytesOf(data, size));
    try {
        const ml::IdxArray array = ml::readIdx(path.toStdString());
        std::size_t expected = 1;
        for (const std::uint32_t d : array.dims) expected *= d;
        if (array.dims.empty() || array.data.size() != expected) std::abort();  // the reader's own promise
    } catch (const ml::InputError&) {}
    return 0;
}
