#include "cli/CommandLine.h"

#include "InputError.h"
#include "cli/Cli.h"

#include <QRegularExpression>

#include <iostream>
#include <string>

namespace ml {

namespace {

QStringList commandArguments(const QStringList& arguments) {
    QStringList rest = arguments;
    rest.removeAt(1);  // the command name; the parser expects the program name first
    return rest;
}

}  // namespace

int parseCommandLine(QCommandLineParser& parser, const QStringList& arguments, const char* description,
                     int positionals) {
    parser.setApplicationDescription(description);
    const QCommandLineOption help({"h", "help"}, "Show this help.");
    parser.addOption(help);
    if (!parser.parse(commandArguments(arguments))) {
        std::cerr << "momentum-lab-cli: " << parser.errorText().toStdString() << "\n";
        return kExitBadInput;
    }
    // An option given twice would silently take its last value: refused, with both values.
    QStringList seen;
    for (const QString& name : parser.optionNames()) {
        if (!seen.contains(name)) {
            seen << name;
            continue;
        }
        const QStringList values = parser.values(name);
        std::cerr << "momentum-lab-cli: " << (name.size() == 1 ? "-" : "--") << name.toStdString() << ": given twice"
                  << (values.isEmpty() ? std::string() : " ('" + values.join("', '").toStdString() + "')")
                  << "; expected it once\n";
        return kExitBadInput;
    }
    if (parser.isSet(help)) {
        // The parser names the program only; the command belongs in the usage line too.
        QString text = parser.helpText();
        text.replace(QRegularExpression("^Usage: \\S+"), "Usage: momentum-lab-cli " + arguments.value(1));
        std::cout << text.toStdString();
        return kExitOk;
    }
    if (parser.positionalArguments().size() > positionals) {
        std::cerr << "momentum-lab-cli: unexpected argument '"
                  << parser.positionalArguments().value(positionals).toStdString() << "'\n";
        return kExitBadInput;
    }
    if (parser.positionalArguments().size() < positionals) {
        std::cerr << "momentum-lab-cli: missing argument; see momentum-lab-cli " << arguments.value(1).toStdString()
                  << " --help\n";
        return kExitBadInput;
    }
    return -1;
}

}  // namespace ml
