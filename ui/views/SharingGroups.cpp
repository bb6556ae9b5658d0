#include "views/SharingGroups.h"

namespace ml {

namespace {

// Parameter layer l's shape in the snapshot: inputs per neuron and neurons.
LayerGroups groupsOf(const Snapshot& snapshot, int layer, SecondMomentScope scope) {
    const Matrix& parameters = snapshot.layers[static_cast<std::size_t>(layer)].parameters;
    return layerGroups(static_cast<int>(parameters.cols()) - 1, static_cast<int>(parameters.rows()), scope,
                       snapshot.bias);
}
LayerGroups groupsOf(const Snapshot& snapshot, int layer, MeanScope scope) {
    const Matrix& parameters = snapshot.layers[static_cast<std::size_t>(layer)].parameters;
    return layerGroups(static_cast<int>(parameters.cols()) - 1, static_cast<int>(parameters.rows()), scope,
                       snapshot.bias);
}

bool validLayer(const Snapshot& snapshot, int layer) {
    return layer >= 0 && layer < static_cast<int>(snapshot.layers.size());
}

// "layer 1", "layers 1 and 3", "layers 1, 2 and 3" (neurons' layers: parameter layer l feeds layer l + 1).
QString layerList(const std::vector<int>& parameterLayers) {
    QStringList names;
    for (int l : parameterLayers) names << QString::number(l + 1);
    if (names.size() == 1) return QStringLiteral("layer %1").arg(names.front());
    const QString last = names.takeLast();
    return QStringLiteral("layers %1 and %2").arg(names.join(QStringLiteral(", ")), last);
}

}  // namespace

QString groupSizeText(const LayerGroups& groups) {
    if (groups.factored)
        return QStringLiteral("rank-1 estimate of a %1 × %2 block")
            .arg(groups.factoredRows)
            .arg(groups.factoredColumns);
    return QStringLiteral("%1 connection%2 per group").arg(groups.weightGroup).arg(groups.weightGroup == 1 ? "" : "s");
}

QString biasText(BiasMode bias) {
    return bias == BiasMode::Join ? QStringLiteral("bias included") : QStringLiteral("bias on its own");
}

QStringList sharingLines(const Snapshot& snapshot, int layer) {
    QStringList lines;
    if (!validLayer(snapshot, layer)) return lines;
    if (snapshot.scope != MeanScope::None)
        lines << QStringLiteral("momentum %1: %2")
                     .arg(QString::fromStdString(scopeName(snapshot.scope)),
                          groupSizeText(groupsOf(snapshot, layer, snapshot.scope)) + QStringLiteral(", ") +
                              biasText(snapshot.bias));
    if (snapshot.secondMomentScope != SecondMomentScope::None)
        lines << QStringLiteral("second moment %1: %2")
                     .arg(QString::fromStdString(scopeName(snapshot.secondMomentScope)),
                          groupSizeText(groupsOf(snapshot, layer, snapshot.secondMomentScope)) + QStringLiteral(", ") +
                              biasText(snapshot.bias));
    return lines;
}

QString sharingSummary(const Snapshot& snapshot, int layer) {
    if (!validLayer(snapshot, layer)) return {};
    const bool first = snapshot.scope != MeanScope::None;
    const bool second = snapshot.secondMomentScope != SecondMomentScope::None;
    auto item = [](const QString& prefix, const std::string& scope, const LayerGroups& groups, const QString& also) {
        if (groups.factored) return QStringLiteral("%1: %2").arg(prefix, groupSizeText(groups));
        return QStringLiteral("%1group: %2 connection%3 (%4%5)")
            .arg(prefix.isEmpty() ? QString() : prefix + QLatin1Char(' '))
            .arg(groups.weightGroup)
            .arg(groups.weightGroup == 1 ? "" : "s")
            .arg(QString::fromStdString(scope), also);
    };
    const LayerGroups firstGroups = groupsOf(snapshot, layer, snapshot.scope);
    const LayerGroups secondGroups = groupsOf(snapshot, layer, snapshot.secondMomentScope);
    if (first && second && scopeName(snapshot.scope) == scopeName(snapshot.secondMomentScope))
        return item(QString(), scopeName(snapshot.scope), firstGroups, QStringLiteral(", momentum and v"));
    QStringList parts;
    if (first) parts << item(QString(), scopeName(snapshot.scope), firstGroups, QString());
    if (second) parts << item(QStringLiteral("v"), scopeName(snapshot.secondMomentScope), secondGroups, QString());
    return parts.join(QStringLiteral(" · "));
}

QString sharingCaption(const Snapshot& snapshot, int layer) {
    if (!validLayer(snapshot, layer)) return {};
    if (snapshot.scope != MeanScope::None)
        return QStringLiteral("group %1").arg(groupsOf(snapshot, layer, snapshot.scope).weightGroup);
    if (snapshot.secondMomentScope == SecondMomentScope::None) return {};
    const LayerGroups groups = groupsOf(snapshot, layer, snapshot.secondMomentScope);
    if (groups.factored)
        return QStringLiteral("v %1 × %2 factored").arg(groups.factoredRows).arg(groups.factoredColumns);
    return QStringLiteral("v group %1").arg(groups.weightGroup);
}

QString noEffectNote(const QString& subject, const std::vector<LayerGroups>& groups, BiasMode bias) {
    std::vector<int> idle;
    for (std::size_t l = 0; l < groups.size(); ++l)
        if (groups[l].changesNothing()) idle.push_back(static_cast<int>(l));
    if (idle.empty()) return {};
    const LayerGroups& first = groups[static_cast<std::size_t>(idle.front())];
    QString note = QStringLiteral("%1 changes nothing for %2: %3")
                       .arg(subject, idle.size() == groups.size() ? QStringLiteral("any layer") : layerList(idle),
                            groupSizeText(first) + QStringLiteral(", ") + biasText(bias));
    if (first.factored) note += QStringLiteral(" (a single row or column is its own estimate)");
    return note + QLatin1Char('.');
}

}  // namespace ml
