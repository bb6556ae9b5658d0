#pragma once
// weights JSON: {"layers":[{"weight":[[one row per output neuron]],"bias":[...]}]}
// Row j of "weight" lists the incoming connections of neuron j (the W = [out x in] layout).
#include "nn/Network.h"

#include <QByteArray>
#include <string>

namespace ml {

QByteArray weightsToJson(const Parameters& parameters);
// Throws InputError naming the file and the field ("layers[1].weight[3]: ...").
Parameters weightsFromJson(const QByteArray& json, const std::string& source);
Parameters loadWeightsFile(const std::string& path);

}  // namespace ml
