#include "cli/ShellWords.h"

#include "InputError.h"

namespace ml {

namespace {

bool isControl(QChar c) { return c.unicode() < 0x20 || c.unicode() == 0x7f; }

}  // namespace

QString shellWord(const QString& text, const std::string& what) {
    for (const QChar c : text)
        if (isControl(c))
            throw InputError(what + ": holds a line break or another control character (U+" +
                             QString::number(c.unicode(), 16).rightJustified(4, '0').toUpper().toStdString() +
                             "), which no command line or script line can carry; expected a name without one");
    QString quoted = text;
    quoted.replace("'", "'\\''");
    return "'" + quoted + "'";
}

QString shellComment(const QString& text) {
    QString escaped;
    for (const QChar c : text) {
        if (c == '\n') escaped += "\\n";
        else if (c == '\r') escaped += "\\r";
        else if (c == '\t') escaped += "\\t";
        else if (isControl(c)) escaped += "\\x" + QString::number(c.unicode(), 16).rightJustified(2, '0');
        else escaped += c;
    }
    return escaped;
}

}  // namespace ml
