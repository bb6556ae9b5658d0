#include "train/UpdateExplanation.h"

namespace ml {

namespace {

LayerRecord recordOf(const LayerSnapshot& layer) {
    return {layer.parameters, layer.gradient,        layer.firstMoment, layer.secondMoment,
            layer.update,     layer.columnsPerInput, layer.ruleState};
}

}  // namespace

UpdateExplanation explainUpdate(const RunSpec& spec, const Snapshot& now, const Snapshot* before, int layer, int row,
                                int column) {
    const bool exists = layer >= 0 && layer < static_cast<int>(now.layers.size());
    const bool previousRecorded =
        exists && before && before->step == now.step - 1 && static_cast<int>(before->layers.size()) > layer;
    if (!exists) return explainConnection(spec.optimizer, spec.hp, now.step, nullptr, nullptr, row, column);
    const LayerRecord current = recordOf(now.layers[static_cast<std::size_t>(layer)]);
    if (!previousRecorded) return explainConnection(spec.optimizer, spec.hp, now.step, &current, nullptr, row, column);
    const LayerRecord previous = recordOf(before->layers[static_cast<std::size_t>(layer)]);
    return explainConnection(spec.optimizer, spec.hp, now.step, &current, &previous, row, column);
}

}  // namespace ml
