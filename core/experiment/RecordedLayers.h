#pragma once
// The layers a recorded model's run folder holds (config.json "recorded-layers", written by the
// PyTorch recorder in python/momentum_lab): each a Linear or Conv weight with its module name, its
// torch shape and the recorded layer whose output it reads where the model is a chain. A folder
// whose "network" is absent (a subset of the layers, branches, modules the app's networks lack)
// is shown as these layers, each a block the user picks from, instead of one network.
#include "Tensor.h"

#include <QJsonArray>

#include <string>
#include <utility>
#include <vector>

namespace ml {

struct RecordedLayer {
    std::string name;         // the module's name in the model ("encoder.fc1")
    std::string kind;         // "linear", "conv2d", ... (as torch names the module, lower case)
    std::vector<long> shape;  // the weight's torch shape: [out, in] or [out, in, kh, kw]
    std::string follows;      // the recorded layer whose output this one reads ("": none known)

    bool isConv() const { return shape.size() > 2; }
    long rows() const { return shape.empty() ? 0 : shape[0]; }
    long inputs() const { return shape.size() > 1 ? shape[1] : 0; }
    long columnsPerInput() const;                                      // weights per input: 1, or the kernel's kh*kw
    long columns() const { return inputs() * columnsPerInput() + 1; }  // the layer matrix, bias last
    std::string shapeText() const;                                     // "256 × 784", "16 × 3 × 3 × 3"
    std::string text() const;                                          // "encoder.fc1 (linear 256 × 784)"
    bool operator==(const RecordedLayer&) const = default;
};

struct RecordedModel {
    std::vector<RecordedLayer> layers;
    bool asBlocks = false;  // no "network": the app shows the layers as blocks, not one network

    bool empty() const { return layers.empty(); }
    // Each layer's matrix [rows x columns] (the snapshot and weights files' shapes), in order.
    std::vector<std::pair<long, long>> matrixShapes() const;
    std::vector<Eigen::Index> columnsPerInput() const;
    bool operator==(const RecordedModel&) const = default;
};

// Parses "recorded-layers"; throws InputError naming `context`, the entry and the field
// ("config.json: recorded-layers[1].shape: expected 2 or 4 positive whole numbers").
RecordedModel recordedModelFromJson(const QJsonValue& value, const std::string& context);
QJsonArray toJson(const RecordedModel& model);

}  // namespace ml
