#include "train/WeightsFile.h"

#include "InputError.h"
#include "io/Files.h"
#include "io/JsonFile.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <limits>

namespace ml {

namespace {

// The documented spelling of the values JSON cannot hold.
QJsonValue numberToJson(float value) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    return static_cast<double>(value);
}

float numberFromJson(const QJsonValue& value, const std::string& context) {
    if (value.isDouble()) {
        // A finite number beyond float's range would silently become infinity.
        const double number = value.toDouble();
        if (std::abs(number) > std::numeric_limits<float>::max())
            throw InputError(context + ": " + QString::number(number, 'g', 6).toStdString() +
                             " is outside float's range (at most about 3.4e+38); write \"inf\" or \"-inf\" for infinity");
        return static_cast<float>(number);
    }
    const QString text = value.toString();
    if (text == "nan") return NAN;
    if (text == "inf") return INFINITY;
    if (text == "-inf") return -INFINITY;
    throw InputError(context + ": expected a number (or \"nan\", \"inf\", \"-inf\")");
}

// What the network holds at one parameter layer: its token and the dimensions of its weight, as
// written in the file ([out][in] dense, [out][in][kh][kw] conv).
struct ExpectedLayer {
    LayerToken token;
    std::vector<qsizetype> dimensions;
    bool isConv() const { return token.kind == LayerToken::Kind::Conv; }
    std::string dimensionsText() const {
        std::string text;
        for (const qsizetype d : dimensions) text += "[" + std::to_string(d) + "]";
        return text;
    }
};

std::vector<ExpectedLayer> expectedLayers(const NetworkSpec& network) {
    std::vector<ExpectedLayer> expected;
    const std::vector<SampleShape> shapes = network.shapes();
    SampleShape in = network.input;
    for (std::size_t l = 0; l < network.layers.size(); ++l) {
        const LayerToken& token = network.layers[l];
        if (token.kind == LayerToken::Kind::Conv)
            expected.push_back({token, {token.size, in.channels, token.kernel, token.kernel}});
        else if (token.kind == LayerToken::Kind::Dense)
            expected.push_back({token, {token.size, in.size()}});
        in = shapes[l];
    }
    return expected;
}

// The nested arrays of `value` with the given dimensions, flattened in row-major order into `out`.
void readNested(const QJsonValue& value, const std::vector<qsizetype>& dimensions, std::size_t depth,
                const std::string& context, std::vector<float>& out) {
    if (depth == dimensions.size()) {
        out.push_back(numberFromJson(value, context));
        return;
    }
    if (!value.isArray())
        throw InputError(context + ": expected an array of " + std::to_string(dimensions[depth]) + " values");
    const QJsonArray array = value.toArray();
    if (array.size() != dimensions[depth])
        throw InputError(context + ": has " + std::to_string(array.size()) + " values; expected " +
                         std::to_string(dimensions[depth]));
    for (qsizetype i = 0; i < array.size(); ++i)
        readNested(array[i], dimensions, depth + 1, context + "[" + std::to_string(i) + "]", out);
}

}  // namespace

