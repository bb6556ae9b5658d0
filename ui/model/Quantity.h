#pragma once
// What a connection can be coloured by, and the ONE place where that quantity is taken out of a
// snapshot. Every view (diagram, neuron inspector, heat-map) goes through extractQuantity().
//
// Public API
//   enum class Quantity                 weight, gradient, momentum (first moment), its shared part
//                                       and its own part, the first moment's spread across the
//                                       neuron, update, second moment, the second moment's group
//                                       mean, weight minus initial weight
//   allQuantities()                     in display order (for combo boxes)
//   displayName(q)                      "momentum (first moment)", ... (fits a two-line legend title)
//   quantityHelp(q)                     a sentence for tooltips (what the shared parts mean)
//   extractQuantity(snapshot, l, q) -> Matrix [out x (in+1)], bias in the last column, for
//                                       parameter layer l; EMPTY (size() == 0) when the run's
//                                       optimizer does not keep what q needs (e.g. no first moment
//                                       for plain SGD) or l is out of range
//   keepsQuantity(snapshot, q[, l])     whether extractQuantity gives q (layer l, default 0): the
//                                       run's rule keeps what q needs; decided without computing it
//   offeredQuantities(snapshot)         allQuantities() that it keeps (a view offers only these)
//   quantityKey(q) / quantityFromKey(k) the name on the command line (export --quantity)
//   missingQuantityReason(snapshot)     why a quantity is empty: not saved in this folder / not
//                                       kept by this optimizer
//
// The shared-versus-own decomposition a = M(a) + (a - M(a)) is MomentumAggregation::splitShared
// under the run's --momentum-mean scope, --bias and --momentum-mean-stat (the neuron's fan-in
// mean for a run without one); the second moment's group mean is SecondMomentSharing::groupMean
// under the run's --second-moment-mean (fan-in where none). Both are computed in core.
// Weight change = parameters - Snapshot::initialParameters (not kept when those are unknown, e.g.
// a run read from a folder).
#include "train/Snapshot.h"

#include <QString>

#include <optional>
#include <vector>

namespace ml {

enum class Quantity {
    Weight,
    Gradient,
    FirstMoment,
    NeuronMeanMomentum,       // the shared part M(a) of the first moment
    DeviationFromNeuronMean,  // its own part a - M(a)
    Update,
    SecondMoment,
    SecondMomentGroupMean,
    WeightChange,    // w - w0
    MomentumSpread,  // std of a_ij over the neuron's incoming connections (bias excluded)
};

const std::vector<Quantity>& allQuantities();
QString displayName(Quantity quantity);
// The name on the command line (`export --quantity`): "momentum", "neuron-mean-momentum", ...
// (fixed words, not derived from the display names, so scripts survive a relabelled view);
// quantityFromKey gives nothing for another name.
QString quantityKey(Quantity quantity);
std::optional<Quantity> quantityFromKey(const QString& key);
QString quantityHelp(Quantity quantity);

Matrix extractQuantity(const Snapshot& snapshot, int layer, Quantity quantity);
bool keepsQuantity(const Snapshot& snapshot, Quantity quantity, int layer = 0);
std::vector<Quantity> offeredQuantities(const Snapshot& snapshot);
// Why a quantity of `snapshot` is empty: "not saved in this folder" (a run folder's final
// weights) or "not kept by this optimizer".
QString missingQuantityReason(const Snapshot& snapshot);

}  // namespace ml
