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

}  // namespace

QByteArray weightsToJson(const Parameters& parameters) {
    QJsonArray layers;
    for (const Matrix& layer : parameters) {
        QJsonArray weight;
        const auto w = weightsOf(layer);
        for (Eigen::Index j = 0; j < w.rows(); ++j) {
            QJsonArray row;
            for (Eigen::Index i = 0; i < w.cols(); ++i) row.append(numberToJson(w(j, i)));
            weight.append(row);
        }
        QJsonArray bias;
        for (Eigen::Index j = 0; j < layer.rows(); ++j) bias.append(numberToJson(biasOf(layer)(j)));
        layers.append(QJsonObject{{"weight", weight}, {"bias", bias}});
    }
    return QJsonDocument(QJsonObject{{"layers", layers}}).toJson(QJsonDocument::Compact);
}

Parameters weightsFromJson(const QByteArray& json, const QString& sourceName) {
    const std::string source = sourceName.toStdString();
    const QJsonValue layersValue = parseJsonObject(json, sourceName).value("layers");
    if (!layersValue.isArray() || layersValue.toArray().isEmpty())
        throw InputError(source + ": expected {\"layers\":[{\"weight\":[[...]],\"bias\":[...]}, ...]}");
    Parameters parameters;
    const QJsonArray layers = layersValue.toArray();
    for (qsizetype l = 0; l < layers.size(); ++l) {
        const std::string context = source + ": layers[" + std::to_string(l) + "]";
        const QJsonArray weight = layers[l].toObject().value("weight").toArray();
        const QJsonArray bias = layers[l].toObject().value("bias").toArray();
        if (weight.isEmpty() || !weight[0].isArray() || weight[0].toArray().isEmpty())
            throw InputError(context + ".weight: expected a non-empty array of rows");
        const qsizetype rows = weight.size(), columns = weight[0].toArray().size();
        if (bias.size() != rows)
            throw InputError(context + ".bias: has " + std::to_string(bias.size()) + " values; expected " +
                             std::to_string(rows) + " (one per weight row)");
        Matrix layer(rows, columns + 1);
        for (qsizetype j = 0; j < rows; ++j) {
            const QJsonArray row = weight[j].toArray();
            const std::string rowContext = context + ".weight[" + std::to_string(j) + "]";
            if (row.size() != columns)
                throw InputError(rowContext + ": has " + std::to_string(row.size()) + " values; expected " +
                                 std::to_string(columns));
            for (qsizetype i = 0; i < columns; ++i)
                layer(j, i) = numberFromJson(row[i], rowContext + "[" + std::to_string(i) + "]");
            layer(j, columns) = numberFromJson(bias[j], context + ".bias[" + std::to_string(j) + "]");
        }
        parameters.push_back(std::move(layer));
    }
    return parameters;
}

Parameters loadWeightsFile(const QString& path) { return weightsFromJson(readFileBytes(path), path); }

std::optional<InitialWeights> loadInitialWeights(const Experiment& experiment) {
    if (experiment.initWeightsFile.empty()) return std::nullopt;
    return InitialWeights{loadWeightsFile(QString::fromStdString(experiment.initWeightsFile)), experiment.initWeightsFile};
}

}  // namespace ml
