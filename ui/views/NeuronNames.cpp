#include "views/NeuronNames.h"

namespace ml {

QString neuronName(int layer, int neuron) { return QStringLiteral("layer %1, neuron %2").arg(layer).arg(neuron); }

QString neuronOrChannelName(int layer, int unit, bool channel) {
    return channel ? QStringLiteral("layer %1, channel %2").arg(layer).arg(unit) : neuronName(layer, unit);
}

QString layerCaption(int layer, int layerCount, int size) {
    if (layer == 0) return QStringLiteral("layer 0: %1 input%2").arg(size).arg(size == 1 ? "" : "s");
    if (layer == layerCount - 1)
        return QStringLiteral("layer %1: %2 output%3").arg(layer).arg(size).arg(size == 1 ? "" : "s");
    return QStringLiteral("layer %1: %2").arg(layer).arg(size);
}

}  // namespace ml
