#pragma once
// `momentum-lab-cli completion bash` (not listed in --help; the build runs it to write the installed
// completion file, so the file cannot drift from the program): a bash completion script for the
// commands of `commands`, each command's options as its --help lists them, and the values of
// --optimizer (the optimizer catalog, comma lists too), --data (the data sets) and --preset.
#include "cli/CommandTable.h"

#include <string>

namespace ml {

// Runs `executable COMMAND --help` for every command of the table to read its options.
// Throws std::runtime_error when one of them fails.
std::string bashCompletion(const CommandTable& commands, const QString& executable);

}  // namespace ml
