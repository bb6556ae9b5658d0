#include "runfolder/SnapshotFile.h"

#include "io/Files.h"

#include "InputError.h"
#include "io/FileError.h"
#include "optim/HyperParameters.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtEndian>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <cmath>

namespace ml {

namespace {

// Version 2 added each record's "rule_state"; version 1 files (without it) are still read.
constexpr const char* kMagic = "momentum-lab-snapshots 2";
constexpr const char* kMagicVersion1 = "momentum-lab-snapshots 1";
// A record's JSON line is short; a longer "line" means the file is not a snapshot file.
constexpr qint64 kMaxLineBytes = 64 * 1024;

// The matrices of a layer snapshot, in file order, with their names in the file.
using MatrixMember = Matrix LayerSnapshot::*;
constexpr std::array<std::pair<const char*, MatrixMember>, 5> kMatrices{{
    {"parameters", &LayerSnapshot::parameters},
    {"gradient", &LayerSnapshot::gradient},
    {"first_moment", &LayerSnapshot::firstMoment},
    {"second_moment", &LayerSnapshot::secondMoment},
    {"update", &LayerSnapshot::update},
}};

// Scope and bias by the names the hyper-parameter table gives them (--momentum-mean, --bias).
std::string scopeName(MeanScope scope) {
    HyperParameters hp;
    hp.momentumMean = scope;
    return findParameterField("momentum-mean")->get(hp);
}
std::string biasName(BiasMode bias) {
    HyperParameters hp;
    hp.bias = bias;
    return findParameterField("bias")->get(hp);
}

void appendFloats(QByteArray& bytes, const float* values, qsizetype count) {
    if (count == 0) return;  // an empty matrix's data() is null, and memcpy may not take null
    const qsizetype at = bytes.size();
    bytes.resize(at + count * qsizetype(sizeof(float)));
    qToLittleEndian<float>(values, count, bytes.data() + at);
}

void appendRowMajor(QByteArray& bytes, const Matrix& matrix) {
    using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const RowMajor rows = matrix;
    appendFloats(bytes, rows.data(), rows.size());
}

QJsonArray shapesJson(const std::vector<std::pair<long, long>>& layers) {
    QJsonArray array;
    for (const auto& [rows, cols] : layers) array.append(QJsonArray{qint64(rows), qint64(cols)});
    return array;
}

// JSON has no NaN: a non-finite batch loss is written as null and read back as NaN.
QJsonValue lossJson(float loss) { return std::isfinite(loss) ? QJsonValue(double(loss)) : QJsonValue(); }

}  // namespace

SnapshotFileWriter::SnapshotFileWriter(const QString& path, const SnapshotFileHeader& header)
    : file_(path), header_(header) {
    QJsonObject json{{"label", QString::fromStdString(header.label)},
                     {"layers", shapesJson(header.layers)},
                     {"momentum-mean", QString::fromStdString(scopeName(header.scope))},
                     {"bias", QString::fromStdString(biasName(header.bias))}};
    if (std::any_of(header.columnsPerInput.begin(), header.columnsPerInput.end(), [](long c) { return c != 1; })) {
        QJsonArray columns;
        for (const long c : header.columnsPerInput) columns.append(qint64(c));
        json["columns_per_input"] = columns;  // only for convolutional networks
    }
    file_.append(QByteArray(kMagic) + '\n' + QJsonDocument(json).toJson(QJsonDocument::Compact) + '\n');
    file_.flush();
}

std::uint64_t SnapshotFileWriter::recordBytesBound(const std::vector<std::pair<long, long>>& layers) {
    std::uint64_t floats = 0;
    // The rule state beyond the five: at most two more layer-shaped buffers (amsgrad's maximum,
    // centered rmsprop's mean), a row and a column vector and the two tensor scales (nero).
    for (const auto& [rows, cols] : layers)
        floats +=
            (kMatrices.size() + 2) * std::uint64_t(rows) * std::uint64_t(cols) + 2 * std::uint64_t(rows + cols) + 2;
    constexpr std::uint64_t kJsonLine = 512;
    return kJsonLine + 64 * layers.size() + floats * sizeof(float);
}

void SnapshotFileWriter::append(const Snapshot& snapshot) {
    QJsonArray quantities;
    QJsonArray means;
    QJsonArray ruleState;  // [{"name", "shapes": one [rows, cols] per layer}] in payload order
    QByteArray payload;
    const LayerSnapshot& first = snapshot.layers.front();
    for (const auto& [name, member] : kMatrices)
        if ((first.*member).size() > 0) quantities.append(QString::fromLatin1(name));
    for (std::size_t l = 0; l < snapshot.layers.size(); ++l) {
        const LayerSnapshot& layer = snapshot.layers[l];
        for (const auto& [name, member] : kMatrices) {
            const Matrix& matrix = layer.*member;
            if ((first.*member).size() == 0) continue;
            if (matrix.rows() != header_.layers[l].first || matrix.cols() != header_.layers[l].second)
                throw std::logic_error(std::string("snapshot ") + name + ": shape differs from the file header");
            appendRowMajor(payload, matrix);
        }
        appendFloats(payload, layer.neuronMeans.data(), layer.neuronMeans.size());
        means.append(qint64(layer.neuronMeans.size()));
        if (layer.ruleState.size() != first.ruleState.size())
            throw std::logic_error("snapshot rule state: the layers keep different buffers");
        for (std::size_t b = 0; b < layer.ruleState.size(); ++b) {
            const auto& [name, buffer] = layer.ruleState[b];
            if (name != first.ruleState[b].first)
                throw std::logic_error("snapshot rule state: the layers keep different buffers");
            if (l == 0) ruleState.append(QJsonObject{{"name", QString::fromStdString(name)}, {"shapes", QJsonArray{}}});
            QJsonObject entry = ruleState[qsizetype(b)].toObject();
            QJsonArray shapes = entry["shapes"].toArray();
            shapes.append(QJsonArray{qint64(buffer.rows()), qint64(buffer.cols())});
            entry["shapes"] = shapes;
            ruleState[qsizetype(b)] = entry;
            appendRowMajor(payload, buffer);
        }
    }
    const QJsonObject record{
        {"step", qint64(snapshot.step)},  {"epoch", snapshot.epoch}, {"batch_loss", lossJson(snapshot.batchLoss)},
        {"quantities", quantities},       {"neuron_means", means},   {"rule_state", ruleState},
        {"bytes", qint64(payload.size())}};
    file_.append(QJsonDocument(record).toJson(QJsonDocument::Compact) + '\n');
    file_.append(payload);
    file_.flush();  // a killed run keeps every complete record
}

void SnapshotFileWriter::close() { file_.close(); }

SnapshotFileReader::SnapshotFileReader(const QString& path, int run) : file_(path), run_(run) {
    openForReading(file_);  // a FIFO or device is refused by name, not waited on
    const QByteArray magic = file_.readLine(kMaxLineBytes).trimmed();
    if (magic != kMagic && magic != kMagicVersion1)
        throw InputError(path.toStdString() + ": not a snapshot file; expected the first line '" + kMagic + "' (or '" +
                         kMagicVersion1 + "')");
    version_ = magic == kMagic ? 2 : 1;
    QJsonParseError error{};
    const QJsonObject json = QJsonDocument::fromJson(file_.readLine(kMaxLineBytes), &error).object();
    if (error.error != QJsonParseError::NoError || !json["layers"].isArray())
        throw InputError(path.toStdString() + ": line 2: expected the JSON header {\"label\",\"layers\",...}");
    header_.label = json["label"].toString().toStdString();
    for (const QJsonValue& layer : json["layers"].toArray()) {
        const QJsonArray shape = layer.toArray();
        const long rows = shape.at(0).toInteger(-1), cols = shape.at(1).toInteger(-1);
        if (shape.size() != 2 || rows <= 0 || cols <= 0 || rows > (1L << 24) || cols > (1L << 24) ||
            rows * cols > (1L << 28))
            throw InputError(path.toStdString() +
                             ": line 2: \"layers\": expected [rows, cols] pairs of positive sizes");
        header_.layers.emplace_back(rows, cols);
    }
    HyperParameters hp;
    findParameterField("momentum-mean")
        ->set(hp, json["momentum-mean"].toString("none").toStdString(),
              path.toStdString() + ": line 2: \"momentum-mean\"");
    findParameterField("bias")->set(hp, json["bias"].toString("own").toStdString(),
                                    path.toStdString() + ": line 2: \"bias\"");
    header_.scope = hp.momentumMean;
    header_.bias = hp.bias;
    if (json.contains("columns_per_input")) {
        const QJsonArray columns = json["columns_per_input"].toArray();
        if (columns.size() != qsizetype(header_.layers.size()))
            throw InputError(path.toStdString() + ": line 2: \"columns_per_input\": expected one count per layer");
        for (qsizetype l = 0; l < columns.size(); ++l) {
            const long c = columns.at(l).toInteger(-1);
            if (c < 1 || (header_.layers[std::size_t(l)].second - 1) % c != 0)
                throw InputError(path.toStdString() + ": line 2: \"columns_per_input\"[" + std::to_string(l) +
                                 "]: expected a positive divisor of the layer's weight columns");
            header_.columnsPerInput.push_back(c);
        }
    }
    endOfRecords_ = file_.pos();
}

void SnapshotFileReader::continueAt(qint64 endOfRecords, int records) {
    if (!file_.seek(endOfRecords)) fail("cannot go to byte " + std::to_string(endOfRecords));
    endOfRecords_ = endOfRecords;
    records_ = records;
    truncated_ = false;
}

void SnapshotFileReader::skipThrough(long step) {
    for (;;) {
        const qint64 start = file_.pos();
        if (file_.atEnd()) return;
        const QByteArray line = file_.readLine(kMaxLineBytes);
        const QJsonObject json = QJsonDocument::fromJson(line).object();
        const qint64 bytes = json["bytes"].toInteger(-1);
        if (!line.endsWith('\n') || json["step"].toInteger(-1) > step || bytes < 0 ||
            file_.size() - file_.pos() < bytes) {
            file_.seek(start);  // next() reads it, or says why it cannot
            return;
        }
        file_.seek(file_.pos() + bytes);
        ++records_;
        endOfRecords_ = file_.pos();
    }
}

void SnapshotFileReader::fail(const std::string& what) const {
    throw InputError(file_.fileName().toStdString() + ": record " + std::to_string(records_ + 1) + " (byte " +
                     std::to_string(recordOffset_) + "): " + what);
}

std::string SnapshotFileReader::truncationText() const {
    return file_.fileName().toStdString() + ": the file ends inside record " + std::to_string(records_ + 1) +
           " (byte " + std::to_string(recordOffset_) + "), cut off while it was written; the " +
           std::to_string(records_) + (records_ == 1 ? " record" : " records") + " before it were read";
}

std::optional<Snapshot> SnapshotFileReader::next() {
    recordOffset_ = file_.pos();
    if (file_.atEnd()) return std::nullopt;
    const QByteArray line = file_.readLine(kMaxLineBytes);
    if (!line.endsWith('\n')) {
        if (line.size() >= kMaxLineBytes - 1) fail("expected a JSON line of at most 64 KiB");
        truncated_ = true;  // cut off while being written
        return std::nullopt;
    }
    QJsonParseError error{};
    const QJsonObject json = QJsonDocument::fromJson(line, &error).object();
    if (error.error != QJsonParseError::NoError)
        fail("expected a JSON record line (" + error.errorString().toStdString() + ")");

    Snapshot snapshot;
    snapshot.run = run_;
    snapshot.label = header_.label;
    snapshot.step = json["step"].toInteger(-1);
    snapshot.epoch = json["epoch"].toInt(-1);
    snapshot.batchLoss = json["batch_loss"].isDouble() ? float(json["batch_loss"].toDouble()) : NAN;
    snapshot.scope = header_.scope;
    snapshot.bias = header_.bias;
    if (snapshot.step <= 0 || snapshot.epoch <= 0) fail("\"step\" and \"epoch\": expected positive whole numbers");

    std::vector<MatrixMember> present;
    for (const QJsonValue& value : json["quantities"].toArray()) {
        const auto it = std::find_if(kMatrices.begin(), kMatrices.end(),
                                     [&](const auto& entry) { return value.toString() == QLatin1String(entry.first); });
        if (it == kMatrices.end()) fail("\"quantities\": unknown name '" + value.toString().toStdString() + "'");
        present.push_back(it->second);
    }
    const QJsonArray means = json["neuron_means"].toArray();
    if (means.size() != qsizetype(header_.layers.size()))
        fail("\"neuron_means\": expected one length per layer (" + std::to_string(header_.layers.size()) + ")");
    qint64 expected = 0;
    for (std::size_t l = 0; l < header_.layers.size(); ++l) {
        const auto [rows, cols] = header_.layers[l];
        const qint64 meanCount = means[qsizetype(l)].toInteger(-1);
        if (meanCount < 0 || meanCount > rows * cols)
            fail("\"neuron_means\"[" + std::to_string(l) + "]: expected 0.." + std::to_string(rows * cols));
        expected += (qint64(present.size()) * rows * cols + meanCount) * qint64(sizeof(float));
    }
    // Version 2: the rule's other state buffers, one shape per layer each, after the neuron means.
    struct RuleBuffer {
        std::string name;
        std::vector<std::pair<qint64, qint64>> shapes;
    };
    std::vector<RuleBuffer> ruleBuffers;
    if (version_ >= 2) {
        if (!json["rule_state"].isArray()) fail("\"rule_state\": expected an array of {\"name\", \"shapes\"}");
        for (const QJsonValue& value : json["rule_state"].toArray()) {
            const QJsonObject entry = value.toObject();
            RuleBuffer buffer{entry["name"].toString().toStdString(), {}};
            const QJsonArray shapes = entry["shapes"].toArray();
            const std::string where = "\"rule_state\" '" + buffer.name + "'";
            if (buffer.name.empty() || shapes.size() != qsizetype(header_.layers.size()))
                fail(where + ": expected a name and one [rows, cols] per layer (" +
                     std::to_string(header_.layers.size()) + ")");
            for (std::size_t l = 0; l < header_.layers.size(); ++l) {
                const QJsonArray shape = shapes[qsizetype(l)].toArray();
                const qint64 rows = shape.at(0).toInteger(-1), cols = shape.at(1).toInteger(-1);
                const auto [layerRows, layerCols] = header_.layers[l];
                // No rule keeps a buffer larger than its layer matrix (or, for nero's scales, than 2).
                if (shape.size() != 2 || rows < 0 || cols < 0 || rows > (1LL << 28) || cols > (1LL << 28) ||
                    rows * cols > std::max<qint64>(2, layerRows * layerCols))
                    fail(where + " layer " + std::to_string(l) + ": expected [rows, cols] of at most the layer's size");
                buffer.shapes.emplace_back(rows, cols);
                expected += rows * cols * qint64(sizeof(float));
            }
            ruleBuffers.push_back(std::move(buffer));
        }
    }
    if (json["bytes"].toInteger(-1) != expected)
        fail("\"bytes\": expected " + std::to_string(expected) + " for these quantities and layers");

    const QByteArray payload = file_.read(expected);
    if (payload.size() != expected) {
        truncated_ = true;
        return std::nullopt;
    }
    const char* data = payload.constData();
    auto readFloats = [&data](float* out, qsizetype count) {
        if (count == 0) return;  // an empty matrix's data() is null, and memcpy may not take null
        qFromLittleEndian<float>(data, count, out);
        data += count * qsizetype(sizeof(float));
    };
    using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    for (std::size_t l = 0; l < header_.layers.size(); ++l) {
        const auto [rows, cols] = header_.layers[l];
        LayerSnapshot layer;
        if (l < header_.columnsPerInput.size()) layer.columnsPerInput = header_.columnsPerInput[l];
        for (const MatrixMember member : present) {
            RowMajor matrix(rows, cols);
            readFloats(matrix.data(), matrix.size());
            layer.*member = matrix;
        }
        layer.neuronMeans.resize(means[qsizetype(l)].toInteger());
        readFloats(layer.neuronMeans.data(), layer.neuronMeans.size());
        for (const RuleBuffer& buffer : ruleBuffers) {
            const auto [bufferRows, bufferCols] = buffer.shapes[l];
            if (bufferRows * bufferCols == 0) continue;  // not kept for this layer
            RowMajor matrix(bufferRows, bufferCols);
            readFloats(matrix.data(), matrix.size());
            layer.ruleState.emplace_back(buffer.name, matrix);
        }
        snapshot.layers.push_back(std::move(layer));
    }
    ++records_;
    endOfRecords_ = file_.pos();
    return snapshot;
}

std::vector<Snapshot> readSnapshotFile(const QString& path, int run) {
    SnapshotFileReader reader(path, run);
    std::vector<Snapshot> snapshots;
    while (std::optional<Snapshot> snapshot = reader.next()) snapshots.push_back(std::move(*snapshot));
    return snapshots;
}

}  // namespace ml
