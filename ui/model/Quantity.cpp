#include "model/Quantity.h"

#include "optim/MomentumAggregation.h"
#include "optim/SecondMomentSharing.h"

#include <algorithm>

#include <QObject>

namespace ml {

namespace {

// The snapshot matrix a quantity is computed from.
const Matrix& source(const LayerSnapshot& layer, Quantity quantity) {
    switch (quantity) {
    case Quantity::Weight:
    case Quantity::WeightChange: return layer.parameters;
    case Quantity::Gradient: return layer.gradient;
    case Quantity::FirstMoment:
    case Quantity::MomentumSpread:
    case Quantity::NeuronMeanMomentum:
    case Quantity::DeviationFromNeuronMean: return layer.firstMoment;
    case Quantity::Update: return layer.update;
    case Quantity::SecondMoment:
    case Quantity::SecondMomentGroupMean: return layer.secondMoment;
    }
    return layer.parameters;
}

// The matrix q is computed from, or null when extractQuantity gives nothing: the one test of
// "kept" (keepsQuantity asks it without computing the matrix, which takes ms for 784-128-10).
const Matrix* keptSource(const Snapshot& snapshot, int layer, Quantity quantity) {
    if (layer < 0 || layer >= static_cast<int>(snapshot.layers.size())) return nullptr;
    const Matrix& from = source(snapshot.layers[static_cast<std::size_t>(layer)], quantity);
    if (from.size() == 0) return nullptr;
    if (quantity == Quantity::WeightChange) {
        const Parameters* initial = snapshot.initialParameters.get();
        if (!initial || layer >= static_cast<int>(initial->size())) return nullptr;
        const Matrix& start = (*initial)[static_cast<std::size_t>(layer)];
        if (start.rows() != from.rows() || start.cols() != from.cols()) return nullptr;
    }
    if (quantity == Quantity::MomentumSpread && from.cols() < 2) return nullptr;  // no input column
    return &from;
}

}  // namespace

const std::vector<Quantity>& allQuantities() {
    static const std::vector<Quantity> quantities{
        Quantity::Weight,
        Quantity::Gradient,
        Quantity::FirstMoment,
        Quantity::NeuronMeanMomentum,
        Quantity::DeviationFromNeuronMean,
        Quantity::MomentumSpread,
        Quantity::Update,
        Quantity::SecondMoment,
        Quantity::SecondMomentGroupMean,
        Quantity::WeightChange,
    };
    return quantities;
}

QString displayName(Quantity quantity) {
    switch (quantity) {
    case Quantity::Weight: return QStringLiteral("weight");
    case Quantity::Gradient: return QStringLiteral("gradient");
    case Quantity::FirstMoment: return QStringLiteral("momentum (first moment)");
    case Quantity::NeuronMeanMomentum: return QStringLiteral("M(a): shared momentum");
    case Quantity::DeviationFromNeuronMean: return QStringLiteral("a − M(a): own momentum");
    case Quantity::Update: return QStringLiteral("update");
    case Quantity::SecondMoment: return QStringLiteral("second moment");
    case Quantity::SecondMomentGroupMean: return QStringLiteral("group mean of v");
    case Quantity::WeightChange: return QStringLiteral("weight − initial weight");
    case Quantity::MomentumSpread: return QStringLiteral("momentum spread (std over the neuron)");
    }
    return {};
}

QString quantityHelp(Quantity quantity) {
    switch (quantity) {
    case Quantity::NeuronMeanMomentum:
        return QStringLiteral(
            "The part of the momentum a its group shares: M(a), the group mean under the run's "
            "momentum-mean scope (a neuron's fan-in mean where it has none)");
    case Quantity::DeviationFromNeuronMean:
        return QStringLiteral(
            "The momentum's own part a − M(a): what is left after the group mean "
            "(what gradient centralization keeps of a gradient)");
    case Quantity::SecondMomentGroupMean:
        return QStringLiteral(
            "The group mean of the second moment v under the run's second-moment-mean scope "
            "(a neuron's fan-in mean where it has none; factored: the rank-1 estimate)");
    default: return displayName(quantity);
    }
}

QString quantityKey(Quantity quantity) {
    switch (quantity) {
    case Quantity::Weight: return QStringLiteral("weight");
    case Quantity::Gradient: return QStringLiteral("gradient");
    case Quantity::FirstMoment: return QStringLiteral("momentum");
    case Quantity::NeuronMeanMomentum: return QStringLiteral("neuron-mean-momentum");
    case Quantity::DeviationFromNeuronMean: return QStringLiteral("deviation-from-neuron-mean");
    case Quantity::Update: return QStringLiteral("update");
    case Quantity::SecondMoment: return QStringLiteral("second-moment");
    case Quantity::SecondMomentGroupMean: return QStringLiteral("second-moment-group-mean");
    case Quantity::WeightChange: return QStringLiteral("weight-change");
    case Quantity::MomentumSpread: return QStringLiteral("momentum-spread");
    }
    return {};
}

std::optional<Quantity> quantityFromKey(const QString& key) {
    for (const Quantity quantity : allQuantities())
        if (quantityKey(quantity) == key) return quantity;
    return std::nullopt;
}

QString missingQuantityReason(const Snapshot& snapshot) {
    return snapshot.weightsOnly ? QObject::tr("not saved in this folder") : QObject::tr("not kept by this optimizer");
}

Matrix extractQuantity(const Snapshot& snapshot, int layer, Quantity quantity) {
    const Matrix* kept = keptSource(snapshot, layer, quantity);
    if (!kept) return {};
    const Matrix& from = *kept;
    const LayerSnapshot& matrices = snapshot.layers[static_cast<std::size_t>(layer)];
    Matrix shared, own;
    switch (quantity) {
    case Quantity::NeuronMeanMomentum:
    case Quantity::DeviationFromNeuronMean:
        MomentumAggregation(snapshot.scope, snapshot.bias, 1.0, snapshot.statistic)
            .splitShared(from, shared, own, matrices.columnsPerInput);
        return quantity == Quantity::NeuronMeanMomentum ? shared : own;
    case Quantity::WeightChange: return from - (*snapshot.initialParameters)[static_cast<std::size_t>(layer)];
    case Quantity::MomentumSpread: {
        const Eigen::Index inputs = from.cols() - 1;
        const Matrix incoming = from.leftCols(inputs);
        const Vector mean = incoming.rowwise().mean();
        const Vector spread =
            ((incoming.colwise() - mean).array().square().rowwise().sum() / float(inputs)).sqrt().matrix();
        return spread.replicate(1, from.cols());
    }
    case Quantity::SecondMomentGroupMean:
        SecondMomentSharing(snapshot.secondMomentScope, snapshot.bias).groupMean(from, shared);
        return shared;
    default: return from;
    }
}

bool keepsQuantity(const Snapshot& snapshot, Quantity quantity, int layer) {
    return keptSource(snapshot, layer, quantity) != nullptr;
}

std::vector<Quantity> offeredQuantities(const Snapshot& snapshot) {
    std::vector<Quantity> offered;
    std::copy_if(allQuantities().begin(), allQuantities().end(), std::back_inserter(offered),
                 [&snapshot](Quantity q) { return keepsQuantity(snapshot, q); });
    return offered;
}

}  // namespace ml
