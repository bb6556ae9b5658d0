#pragma once
// momentum-lab-cli's core commands (train, optimizers, import-mnist, the study commands, landscape; the
// table: cli/CommandTable.h).
// Exit status: 0 done, 1 failure (e.g. a file cannot be written), 2 bad input (the message names
// the flag, file or field), 3 a run diverged, 128 + N when signal N (SIGINT, SIGTERM, SIGHUP)
// stopped the training (its files are completed). `train --help` says the same.
#include "cli/CommandTable.h"

#include <QStringList>

namespace ml {

enum ExitStatus { kExitOk = 0, kExitFailure = 1, kExitBadInput = 2, kExitDiverged = 3, kExitSignalBase = 128 };

// train, optimizers, import-mnist, the study commands (cli/StudyCommands.h), landscape.
CommandTable coreCommands();

// `arguments` as QCoreApplication::arguments(): the program name first, then the command.
// Runs coreCommands() in the current application (the tests call it in-process).
int runCli(const QStringList& arguments);

}  // namespace ml
