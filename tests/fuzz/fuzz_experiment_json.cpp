// libFuzzer target: the experiment JSON (--config, presets, a run folder's config.json), parsed in
// memory by the same functions loadExperiment uses. A refusal (InputError) is a correct answer; an
// accepted experiment must survive its own round trip (config.json is read back by --config).
#include "FuzzScratch.h"
#include "InputError.h"
#include "io/JsonFile.h"
#include "experiment/ExperimentJson.h"

#include <QJsonDocument>

#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    ml::Experiment experiment;
    try {
        experiment =
            ml::experimentFromJson(ml::parseJsonObject(ml::fuzz::bytesOf(data, size), "fuzz.json"), "fuzz.json");
    } catch (const ml::InputError&) {
        return 0;
    }
    const QJsonObject written = ml::toJson(experiment);
    try {
        const QJsonObject again = ml::toJson(ml::experimentFromJson(written, "written.json"));
        if (again != written) {
            std::fprintf(stderr, "written:\n%s\nread back and written again:\n%s\n",
                         QJsonDocument(written).toJson().constData(), QJsonDocument(again).toJson().constData());
            std::abort();
        }
    } catch (const ml::InputError& error) {
        std::fprintf(stderr, "%s\n", error.what());
        std::abort();  // an accepted experiment was written in a form its own reader refuses
    }
    return 0;
}
