#pragma once
// How many entries share one value under a sharing scope, per layer ("seeing the
// family"). The one answer the diagram, the neuron inspector and the experiment form's warning
// ("this scope changes nothing for layer 1") all read. A layer has `inputs` weights per neuron and
// `outputs` neurons (its matrix is [outputs x (inputs + 1)], bias last):
//   none    : every entry on its own (1)
//   fan-in  : a weight's group is its neuron's row: inputs (+ 1 with join)
//   fan-out : a weight's group is its input's column: outputs; with join the bias vector is one
//             more group of outputs
//   layer   : one group of outputs * inputs (outputs * (inputs + 1) with join)
//   factored: (second moment) no group mean but a rank-1 estimate over the outputs x inputs block
//             (x (inputs + 1) with join); a single row or column is its own estimate
// With own a bias is its own group (1). The groups are MomentumAggregation's and
// SecondMomentSharing's (same --bias); a test checks the sizes against what they average.
#include "optim/HyperParameters.h"

#include <string>
#include <vector>

namespace ml {

struct LayerGroups {
    long weightGroup = 1;   // entries in the group of each weight (all weights' groups are equally large)
    long biasGroup = 1;     // entries in the group of each bias (1: on its own)
    bool factored = false;  // the rank-1 estimate instead of a group mean
    long factoredRows = 0, factoredColumns = 0;  // the block it estimates (factored only)

    // True when sharing leaves every entry as it is: each group holds one entry (or the factored
    // block is a single row or column).
    bool changesNothing() const;
};

// One layer with `inputs` weights per neuron and `outputs` neurons.
LayerGroups layerGroups(int inputs, int outputs, SecondMomentScope scope, BiasMode bias);
LayerGroups layerGroups(int inputs, int outputs, MeanScope scope, BiasMode bias);
// Every parameter layer of a network given by its sizes, inputs first ("1-2-2-1": three layers).
std::vector<LayerGroups> networkGroups(const std::vector<int>& sizes, SecondMomentScope scope, BiasMode bias);
std::vector<LayerGroups> networkGroups(const std::vector<int>& sizes, MeanScope scope, BiasMode bias);

// A scope's name as the forms and flags spell it ("fan-in"; the choice lists of HyperParameters).
std::string scopeName(SecondMomentScope scope);
std::string scopeName(MeanScope scope);

}  // namespace ml
