// libFuzzer target: the weights JSON (weights_initial.json / weights_final.json, "init"), parsed in
// memory by weightsFromJson, then checked against a network as the run-folder reader and the
// trainer do. A refusal (InputError) is a correct answer; accepted weights must survive their own
// round trip.
#include "FuzzScratch.h"
#include "InputError.h"
#include "nn/Network.h"
#include "runfolder/WeightsFile.h"

#include <cstdlib>

namespace {

bool sameShapes(const ml::Parameters& a, const ml::Parameters& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t l = 0; l < a.size(); ++l)
        if (a[l].rows() != b[l].rows() || a[l].cols() != b[l].cols()) return false;
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const ml::NetworkSpec spec{};  // 1-2-2-1, tanh, MSE
    static ml::Network network(spec);
    ml::Parameters weights;
    try {
        weights = ml::weightsFromJson(ml::fuzz::bytesOf(data, size), "fuzz.json", spec);
    } catch (const ml::InputError&) {
        return 0;
    }
    try {
        if (!sameShapes(ml::weightsFromJson(ml::weightsToJson(weights, spec), "written.json", spec), weights))
            std::abort();
    } catch (const ml::InputError&) {
        std::abort();  // accepted weights were written in a form their own reader refuses
    }
    try {
        network.checkShapes(weights, "fuzz.json");
        network.setParameters(weights, "fuzz.json");
    } catch (const ml::InputError&) {}
    return 0;
}
