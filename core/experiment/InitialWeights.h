#pragma once
// Weights handed to the trainer to start from instead of the seeded Glorot initialisation
// (the caller reads them, e.g. from the experiment's "init" file: runfolder/WeightsFile.h).
#include "nn/Network.h"

#include <string>

namespace ml {

struct InitialWeights {
    Parameters parameters;
    std::string source;  // where they came from, for error messages (a file name)
};

}  // namespace ml
