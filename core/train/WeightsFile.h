#pragma once
// weights JSON: {"layers":[{"weight":[[one row per output neuron]],"bias":[...]}]}
// Row j of "weight" lists the incoming connections of neuron j (the W = [out x in] layout).
// JSON has no NaN or infinity: a non-finite value is written as the string "nan", "inf" or "-inf"
// and read back as such.
#include "nn/Network.h"
#include "train/Experiment.h"
#include "train/InitialWeights.h"

#include <QByteArray>
#include <QString>

#include <optional>
#include <string>

namespace ml {

QByteArray weightsToJson(const Parameters& parameters);
// Throws InputError naming the file and the field ("layers[1].weight[3]: ...").
Parameters weightsFromJson(const QByteArray& json, const QString& source);
Parameters loadWeightsFile(const QString& path);

// The experiment's initial-weights file ("init"), loaded for the trainer; nothing when it has none.
std::optional<InitialWeights> loadInitialWeights(const Experiment& experiment);

}  // namespace ml
