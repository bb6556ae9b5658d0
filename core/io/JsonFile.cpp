#include "io/JsonFile.h"

#include "InputError.h"
#include "io/Files.h"

#include <QJsonDocument>
#include <QJsonParseError>

namespace ml {

QJsonObject parseJsonObject(const QByteArray& json, const QString& source) {
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError) {
        // Qt reports a byte offset; people look for a line and a column.
        const QByteArrayView before = QByteArrayView(json).first(std::min<qsizetype>(error.offset, json.size()));
        const qsizetype line = before.count('\n') + 1;
        const qsizetype column = before.size() - (before.lastIndexOf('\n') + 1) + 1;
        throw InputError(source.toStdString() + ":" + std::to_string(line) + ":" + std::to_string(column) +
                         ": invalid JSON: " + error.errorString().toStdString());
    }
    if (!document.isObject()) throw InputError(source.toStdString() + ": expected a JSON object { ... }");
    return document.object();
}

QJsonObject readJsonObject(const QString& path) { return parseJsonObject(readFileBytes(path), path); }

}  // namespace ml
