#pragma once
// weights JSON: {"layers":[{"weight":[[one row per output neuron]],"bias":[...]}, ...]}, one entry
// per layer with parameters. Row j of "weight" lists the incoming connections of neuron j (the
// W = [out x in] layout); "type":"dense" is optional. A convolution is
// {"type":"conv","weight":[out][in][kh][kw],"bias":[out]} (PyTorch's Conv2d layout; in memory
// the row of output channel o is its kernel flattened in that order, ConvLayer.h).
// JSON has no NaN or infinity: a non-finite value is written as the string "nan", "inf" or "-inf"
// and read back as such.
#include "nn/Network.h"
#include "experiment/Experiment.h"
#include "experiment/InitialWeights.h"

#include <QByteArray>
#include <QString>

#include <optional>
#include <string>

namespace ml {

// `network` says which layers are convolutions (and their kernel shapes).
QByteArray weightsToJson(const Parameters& parameters, const NetworkSpec& network);
// Checks every layer's type and shape against `network`. Throws InputError naming the file and
// the field ("layers[1].weight[3]: ...") and what the network expects there.
Parameters weightsFromJson(const QByteArray& json, const QString& source, const NetworkSpec& network);
Parameters loadWeightsFile(const QString& path, const NetworkSpec& network);
// Checked against the experiment's layers: a recorded model shown as blocks has its recorded
// layers' shapes, any other its network's.
Parameters loadWeightsFile(const QString& path, const Experiment& experiment);

// The experiment's initial-weights file ("init"), loaded for the trainer; nothing when it has none.
std::optional<InitialWeights> loadInitialWeights(const Experiment& experiment);

}  // namespace ml
