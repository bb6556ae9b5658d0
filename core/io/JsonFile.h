#pragma once
// The one JSON loader: every JSON file of the project (experiments, config.json, weights) is read
// and parsed here, so parse errors read alike: "FILE:LINE:COLUMN: invalid JSON: REASON".
#include <QByteArray>
#include <QJsonObject>
#include <QString>

namespace ml {

// Parses `json` (read from `source`, a path or a name) as one JSON object. Throws InputError
// naming the source and the line and column of a syntax error (Qt points just past the culprit),
// or of a key given twice in one object (which a reader would silently resolve to one of them).
QJsonObject parseJsonObject(const QByteArray& json, const QString& source);

// Reads and parses a file (or a Qt resource). Throws InputError naming the path.
QJsonObject readJsonObject(const QString& path);

}  // namespace ml
