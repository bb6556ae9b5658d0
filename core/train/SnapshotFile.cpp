#include "train/SnapshotFile.h"

#include "InputError.h"
#include "io/FileError.h"
#include "optim/HyperParameters.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtEndian>

#include <algorithm>
#include <array>
#include <cmath>

namespace ml {

namespace {

constexpr const char* kMagic = "momentum-lab-snapshots 1";
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
    for (const auto& [rows, cols] : layers)
        floats += kMatrices.size() * std::uint64_t(rows) * std::uint64_t(cols) + std::uint64_t(rows + cols);
    constexpr std::uint64_t kJsonLine = 256;
    return kJsonLine + 16 * layers.size() + floats * sizeof(float);
}

void SnapshotFileWriter::append(const Snapshot& snapshot) {
    QJsonArray quantities;
    QJsonArray means;
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
    }
    const QJsonObject record{{"step", qint64(snapshot.step)},
                             {"epoch", snapshot.epoch},
                             {"batch_loss", lossJson(snapshot.batchLoss)},
                             {"quantities", quantities},
                             {"neuron_means", means},
                             {"bytes", qint64(payload.size())}};
    file_.append(QJsonDocument(record).toJson(QJsonDocument::Compact) + '\n');
    file_.append(payload);
    file_.flush();  // a killed run keeps every complete record
}

void SnapshotFileWriter::close() { file_.close(); }

SnapshotFileReader::SnapshotFileReader(const QString& path, int run) : file_(path), run_(run) {
    if (!file_.open(QIODevice::ReadOnly)) throw InputError(path.toStdString() + ": cannot read (" + file_.errorString().toStdString() + ")");
    if (file_.readLine(kMaxLineBytes).trimmed() != kMagic)
        throw InputError(path.toStdString() + ": not a snapshot file; expected the first line '" + kMagic + "'");
    QJsonParseError error{};
    const QJsonObject json = QJsonDocument::fromJson(file_.readLine(kMaxLineBytes), &error).object();
    if (error.error != QJsonParseError::NoError || !json["layers"].isArray())
        throw InputError(path.toStdString() + ": line 2: expected the JSON header {\"label\",\"layers\",...}");
    header_.label = json["label"].toString().toStdString();
    for (const QJsonValue& layer : json["layers"].toArray()) {
        const QJsonArray shape = layer.toArray();
        const long rows = shape.at(0).toInteger(-1), cols = shape.at(1).toInteger(-1);
        if (shape.size() != 2 || rows <= 0 || cols <= 0 || rows > (1L << 24) || cols > (1L << 24) || rows * cols > (1L << 28))
            throw InputError(path.toStdString() + ": line 2: \"layers\": expected [rows, cols] pairs of positive sizes");
        header_.layers.emplace_back(rows, cols);
    }
    HyperParameters hp;
    findParameterField("momentum-mean")->set(hp, json["momentum-mean"].toString("none").toStdString(), path.toStdString() + ": line 2: \"momentum-mean\"");
    findParameterField("bias")->set(hp, json["bias"].toString("own").toStdString(), path.toStdString() + ": line 2: \"bias\"");
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
}

void SnapshotFileReader::fail(const std::string& what) const {
    throw InputError(file_.fileName().toStdString() + ": record " + std::to_string(records_ + 1) + " (byte " +
                     std::to_string(recordOffset_) + "): " + what);
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
    if (error.error != QJsonParseError::NoError) fail("expected a JSON record line (" + error.errorString().toStdString() + ")");

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
        if (meanCount < 0 || meanCount > rows * cols) fail("\"neuron_means\"[" + std::to_string(l) + "]: expected 0.." + std::to_string(rows * cols));
        expected += (qint64(present.size()) * rows * cols + meanCount) * qint64(sizeof(float));
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
        snapshot.layers.push_back(std::move(layer));
    }
    ++records_;
    return snapshot;
}

std::vector<Snapshot> readSnapshotFile(const QString& path, int run) {
    SnapshotFileReader reader(path, run);
    std::vector<Snapshot> snapshots;
    while (std::optional<Snapshot> snapshot = reader.next()) snapshots.push_back(std::move(*snapshot));
    return snapshots;
}

}  // namespace ml
