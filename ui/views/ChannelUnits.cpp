#include "views/ChannelUnits.h"

#include <cmath>

namespace ml {

namespace {

QString shapeText(const SampleShape& s) {
    return QStringLiteral("%1×%2×%3").arg(s.channels).arg(s.height).arg(s.width);
}

// The spec's reading of the snapshot, or nothing when the two do not describe the same matrices.
std::optional<NetworkUnits> fromSpec(const Snapshot& snapshot, const NetworkSpec& spec) {
    std::vector<SampleShape> shapes;
    try {
        shapes = spec.shapes();
    } catch (...) {
        return std::nullopt;
    }
    NetworkUnits units;
    units.inputShape = spec.imageInput ? shapeText(spec.input) : QString();
    SampleShape in = spec.input;
    bool afterImageLayer = false;  // `in` is the output of a conv or pooling layer
    for (std::size_t t = 0; t < spec.layers.size(); ++t) {
        const LayerToken& token = spec.layers[t];
        const SampleShape out = shapes[t];
        if (!token.hasParameters()) {
            if (!units.layers.empty())
                units.layers.back().poolAfter = QStringLiteral("%1 %2×%2")
                                                    .arg(token.kind == LayerToken::Kind::MaxPool ? "max" : "avg")
                                                    .arg(token.kernel);
        } else if (token.kind == LayerToken::Kind::Conv) {
            if (units.layers.empty()) units.inputChannels = true;
            units.layers.push_back(
                {in.channels, out.channels, token.kernel * token.kernel, token.kernel, shapeText(out), {}});
        } else if (afterImageLayer && !units.layers.empty()) {  // flattens the channels of a conv
            units.layers.push_back({in.channels, out.size(), in.height * in.width, 0, {}, {}});
        } else {
            units.layers.push_back({in.size(), out.size(), 1, 0, {}, {}});
        }
        in = out;
        afterImageLayer = token.isImageLayer();
    }
    if (units.layers.size() != snapshot.layers.size()) return std::nullopt;
    for (std::size_t l = 0; l < units.layers.size(); ++l) {
        const Matrix& p = snapshot.layers[l].parameters;
        const UnitLayer& layer = units.layers[l];
        if (p.rows() != layer.outputs || p.cols() != Eigen::Index{layer.inputs} * layer.columnsPerInput + 1)
            return std::nullopt;
    }
    return units;
}

// Without a spec: a layer whose snapshot says k*k columns per input is a convolution; a layer
// with more weight columns than the previous layer has rows flattens that layer's channels.
NetworkUnits fromMatrices(const Snapshot& snapshot) {
    NetworkUnits units;
    for (std::size_t l = 0; l < snapshot.layers.size(); ++l) {
        const LayerSnapshot& matrices = snapshot.layers[l];
        const int weights = static_cast<int>(matrices.parameters.cols()) - 1;
        UnitLayer layer;
        layer.outputs = static_cast<int>(matrices.parameters.rows());
        const int group = static_cast<int>(matrices.columnsPerInput);
        const int previous = l > 0 ? units.layers[l - 1].outputs : 0;
        if (group > 1 && weights % group == 0) {
            layer.columnsPerInput = group;
            layer.inputs = weights / group;
            layer.kernel = static_cast<int>(std::lround(std::sqrt(double(group))));
            if (layer.kernel * layer.kernel != group) layer.kernel = 0;
            if (l == 0) units.inputChannels = true;
        } else if (previous > 0 && weights != previous && weights % previous == 0) {
            layer.inputs = previous;
            layer.columnsPerInput = weights / previous;
        } else {
            layer.inputs = weights;
        }
        units.layers.push_back(layer);
    }
    return units;
}

}  // namespace

std::vector<int> NetworkUnits::columnSizes() const {
    std::vector<int> sizes;
    if (layers.empty()) return sizes;
    sizes.push_back(layers.front().inputs);
    for (const UnitLayer& layer : layers) sizes.push_back(layer.outputs);
    return sizes;
}

bool NetworkUnits::hasConv() const {
    for (const UnitLayer& layer : layers)
        if (layer.isConv()) return true;
    return false;
}

NetworkUnits networkUnits(const Snapshot& snapshot, const std::optional<NetworkSpec>& spec) {
    if (spec) {
        if (std::optional<NetworkUnits> units = fromSpec(snapshot, *spec)) return *units;
    }
    return fromMatrices(snapshot);
}

Matrix unitMeans(const Matrix& values, int columnsPerInput) {
    if (columnsPerInput <= 1 || values.size() == 0) return values;
    const Eigen::Index inputs = (values.cols() - 1) / columnsPerInput;
    Matrix means(values.rows(), inputs + 1);
    for (Eigen::Index i = 0; i < inputs; ++i)
        means.col(i) = values.middleCols(i * columnsPerInput, columnsPerInput).rowwise().mean();
    means.col(inputs) = values.col(values.cols() - 1);
    return means;
}

}  // namespace ml
