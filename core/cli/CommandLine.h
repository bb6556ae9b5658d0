#pragma once
// The option parsing every momentum-lab-cli command shares: help, errors and stray arguments are
// reported alike (exit status 2 for bad input, cli/Cli.h).
#include "instruments/InstrumentRequest.h"  // wholeOption, countOption: the whole-number flags

#include <QCommandLineParser>
#include <QStringList>

namespace ml {

// Parses `arguments` (the program name, the command, its options); prints help or errors itself.
// Accepts exactly `positionals` positional arguments (declare them with addPositionalArgument) and
// each option at most once (a repeated one would silently take its last value).
// Returns -1 to go on, else the exit status.
int parseCommandLine(QCommandLineParser& parser, const QStringList& arguments, const char* description,
                     int positionals = 0);

}  // namespace ml
