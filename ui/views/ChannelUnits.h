#pragma once
// A network as the diagram draws it: columns of UNITS, a unit being a dense neuron or a conv
// channel. A parameter layer [out x (in*g + 1)] groups its weight columns into g per input unit:
// g = 1 for a dense layer after a dense one, k*k (one kernel) for a convolution, H*W for a dense
// layer that flattens an image (PyTorch's channel-height-width order keeps a channel's columns
// together). One line of the diagram then stands for a whole group, coloured by its mean.
//
// Public API
//   networkUnits(snapshot, spec)  the units of every column; spec (the run's --network) is used
//                                 when it fits the snapshot's matrices (it also names the pooling
//                                 layers), else the grouping is read from the matrices alone
//   unitMeans(values, g)          [out x (in*g + 1)] -> [out x (in + 1)]: the mean of each group
//                                 of g columns; the bias column is kept as it is
#include "nn/NetworkSpec.h"
#include "train/Snapshot.h"

#include <QString>

#include <optional>
#include <vector>

namespace ml {

struct UnitLayer {            // one parameter layer
    int inputs = 0;           // input units (neurons or channels)
    int outputs = 0;          // output units (rows)
    int columnsPerInput = 1;  // weight columns per input unit
    int kernel = 0;           // side of a conv kernel; 0: dense
    QString outputShape;      // "4×6×6" for a conv layer's output, empty for dense
    QString poolAfter;        // the pooling that follows ("max 2×2"), empty when none
    bool isConv() const { return kernel > 0; }
};

struct NetworkUnits {
    QString inputShape;          // "1×8×8" for image input read from the spec, else empty
    bool inputChannels = false;  // the input column is drawn as channels (a conv reads it)
    std::vector<UnitLayer> layers;
    std::vector<int> columnSizes() const;  // units per column, inputs first
    bool hasConv() const;
};

NetworkUnits networkUnits(const Snapshot& snapshot, const std::optional<NetworkSpec>& spec);
Matrix unitMeans(const Matrix& values, int columnsPerInput);

}  // namespace ml
