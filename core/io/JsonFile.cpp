#include "io/JsonFile.h"

#include "InputError.h"
#include "io/Files.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>

#include <map>
#include <vector>

namespace ml {

namespace {

// "FILE:LINE:COLUMN" of byte `offset` of `json` (1-based line and column).
std::string position(const QByteArray& json, const QString& source, qsizetype offset) {
    const QByteArrayView before = QByteArrayView(json).first(std::min<qsizetype>(offset, json.size()));
    const qsizetype line = before.count('\n') + 1;
    const qsizetype column = before.size() - (before.lastIndexOf('\n') + 1) + 1;
    return source.toStdString() + ":" + std::to_string(line) + ":" + std::to_string(column);
}

// A key given twice in one object: Qt (like most readers) keeps one of the two silently, so what the
// file says would depend on the reader. Run on text Qt has already parsed, so it is valid JSON.
void refuseDuplicateKeys(const QByteArray& json, const QString& source) {
    struct Container {
        bool object = false;
        bool expectKey = false;
        std::map<QString, qsizetype> keys;  // key -> its offset
    };
    std::vector<Container> open;
    for (qsizetype i = 0; i < json.size(); ++i) {
        const char c = json[i];
        if (c == '{' || c == '[') open.push_back({c == '{', c == '{', {}});
        else if (c == '}' || c == ']') open.pop_back();
        else if (c == ',' && !open.empty() && open.back().object) open.back().expectKey = true;
        else if (c == '"') {
            const qsizetype start = i;
            for (++i; json[i] != '"'; ++i)
                if (json[i] == '\\') ++i;
            if (open.empty() || !open.back().expectKey) continue;  // a value
            open.back().expectKey = false;
            const QByteArray raw = json.mid(start, i - start + 1);
            // Escapes decoded the way the parser decodes them ("st\u0065ps" is "steps").
            const QString key = raw.contains('\\') ? QJsonDocument::fromJson("[" + raw + "]").array().at(0).toString()
                                                   : QString::fromUtf8(raw.mid(1, raw.size() - 2));
            const auto [first, inserted] = open.back().keys.emplace(key, start);
            if (!inserted)
                throw InputError(position(json, source, start) + ": key '" + key.toStdString() +
                                 "' appears twice in one object (first at " + position(json, source, first->second) +
                                 "); expected each key once");
        }
    }
}

}  // namespace

QJsonObject parseJsonObject(const QByteArray& json, const QString& source) {
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError) {
        // Qt reports a byte offset; people look for a line and a column.
        throw InputError(position(json, source, error.offset) + ": invalid JSON: " + error.errorString().toStdString());
    }
    if (!document.isObject()) throw InputError(source.toStdString() + ": expected a JSON object { ... }");
    refuseDuplicateKeys(json, source);
    return document.object();
}

QJsonObject readJsonObject(const QString& path) { return parseJsonObject(readFileBytes(path), path); }

}  // namespace ml
