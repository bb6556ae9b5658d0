#pragma once
// What a viewer needs to know about a training before its first metrics arrive: the runs'
// labels and the shape of the work (a plain value, announced once by whoever starts training).
#include "data/Dataset.h"

#include <cstddef>
#include <string>
#include <vector>

namespace ml {

struct TrainingPlan {
    std::vector<std::string> labels;
    std::size_t parameterCount = 0;  // weights and biases of one run's network
    long totalSteps = 0;
    long stepsPerEpoch = 0;
    ImageShape imageShape;
    std::string runFolder;             // where the training is written ("" when it is not)
    std::vector<std::string> records;  // what its instruments record ("diagnostics.csv every 10 steps", ...)
};

}  // namespace ml
