#include "train/TrainingState.h"

#include "InputError.h"
#include "data/DataFiles.h"
#include "io/Files.h"
#include "io/JsonFile.h"
#include "io/JsonNumbers.h"
#include "optim/Optimizer.h"
#include "experiment/ExperimentJson.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>
#include <set>

namespace ml {

namespace {

constexpr const char* kParameters = "parameters";

// {"rows":R,"cols":C,"values":[row by row]}
void appendBuffer(QByteArray& out, const Matrix& buffer) {
    out.append("{\"rows\":");
    out.append(QByteArray::number(static_cast<qlonglong>(buffer.rows())));
    out.append(",\"cols\":");
    out.append(QByteArray::number(static_cast<qlonglong>(buffer.cols())));
    out.append(",\"values\":[");
    for (Eigen::Index r = 0; r < buffer.rows(); ++r)
        for (Eigen::Index c = 0; c < buffer.cols(); ++c) {
            if (r > 0 || c > 0) out.append(',');
            appendJsonNumber(out, buffer(r, c));
        }
    out.append("]}");
}

std::set<std::string> stateBufferNames() {
    std::set<std::string> names;
    LayerState state;
    forEachStateBuffer(state, [&](const char* name, auto&) { names.insert(name); });
    return names;
}

// Field readers: each names the file and the field in its message.
class FieldReader {
public:
    explicit FieldReader(const QString& source) : source_(source.toStdString()) {}
    [[noreturn]] void fail(const std::string& field, const std::string& what) const {
        throw InputError(source_ + ": " + field + ": " + what);
    }
    QJsonValue required(const QJsonObject& object, const std::string& field, const char* key) const {
        const QJsonValue value = object.value(key);
        if (value.isUndefined()) fail(field, "missing");
        return value;
    }
    std::string text(const QJsonObject& object, const std::string& prefix, const char* key) const {
        const QJsonValue value = required(object, prefix + key, key);
        if (!value.isString()) fail(prefix + key, "expected a string");
        return value.toString().toStdString();
    }
    long count(const QJsonObject& object, const std::string& prefix, const char* key, long minimum) const {
        return count(required(object, prefix + key, key), prefix + key, minimum);
    }
    long count(const QJsonValue& value, const std::string& field, long minimum) const {
        const double number = value.toDouble(-1.0);
        // Range first: casting a double outside long's range is undefined (UBSan: float-cast-overflow).
        if (!value.isDouble() ||
            !(number >= static_cast<double>(minimum) && number <= static_cast<double>(kMaxCount)) ||
            std::floor(number) != number)
            fail(field, "expected a whole number from " + std::to_string(minimum));
        return static_cast<long>(number);
    }
    Matrix buffer(const QJsonValue& value, const std::string& field) const {
        if (!value.isObject()) fail(field, "expected {\"rows\":R,\"cols\":C,\"values\":[...]}");
        const QJsonObject object = value.toObject();
        const long rows = count(object, field + ".", "rows", 1);
        const long cols = count(object, field + ".", "cols", 1);
        const QJsonValue valuesValue = required(object, field + ".values", "values");
        if (!valuesValue.isArray()) fail(field + ".values", "expected an array");
        const QJsonArray values = valuesValue.toArray();
        // Each side first: rows * cols of two large counts could overflow.
        if (rows > values.size() || cols > values.size() || values.size() != rows * cols)
            fail(field + ".values", "has " + std::to_string(values.size()) +
                                        " values; expected rows x cols = " + std::to_string(rows) + " x " +
                                        std::to_string(cols) + " (the file is cut short or corrupt)");
        Matrix matrix(rows, cols);
        for (long r = 0; r < rows; ++r)
            for (long c = 0; c < cols; ++c)
                matrix(r, c) = floatFromJson(values[r * cols + c],
                                             source_ + ": " + field + ".values[" + std::to_string(r * cols + c) + "]");
        return matrix;
    }

private:
    std::string source_;
};

}  // namespace

// The small fields through QJsonDocument (it escapes the label); the buffers, nearly all of the
// file, as shortest float text (io/JsonNumbers.h) appended before the closing brace: Qt would
// write each float as a 17-digit double.
QByteArray trainingStateToJson(const TrainingState& state) {
    QJsonArray order;
    for (const Eigen::Index index : state.dataOrder) order.append(static_cast<qint64>(index));
    const QJsonObject header{
        {"format", kTrainingStateFormat},
        {"version", kTrainingStateVersion},
        {"network", QString::fromStdString(state.network)},
        {"activation", QString::fromStdString(state.activation)},
        {"loss", QString::fromStdString(state.loss)},
        {"data", QString::fromStdString(state.data)},
        {"seed", seedToJson(state.seed)},
        {"batch", static_cast<qint64>(state.batchSize)},
        {"train_samples", static_cast<qint64>(state.trainSamples)},
        {"step", static_cast<qint64>(state.step)},
        {"epoch", state.epoch},
        {"data_order", order},
        {"shuffle_state", QString::fromStdString(state.shuffleState)},
        {"label", QString::fromStdString(state.label)},
        {"optimizer", QString::fromStdString(state.optimizer)},
        {"hyper_parameters", state.hyperParameters},
        {"optimizer_step", static_cast<qint64>(state.optimizerSteps)},
        {"wall_ms", state.wallMs},
    };
    QByteArray json = QJsonDocument(header).toJson(QJsonDocument::Compact);
    json.chop(1);  // the closing '}'
    json.append(",\"layers\":[");
    for (std::size_t l = 0; l < state.parameters.size(); ++l) {
        if (l > 0) json.append(',');
        json.append("{\"parameters\":");
        appendBuffer(json, state.parameters[l]);
        if (l < state.optimizerBuffers.size())
            for (const auto& [name, buffer] : state.optimizerBuffers[l]) {
                json.append(",\"" + QByteArray::fromStdString(name) + "\":");
                appendBuffer(json, buffer);
            }
        json.append('}');
    }
    json.append("]}");
    return json;
}

TrainingState trainingStateFromJson(const QByteArray& json, const QString& source) {
    const QJsonObject object = parseJsonObject(json, source);
    const FieldReader read(source);
    if (object.value("format").toString() != kTrainingStateFormat)
        read.fail("format", std::string("expected \"") + kTrainingStateFormat + "\" (is this a training-state file?)");
    const long version = read.count(object, "", "version", 1);
    if (version != kTrainingStateVersion)
        read.fail("version", std::to_string(version) + "; this build reads version " +
                                 std::to_string(kTrainingStateVersion) + " (written by another Momentum Lab?)");
    TrainingState state;
    state.source = source;
    state.network = read.text(object, "", "network");
    state.activation = read.text(object, "", "activation");
    state.loss = read.text(object, "", "loss");
    state.data = read.text(object, "", "data");
    state.seed = seedFromJson(read.required(object, "seed", "seed"), source.toStdString() + ": seed");
    state.batchSize = read.count(object, "", "batch", 1);
    state.trainSamples = read.count(object, "", "train_samples", 1);
    state.step = read.count(object, "", "step", 1);
    state.epoch = static_cast<int>(read.count(object, "", "epoch", 1));
    const QJsonValue order = read.required(object, "data_order", "data_order");
    if (!order.isArray()) read.fail("data_order", "expected an array of sample indices");
    for (qsizetype i = 0; i < order.toArray().size(); ++i)
        state.dataOrder.push_back(read.count(order.toArray()[i], "data_order[" + std::to_string(i) + "]", 0));
    state.shuffleState = read.text(object, "", "shuffle_state");
    state.label = read.text(object, "", "label");
    state.optimizer = read.text(object, "", "optimizer");
    state.hyperParameters = object.value("hyper_parameters").toObject();
    state.optimizerSteps = read.count(object, "", "optimizer_step", 0);
    const QJsonValue wall = read.required(object, "wall_ms", "wall_ms");
    if (!wall.isDouble()) read.fail("wall_ms", "expected a number");
    state.wallMs = wall.toDouble();

    const QJsonValue layersValue = read.required(object, "layers", "layers");
    if (!layersValue.isArray() || layersValue.toArray().isEmpty()) read.fail("layers", "expected an array of layers");
    const std::set<std::string> known = stateBufferNames();
    const QJsonArray layers = layersValue.toArray();
    for (qsizetype l = 0; l < layers.size(); ++l) {
        const std::string field = "layers[" + std::to_string(l) + "]";
        if (!layers[l].isObject()) read.fail(field, "expected an object");
        const QJsonObject layer = layers[l].toObject();
        state.parameters.push_back(
            read.buffer(read.required(layer, field + "." + kParameters, kParameters), field + "." + kParameters));
        std::map<std::string, Matrix>& buffers = state.optimizerBuffers.emplace_back();
        for (auto it = layer.begin(); it != layer.end(); ++it) {
            const std::string name = it.key().toStdString();
            if (name == kParameters) continue;
            if (!known.contains(name)) read.fail(field + "." + name, "not an optimizer state buffer");
            buffers[name] = read.buffer(it.value(), field + "." + name);
        }
    }
    return state;
}

void writeTrainingStateFile(const QString& path, const TrainingState& state) {
    writeFileAtomically(path, gzipCompress(trainingStateToJson(state), GzipLevel::Fastest));
}

TrainingState readTrainingStateFile(const QString& path) {
    return trainingStateFromJson(readMaybeGzippedFile(path), path);
}

}  // namespace ml
