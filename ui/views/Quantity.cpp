#include "views/Quantity.h"

#include "optim/MomentumAggregation.h"

#include <QObject>

namespace ml {

const std::vector<Quantity>& allQuantities() {
    static const std::vector<Quantity> quantities{
        Quantity::Weight,       Quantity::Gradient, Quantity::FirstMoment,  Quantity::NeuronMeanMomentum,
        Quantity::DeviationFromNeuronMean, Quantity::MomentumSpread, Quantity::Update, Quantity::SecondMoment,
        Quantity::WeightChange,
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
    case Quantity::WeightChange: return QStringLiteral("weight − initial weight");
    case Quantity::MomentumSpread: return QStringLiteral("momentum spread (std over the neuron)");
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
    case Quantity::WeightChange: return {};  // needs the snapshot's initial parameters
    case Quantity::MomentumSpread: {
        const Eigen::Index inputs = layer.firstMoment.cols() - 1;
        if (layer.firstMoment.size() == 0 || inputs < 1) return {};
        const Matrix incoming = layer.firstMoment.leftCols(inputs);
        const Vector mean = incoming.rowwise().mean();
        const Vector spread = ((incoming.colwise() - mean).array().square().rowwise().sum() / float(inputs)).sqrt().matrix();
        return spread.replicate(1, layer.firstMoment.cols());
    }
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
    switch (quantity) {
    case Quantity::WeightChange: return QStringLiteral("weight-change");
    case Quantity::MomentumSpread: return QStringLiteral("momentum-spread");
    default: return displayName(quantity).section(" (", 0, 0).replace(' ', '-');
    }
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
    if (quantity == Quantity::WeightChange) {
        const Matrix& now = snapshot.layers[static_cast<std::size_t>(layer)].parameters;
        const Parameters* initial = snapshot.initialParameters.get();
        if (!initial || layer >= static_cast<int>(initial->size())) return {};
        const Matrix& start = (*initial)[static_cast<std::size_t>(layer)];
        if (start.rows() != now.rows() || start.cols() != now.cols()) return {};
        return now - start;
    }
    return extractQuantity(snapshot.layers[static_cast<std::size_t>(layer)], quantity, snapshot.scope, snapshot.bias);
}

}  // namespace ml

namespace ml {

bool quantityKept(const Snapshot& snapshot, Quantity quantity) { return extractQuantity(snapshot, 0, quantity).size() > 0; }

}  // namespace ml