QByteArray weightsToJson(const Parameters& parameters, const NetworkSpec& network) {
    const std::vector<ExpectedLayer> expected = expectedLayers(network);
    QJsonArray layers;
    for (std::size_t l = 0; l < parameters.size(); ++l) {
        const Matrix& layer = parameters[l];
        const auto w = weightsOf(layer);
        const bool conv = l < expected.size() && expected[l].isConv();
        // A conv row is [in][kh][kw] flattened: split it in groups of kw, then kh.
        const Eigen::Index kernel = conv ? expected[l].dimensions[2] : 1;
        QJsonArray weight;
        for (Eigen::Index j = 0; j < w.rows(); ++j) {
            QJsonArray row;
            if (!conv) {
                for (Eigen::Index i = 0; i < w.cols(); ++i) row.append(numberToJson(w(j, i)));
            } else {
                for (Eigen::Index c = 0; c < w.cols() / (kernel * kernel); ++c) {
                    QJsonArray channel;
                    for (Eigen::Index ki = 0; ki < kernel; ++ki) {
                        QJsonArray line;
                        for (Eigen::Index kj = 0; kj < kernel; ++kj)
                            line.append(numberToJson(w(j, (c * kernel + ki) * kernel + kj)));
                        channel.append(line);
                    }
                    row.append(channel);
                }
            }
            weight.append(row);
        }
        QJsonArray bias;
        for (Eigen::Index j = 0; j < layer.rows(); ++j) bias.append(numberToJson(biasOf(layer)(j)));
        QJsonObject entry{{"weight", weight}, {"bias", bias}};
        if (conv) entry["type"] = "conv";
        layers.append(entry);
    }
    return QJsonDocument(QJsonObject{{"layers", layers}}).toJson(QJsonDocument::Compact);
}

Parameters weightsFromJson(const QByteArray& json, const QString& sourceName, const NetworkSpec& network) {
    const std::string source = sourceName.toStdString();
    const QJsonValue layersValue = parseJsonObject(json, sourceName).value("layers");
    if (!layersValue.isArray() || layersValue.toArray().isEmpty())
        throw InputError(source + ": expected {\"layers\":[{\"weight\":[[...]],\"bias\":[...]}, ...]}");
    const std::vector<ExpectedLayer> expected = expectedLayers(network);
    const QJsonArray layers = layersValue.toArray();
    if (static_cast<std::size_t>(layers.size()) != expected.size())
        throw InputError(source + ": has " + std::to_string(layers.size()) + " layers; network " + network.text() +
                         " has " + std::to_string(expected.size()) + " with parameters");
    Parameters parameters;
    for (qsizetype l = 0; l < layers.size(); ++l) {
        const ExpectedLayer& want = expected[static_cast<std::size_t>(l)];
        const std::string context = source + ": layers[" + std::to_string(l) + "]";
        const QJsonObject object = layers[l].toObject();
        const QString type = object.value("type").toString("dense");
        if (type != "dense" && type != "conv")
            throw InputError(context + ".type: '" + type.toStdString() + "'; expected \"dense\" or \"conv\"");
        if ((type == "conv") != want.isConv())
            throw InputError(context + ": is a " + type.toStdString() + " layer; network " + network.text() + " has " +
                             want.token.text() + " there (weight " + want.dimensionsText() +
                             (want.isConv() ? ", \"type\":\"conv\")" : ")"));
        std::vector<float> values;
        try {
            readNested(object.value("weight"), want.dimensions, 0, context + ".weight", values);
        } catch (const InputError& error) {
            throw InputError(std::string(error.what()) + " (network " + network.text() + ": " + want.token.text() +
                             " has weight " + want.dimensionsText() + ")");
        }
        std::vector<float> bias;
        readNested(object.value("bias"), {want.dimensions[0]}, 0, context + ".bias", bias);
        const Eigen::Index rows = want.dimensions[0], columns = static_cast<Eigen::Index>(values.size()) / rows;
        Matrix layer(rows, columns + 1);
        for (Eigen::Index j = 0; j < rows; ++j) {
            for (Eigen::Index i = 0; i < columns; ++i) layer(j, i) = values[static_cast<std::size_t>(j * columns + i)];
            layer(j, columns) = bias[static_cast<std::size_t>(j)];
        }
        parameters.push_back(std::move(layer));
    }
    return parameters;
}

Parameters loadWeightsFile(const QString& path, const NetworkSpec& network) {
    return weightsFromJson(readFileBytes(path), path, network);
}

std::optional<InitialWeights> loadInitialWeights(const Experiment& experiment) {
    if (experiment.initWeightsFile.empty()) return std::nullopt;
    return InitialWeights{loadWeightsFile(QString::fromStdString(experiment.initWeightsFile), experiment.network),
                          experiment.initWeightsFile};
}

}  // namespace ml
