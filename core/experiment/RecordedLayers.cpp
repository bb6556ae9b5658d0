#include "experiment/RecordedLayers.h"

#include "InputError.h"

#include <QJsonObject>

#include <cmath>

namespace ml {

namespace {

// The largest dimension read: a layer matrix's size must stay an Eigen index and a float count.
constexpr double kMaxDimension = 1 << 30;

std::string stringField(const QJsonObject& entry, const char* key, const std::string& where, bool required) {
    const QJsonValue value = entry.value(key);
    if (value.isUndefined() || value.isNull()) {
        if (required) throw InputError(where + "." + key + ": missing; expected a text");
        return {};
    }
    if (!value.isString()) throw InputError(where + "." + key + ": expected a text");
    return value.toString().toStdString();
}

std::vector<long> shapeField(const QJsonObject& entry, const std::string& where) {
    const std::string context = where + ".shape";
    const QJsonValue value = entry.value("shape");
    const QJsonArray dims = value.toArray();
    if (!value.isArray() || dims.size() < 2 || dims.size() > 5)
        throw InputError(context +
                         ": expected the weight's shape, 2 to 5 positive whole numbers ([out, in] or "
                         "[out, in, kh, kw])");
    std::vector<long> shape;
    double product = 1.0;
    for (qsizetype i = 0; i < dims.size(); ++i) {
        const double d = dims[i].toDouble(-1.0);
        if (!dims[i].isDouble() || d < 1.0 || d != std::floor(d) || d > kMaxDimension)
            throw InputError(context + "[" + std::to_string(i) + "]: expected a whole number from 1 to 2^30");
        product *= d;
        shape.push_back(static_cast<long>(d));
    }
    if (product > kMaxDimension) throw InputError(context + ": more than 2^30 weights in one layer");
    return shape;
}

}  // namespace

long RecordedLayer::columnsPerInput() const {
    long product = 1;
    for (std::size_t i = 2; i < shape.size(); ++i) product *= shape[i];
    return product;
}

std::string RecordedLayer::shapeText() const {
    std::string text;
    for (const long d : shape) text += (text.empty() ? "" : " × ") + std::to_string(d);
    return text;
}

std::string RecordedLayer::text() const { return name + " (" + kind + " " + shapeText() + ")"; }

std::vector<std::pair<long, long>> RecordedModel::matrixShapes() const {
    std::vector<std::pair<long, long>> shapes;
    for (const RecordedLayer& layer : layers) shapes.emplace_back(layer.rows(), layer.columns());
    return shapes;
}

std::vector<Eigen::Index> RecordedModel::columnsPerInput() const {
    std::vector<Eigen::Index> columns;
    for (const RecordedLayer& layer : layers) columns.push_back(layer.columnsPerInput());
    return columns;
}

RecordedModel recordedModelFromJson(const QJsonValue& value, const std::string& context) {
    const std::string where = context + ": recorded-layers";
    if (!value.isArray() || value.toArray().isEmpty())
        throw InputError(where +
                         ": expected an array of layers, e.g. [{\"name\": \"fc1\", \"kind\": \"linear\", "
                         "\"shape\": [128, 784], \"follows\": null}]");
    RecordedModel model;
    const QJsonArray entries = value.toArray();
    for (qsizetype i = 0; i < entries.size(); ++i) {
        const std::string entryWhere = where + "[" + std::to_string(i) + "]";
        if (!entries[i].isObject()) throw InputError(entryWhere + ": expected an object {name, kind, shape, follows}");
        const QJsonObject entry = entries[i].toObject();
        for (auto it = entry.begin(); it != entry.end(); ++it)
            if (it.key() != "name" && it.key() != "kind" && it.key() != "shape" && it.key() != "follows")
                throw InputError(entryWhere + ": unknown key '" + it.key().toStdString() + "'");
        RecordedLayer layer;
        layer.name = stringField(entry, "name", entryWhere, true);
        layer.kind = stringField(entry, "kind", entryWhere, true);
        layer.shape = shapeField(entry, entryWhere);
        layer.follows = stringField(entry, "follows", entryWhere, false);
        model.layers.push_back(std::move(layer));
    }
    for (const RecordedLayer& layer : model.layers) {
        if (layer.follows.empty()) continue;
        bool known = false;
        for (const RecordedLayer& other : model.layers) known = known || (other.name == layer.follows);
        if (!known)
            throw InputError(where + ": " + layer.name + " follows '" + layer.follows +
                             "', which is not a recorded layer");
    }
    return model;
}

QJsonArray toJson(const RecordedModel& model) {
    QJsonArray entries;
    for (const RecordedLayer& layer : model.layers) {
        QJsonArray shape;
        for (const long d : layer.shape) shape.append(static_cast<double>(d));
        entries.append(QJsonObject{
            {"name", QString::fromStdString(layer.name)},
            {"kind", QString::fromStdString(layer.kind)},
            {"shape", shape},
            {"follows", layer.follows.empty() ? QJsonValue() : QJsonValue(QString::fromStdString(layer.follows))}});
    }
    return entries;
}

}  // namespace ml
