#include "train/WeightsFile.h"

#include "InputError.h"
#include "io/Files.h"
#include "io/JsonFile.h"
#include "io/NumberText.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <limits>

namespace ml {

namespace {

// A float as a JSON value: its shortest text, or the documented string for the values JSON cannot
// hold. -0 is written 0: Qt's JSON reader keeps whole numbers as integers, so it would read "-0"
// (or "-0.0") as 0 anyway, and this way a file read and written again is the same bytes.
void appendJsonNumber(QByteArray& out, float value) {
    if (std::isnan(value)) return void(out.append("\"nan\""));
    if (std::isinf(value)) return void(out.append(value > 0 ? "\"inf\"" : "\"-inf\""));
    appendShortest(out, value == 0.0f ? 0.0f : value);
}

// [v0,v1,...]
template <typename Values>
void appendJsonArray(QByteArray& out, const Values& values) {
    out.append('[');
    for (Eigen::Index i = 0; i < values.size(); ++i) {
        if (i > 0) out.append(',');
        appendJsonNumber(out, values(i));
    }
    out.append(']');
}

float numberFromJson(const QJsonValue& value, const std::string& context) {
    if (value.isDouble()) {
        // A finite number beyond float's range would silently become infinity. The limit is the
        // midpoint between FLT_MAX and 2^128: below it a number rounds to FLT_MAX (whose shortest
        // text, 3.4028235e+38, is a little above FLT_MAX itself); from it on, to infinity.
        constexpr double kRoundsToInfinity = 0x1.ffffffp127;
        const double number = value.toDouble();
        if (std::abs(number) >= kRoundsToInfinity)
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

// Written here rather than through QJsonDocument: Qt writes each float as a double with up to 17
// digits, while its shortest text (std::to_chars) is about half as long, several times faster to
// make and reads back as the same float. The layout is fixed and holds only numbers and the three
// strings above, so nothing needs escaping; files are read back with Qt's JSON parser. Same key
// order as before ("bias" first, as QJsonDocument sorts them).
QByteArray weightsToJson(const Parameters& parameters) {
    Eigen::Index values = 0;
    for (const Matrix& layer : parameters) values += layer.size();
    QByteArray json;
    json.reserve(static_cast<qsizetype>(values) * 16 + 64);
    json.append("{\"layers\":[");
    for (std::size_t l = 0; l < parameters.size(); ++l) {
        const Matrix& layer = parameters[l];
        if (l > 0) json.append(',');
        json.append("{\"bias\":");
        appendJsonArray(json, biasOf(layer));
        json.append(",\"weight\":[");
        const auto w = weightsOf(layer);
        for (Eigen::Index j = 0; j < w.rows(); ++j) {
            if (j > 0) json.append(',');
            appendJsonArray(json, w.row(j));
        }
        json.append("]}");
    }
    json.append("]}");
    return json;
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
