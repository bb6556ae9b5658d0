#pragma once
// One naming scheme for neurons in every view: layers are numbered from the inputs (layer 0) to
// the outputs, so parameter layer l (a weight matrix) feeds the neurons of layer l + 1, and
// neuron j of layer l + 1 is row j of that matrix.
//   neuronName(1, 0)           "layer 1, neuron 0"
//   layerCaption(0, 4, 2)      "layer 0: 2 inputs"   (last layer: "layer 3: 1 output", else "layer 1: 8")
#include <QString>

namespace ml {

QString neuronName(int layer, int neuron);
// A conv layer's unit is a channel: "layer 1, channel 4"; else neuronName.
QString neuronOrChannelName(int layer, int unit, bool channel);
QString layerCaption(int layer, int layerCount, int size);

}  // namespace ml
