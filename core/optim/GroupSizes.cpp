#include "optim/GroupSizes.h"

namespace ml {

namespace {
// MeanScope's scopes are SecondMomentScope's first ones, in the same order (HyperParameters.h).
SecondMomentScope widened(MeanScope scope) { return static_cast<SecondMomentScope>(scope); }
}  // namespace

bool LayerGroups::changesNothing() const {
    if (factored) return factoredRows <= 1 || factoredColumns <= 1;
    return weightGroup <= 1 && biasGroup <= 1;
}

LayerGroups layerGroups(int inputs, int outputs, SecondMomentScope scope, BiasMode bias) {
    const bool join = bias == BiasMode::Join;
    const long in = inputs, out = outputs;
    const long row = in + (join ? 1 : 0);  // the entries of a neuron's row that take part
    LayerGroups groups;
    switch (scope) {
    case SecondMomentScope::None: break;
    case SecondMomentScope::FanIn:
        groups.weightGroup = row;
        groups.biasGroup = join ? row : 1;
        break;
    case SecondMomentScope::FanOut:
        groups.weightGroup = out;
        groups.biasGroup = join ? out : 1;
        break;
    case SecondMomentScope::Layer:
        groups.weightGroup = out * row;
        groups.biasGroup = join ? out * row : 1;
        break;
    case SecondMomentScope::Factored:
        groups.factored = true;
        groups.factoredRows = out;
        groups.factoredColumns = row;
        groups.weightGroup = out * row;
        groups.biasGroup = join ? out * row : 1;
        break;
    }
    return groups;
}

LayerGroups layerGroups(int inputs, int outputs, MeanScope scope, BiasMode bias) {
    return layerGroups(inputs, outputs, widened(scope), bias);
}

std::vector<LayerGroups> networkGroups(const std::vector<int>& sizes, SecondMomentScope scope, BiasMode bias) {
    std::vector<LayerGroups> groups;
    for (std::size_t l = 0; l + 1 < sizes.size(); ++l)
        groups.push_back(layerGroups(sizes[l], sizes[l + 1], scope, bias));
    return groups;
}

std::vector<LayerGroups> networkGroups(const std::vector<int>& sizes, MeanScope scope, BiasMode bias) {
    return networkGroups(sizes, widened(scope), bias);
}

std::string scopeName(SecondMomentScope scope) {
    return findParameterField("second-moment-mean")->choices.at(static_cast<std::size_t>(scope));
}

std::string scopeName(MeanScope scope) { return scopeName(widened(scope)); }

}  // namespace ml
