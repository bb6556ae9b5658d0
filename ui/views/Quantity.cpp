#include "views/Quantity.h"

#include "optim/MomentumAggregation.h"

#include <QObject>

namespace ml {

const std::vector<Quantity>& allQuantities() {
    static const std::vector<Quantity> quantities{
        Quantity::Weight,       Quantity::Gradient, Quantity::FirstMoment,  Quantity::NeuronMeanMomentum,
        Quantity::DeviationFromNeuronMean, Quantity::Update, Quantity::SecondMoment,
    };
    return quantities;
}

QString displayName(Quantity quantity) {
    switch (quantity) {
    case Quantity::Weight: return QStringLiteral("weight");
    case Quantity::Gradient: return QStringLiteral("gradient");
    case Quantity::FirstMoment: return QStringLiteral("momentum (first moment)");
    case Quantity::NeuronMeanMomentum: return QStringLiteral("neuron-mean momentum");
    case Quantity::DeviationFromNeuronMean: return QStringLiteral("deviation from neuron mean");
    case Quantity::Update: return QStringLiteral("update");
    case Quantity::SecondMoment: return QStringLiteral("second moment");
    }
    return {};
}

Matrix extractQuantity(const LayerSnapshot& layer, Quantity quantity, MeanScope scope, BiasMode bias) {
    switch (quantity) {
    case Quantity::Weight: return layer.parameters;
    case Quantity::Gradient: return layer.gradient;
    case Quantity::FirstMoment: return layer.firstMoment;
    case Quantity::Update: return layer.update;
    case Quantity::SecondMoment: return layer.secondMoment;
    case Quantity::NeuronMeanMomentum:
    case Quantity::DeviationFromNeuronMean: {
        if (layer.firstMoment.size() == 0) return {};
        Matrix means;
        MomentumAggregation(scope, bias).meanPerEntry(layer.firstMoment, means);
        if (quantity == Quantity::NeuronMeanMomentum) return means;
        return layer.firstMoment - means;
    }
    }
    return {};
}

QString quantityKey(Quantity quantity) {
    return displayName(quantity).section(" (", 0, 0).replace(' ', '-');
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
    if (layer < 0 || layer >= static_cast<int>(snapshot.layers.size())) return {};
    return extractQuantity(snapshot.layers[static_cast<std::size_t>(layer)], quantity, snapshot.scope, snapshot.bias);
}

}  // namespace ml
