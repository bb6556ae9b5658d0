#pragma once
// What a connection can be coloured by, and the ONE place where that quantity is taken out of a
// snapshot. Every view (diagram, neuron inspector, heat-map) goes through extractQuantity().
//
// Public API
//   enum class Quantity                 weight, gradient, momentum (first moment), neuron-mean
//                                       momentum, deviation from the neuron mean, update,
//                                       second moment, weight minus initial weight, the first
//                                       moment's spread across the neuron
//   allQuantities()                     in display order (for combo boxes)
//   displayName(q)                      "momentum (first moment)", ...
//   extractQuantity(layer, q, scope, bias) -> Matrix [out x (in+1)], bias in the last column;
//                                       EMPTY (size() == 0) when the run's optimizer does not
//                                       keep what q needs (e.g. no first moment for plain SGD)
//   extractQuantity(snapshot, l, q)     the same for parameter layer l of a snapshot (empty when
//                                       l is out of range)
//
// Neuron-mean momentum: entry (j, i) holds the mean of the first-moment group it belongs to under
// the run's MeanScope / BiasMode (MomentumAggregation::meanPerEntry; for an ordinary run, scope
// none, the fan-in row mean). Deviation = first moment - neuron-mean momentum.
// Weight change = parameters - Snapshot::initialParameters (empty when those are unknown).
// Momentum spread: entry (j, i) holds the standard deviation of neuron j's incoming first moments
// a_j0 .. a_j(in-1) (bias excluded): "how different are a neuron's incoming momenta" (0 under a
// fan-in mean, which makes them all equal).
//   quantityKept(s, q)                  whether extractQuantity(s, 0, q) is non-empty (the
//                                       selectors offer only what the shown runs keep)
#include "train/Snapshot.h"

#include <QString>

#include <optional>
#include <vector>

namespace ml {

enum class Quantity {
    Weight,
    Gradient,
    FirstMoment,
    NeuronMeanMomentum,
    DeviationFromNeuronMean,
    Update,
    SecondMoment,
    WeightChange,
    MomentumSpread,
};

const std::vector<Quantity>& allQuantities();
QString displayName(Quantity quantity);
// The name on the command line (`export --quantity`): the display name without its parenthesis,
// spaces as '-' ("momentum", "neuron-mean-momentum"); nothing for another name.
QString quantityKey(Quantity quantity);
std::optional<Quantity> quantityFromKey(const QString& key);

Matrix extractQuantity(const LayerSnapshot& layer, Quantity quantity, MeanScope scope, BiasMode bias);
Matrix extractQuantity(const Snapshot& snapshot, int layer, Quantity quantity);
bool quantityKept(const Snapshot& snapshot, Quantity quantity);
// Why a quantity of `snapshot` is empty: "not saved in this folder" (a run folder's final
// weights) or "not kept by this optimizer".
QString missingQuantityReason(const Snapshot& snapshot);

}  // namespace ml
