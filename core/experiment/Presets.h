#pragma once
// The bundled experiments (resources/experiments/N-ID.json -> :/experiments/), shared by the GUI's
// preset menu and the CLI's --preset.
#include "experiment/Experiment.h"

#include <QString>

#include <string>
#include <vector>

namespace ml {

struct Preset {
    std::string id;     // the file name without the order prefix and ".json": "seed-diagram"
    std::string title;  // the experiment's name
    QString file;       // the resource path
    Experiment experiment;
};

// In file-name order.
const std::vector<Preset>& presets();

// By id ("seed-diagram") or file stem ("1-seed-diagram"). Throws InputError listing the known ids.
const Preset& findPreset(const std::string& name);

}  // namespace ml
