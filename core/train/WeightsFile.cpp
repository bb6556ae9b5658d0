#include "train/WeightsFile.h"

#include "InputError.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace ml {

QByteArray weightsToJson(const Parameters& parameters) {
    QJsonArray layers;
    for (const Matrix& layer : parameters) {
        QJsonArray weight;
        const auto w = weightsOf(layer);
        for (Eigen::Index j = 0; j < w.rows(); ++j) {
            QJsonArray row;
            for (Eigen::Index i = 0; i < w.cols(); ++i) row.append(static_cast<double>(w(j, i)));
            weight.append(row);
        }
        QJsonArray bias;
        for (Eigen::Index j = 0; j < layer.rows(); ++j) bias.append(static_cast<double>(biasOf(layer)(j)));
        layers.append(QJsonObject{{"weight", weight}, {"bias", bias}});
    }
    return QJsonDocument(QJsonObject{{"layers", layers}}).toJson(QJsonDocument::Compact);
}

namespace {

float finiteNumber(const QJsonValue& value, const std::string& context) {
    if (!value.isDouble()) throw InputError(context + ": expected a number");
    return static_cast<float>(value.toDouble());
}

}  // namespace

Parameters weightsFromJson(const QByteArray& json, const std::string& source) {
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError)
        throw InputError(source + ": invalid JSON at offset " + std::to_string(error.offset) + ": " +
                         error.errorString().toStdString());
    const QJsonValue layersValue = document.object().value("layers");
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
                layer(j, i) = finiteNumber(row[i], rowContext + "[" + std::to_string(i) + "]");
            layer(j, columns) = finiteNumber(bias[j], context + ".bias[" + std::to_string(j) + "]");
        }
        parameters.push_back(std::move(layer));
    }
    return parameters;
}

Parameters loadWeightsFile(const std::string& path) {
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::ReadOnly))
        throw InputError(path + ": cannot open weights file (" + file.errorString().toStdString() + ")");
    return weightsFromJson(file.readAll(), path);
}

}  // namespace ml
