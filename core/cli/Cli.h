#pragma once
// momentum-lab-cli's commands (train, optimizers, import-mnist). Returns the exit status:
// 0 done, 2 bad input (message names the flag, file or field), 3 a run diverged.
#include <QStringList>

namespace ml {

enum ExitStatus { kExitOk = 0, kExitFailure = 1, kExitBadInput = 2, kExitDiverged = 3 };

// `arguments` as QCoreApplication::arguments(): the program name first, then the command.
int runCli(const QStringList& arguments);

}  // namespace ml
