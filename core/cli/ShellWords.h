#pragma once
// The one place where text becomes part of a shell script or a command line: the commands
// `study --list` prints and the Slurm scripts `study --emit slurm` writes.
#include <QString>

#include <string>

namespace ml {

// `text` as one POSIX shell word in single quotes ('it'\''s'), which the shell takes literally:
// spaces, quotes, $(), backticks and globs stay text. A line break (or any other control
// character) is refused: a line-per-command runner or a script line cannot carry it safely.
// Throws InputError naming `what` (e.g. "--out /a/b") and what was expected.
QString shellWord(const QString& text, const std::string& what);

// Free text (a study's name) made safe for a `# ...` comment line: every control character becomes
// an escape (\n, \r, \t, \xNN), so the comment stays one line and nothing after it runs.
QString shellComment(const QString& text);

}  // namespace ml
