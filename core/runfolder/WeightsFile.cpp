#include "runfolder/WeightsFile.h"

#include "InputError.h"
#include "io/Files.h"
#include "io/JsonFile.h"
#include "io/JsonNumbers.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <limits>

namespace ml {

namespace {

// What the folder holds at one parameter layer: whether it is a convolution, the dimensions of its
// weight as written in the file ([out][in] dense, [out][in][kh][kw] conv), and how a message names
// it ("conv8k5", "recorded layer fc1") and its whole ("network 784-128-10", "the recorded model").
struct ExpectedLayer {
    bool conv = false;
    std::vector<qsizetype> dimensions;
    std::string name;
    std::string owner;
    bool isConv() const { return conv; }
    std::string dimensionsText() const {
        std::string text;
        for (const qsizetype d : dimensions) text += "[" + std::to_string(d) + "]";
        return text;
    }
};

std::vector<ExpectedLayer> expectedLayers(const NetworkSpec& network) {
    std::vector<ExpectedLayer> expected;
    const std::vector<SampleShape> shapes = network.shapes();
    const std::string owner = "network " + network.text();
    SampleShape in = network.input;
    for (std::size_t l = 0; l < network.layers.size(); ++l) {
        const LayerToken& token = network.layers[l];
        if (token.kind == LayerToken::Kind::Conv)
            expected.push_back({true, {token.size, in.channels, token.kernel, token.kernel}, token.text(), owner});
        else if (token.kind == LayerToken::Kind::Dense)
            expected.push_back({false, {token.size, in.size()}, token.text(), owner});
        in = shapes[l];
    }
    return expected;
}

std::vector<ExpectedLayer> expectedLayers(const Experiment& experiment) {
    if (!experiment.recorded.asBlocks) return expectedLayers(experiment.network);
    std::vector<ExpectedLayer> expected;
    for (const RecordedLayer& layer : experiment.recorded.layers) {
        std::vector<qsizetype> dimensions(layer.shape.begin(), layer.shape.end());
        // The recorder writes a Conv2d with "type":"conv"; other kernels' weights keep their shape.
        expected.push_back({layer.kind == "conv2d", dimensions, "recorded layer " + layer.name, "the recorded model"});
    }
    return expected;
}

// The nested arrays of `value` with the given dimensions, flattened in row-major order into `out`.
void readNested(const QJsonValue& value, const std::vector<qsizetype>& dimensions, std::size_t depth,
                const std::string& context, std::vector<float>& out) {
    if (depth == dimensions.size()) {
        out.push_back(floatFromJson(value, context));
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

// Written here rather than through QJsonDocument: Qt writes each float as a double with up to 17
// digits, while its shortest text (std::to_chars) is about half as long, several times faster to
// make and reads back as the same float. The layout is fixed and holds only numbers and the few
// strings above, so nothing needs escaping; files are read back with Qt's JSON parser. Same key
// order as QJsonDocument writes ("bias", "type", "weight": sorted).
namespace {

QByteArray weightsToJson(const Parameters& parameters, const std::vector<ExpectedLayer>& expected) {
    Eigen::Index values = 0;
    for (const Matrix& layer : parameters) values += layer.size();
    QByteArray json;
    json.reserve(static_cast<qsizetype>(values) * 16 + 64);
    json.append("{\"layers\":[");
    for (std::size_t l = 0; l < parameters.size(); ++l) {
        const Matrix& layer = parameters[l];
        const bool conv = l < expected.size() && expected[l].isConv();
        if (l > 0) json.append(',');
        json.append("{\"bias\":");
        appendJsonArray(json, biasOf(layer));
        json.append(conv ? ",\"type\":\"conv\",\"weight\":[" : ",\"weight\":[");
        const auto w = weightsOf(layer);
        // A conv row is [in][kh][kw] flattened: split it in groups of kw, then kh.
        const Eigen::Index kernel = conv ? expected[l].dimensions[2] : 1;
        for (Eigen::Index j = 0; j < w.rows(); ++j) {
            if (j > 0) json.append(',');
            if (!conv) {
                appendJsonArray(json, w.row(j));
                continue;
            }
            json.append('[');
            for (Eigen::Index c = 0; c < w.cols() / (kernel * kernel); ++c) {
                if (c > 0) json.append(',');
                json.append('[');
                for (Eigen::Index ki = 0; ki < kernel; ++ki) {
                    if (ki > 0) json.append(',');
                    appendJsonArray(json, w.row(j).segment((c * kernel + ki) * kernel, kernel));
                }
                json.append(']');
            }
            json.append(']');
        }
        json.append("]}");
    }
    json.append("]}");
    return json;
}

Parameters weightsFromJson(const QByteArray& json, const QString& sourceName,
                           const std::vector<ExpectedLayer>& expected) {
    const std::string source = sourceName.toStdString();
    const QJsonValue layersValue = parseJsonObject(json, sourceName).value("layers");
    if (!layersValue.isArray() || layersValue.toArray().isEmpty())
        throw InputError(source + ": expected {\"layers\":[{\"weight\":[[...]],\"bias\":[...]}, ...]}");
    const QJsonArray layers = layersValue.toArray();
    const std::string owner = expected.empty() ? std::string("the network") : expected.front().owner;
    if (static_cast<std::size_t>(layers.size()) != expected.size())
        throw InputError(source + ": has " + std::to_string(layers.size()) + " layers; " + owner + " has " +
                         std::to_string(expected.size()) + " with parameters");
    Parameters parameters;
    for (qsizetype l = 0; l < layers.size(); ++l) {
        const ExpectedLayer& want = expected[static_cast<std::size_t>(l)];
        const std::string context = source + ": layers[" + std::to_string(l) + "]";
        const QJsonObject object = layers[l].toObject();
        const QString type = object.value("type").toString("dense");
        if (type != "dense" && type != "conv")
            throw InputError(context + ".type: '" + type.toStdString() + "'; expected \"dense\" or \"conv\"");
        if ((type == "conv") != want.isConv())
            throw InputError(context + ": is a " + type.toStdString() + " layer; " + owner + " has " + want.name +
                             " there (weight " + want.dimensionsText() +
                             (want.isConv() ? ", \"type\":\"conv\")" : ")"));
        std::vector<float> values;
        try {
            readNested(object.value("weight"), want.dimensions, 0, context + ".weight", values);
        } catch (const InputError& error) {
            throw InputError(std::string(error.what()) + " (" + owner + ": " + want.name + " has weight " +
                             want.dimensionsText() + ")");
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

}  // namespace

QByteArray weightsToJson(const Parameters& parameters, const NetworkSpec& network) {
    return weightsToJson(parameters, expectedLayers(network));
}

Parameters weightsFromJson(const QByteArray& json, const QString& source, const NetworkSpec& network) {
    return weightsFromJson(json, source, expectedLayers(network));
}

Parameters loadWeightsFile(const QString& path, const NetworkSpec& network) {
    return weightsFromJson(readFileBytes(path), path, expectedLayers(network));
}

Parameters loadWeightsFile(const QString& path, const Experiment& experiment) {
    return weightsFromJson(readFileBytes(path), path, expectedLayers(experiment));
}

std::optional<InitialWeights> loadInitialWeights(const Experiment& experiment) {
    if (experiment.initWeightsFile.empty()) return std::nullopt;
    return InitialWeights{loadWeightsFile(QString::fromStdString(experiment.initWeightsFile), experiment.network),
                          experiment.initWeightsFile};
}

}  // namespace ml
