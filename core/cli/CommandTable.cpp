#include "cli/CommandTable.h"

#include "InputError.h"
#include "cli/Cli.h"

#include <cstdio>
#include <iostream>

namespace ml {

void CommandTable::add(Command command) { commands_.push_back(std::move(command)); }

const Command* CommandTable::find(const QString& name) const {
    for (const Command& command : commands_)
        if (command.name == name) return &command;
    return nullptr;
}

std::string CommandTable::usage() const {
    std::string text = "Usage: momentum-lab-cli COMMAND [options]\nCommands:\n";
    for (const Command& command : commands_)
        text += "  " + command.name.leftJustified(13).toStdString() + " " + command.help.toStdString() + "\n";
    return text +
           "Run 'momentum-lab-cli COMMAND --help' for a command's options.\n"
           "Options: -h, --help  this list; --version  the version.\n"
           "Exit status: 0 done; 1 failure (e.g. a file cannot be written); 2 bad input; 3 a run\n"
           "diverged; 128 + N when signal N stopped it (130 SIGINT, 143 SIGTERM, 129 SIGHUP).\n";
}

int CommandTable::run(const QStringList& arguments) const {
    const QString name = arguments.value(1);
    if (name == "-h" || name == "--help" || name == "help") {
        std::cout << usage();
        return kExitOk;
    }
    if (name == "--version") {
        std::cout << "momentum-lab-cli " << MOMENTUM_LAB_VERSION << "\n";
        return kExitOk;
    }
    const Command* command = find(name);
    if (!command) {
        std::cerr << (name.isEmpty() ? "momentum-lab-cli: missing command\n"
                                     : "momentum-lab-cli: unknown command '" + name.toStdString() + "'\n")
                  << usage();
        return kExitBadInput;
    }
    try {
        return command->run(arguments);
    } catch (const InputError& error) {
        std::cerr << "momentum-lab-cli: " << error.what() << "\n";
        return kExitBadInput;
    } catch (const std::exception& error) {
        std::cerr << "momentum-lab-cli: error: " << error.what() << "\n";
        return kExitFailure;
    }
}

int runMain(int argc, char** argv, const CommandTable& commands) {
    const Command* command = argc > 1 ? commands.find(QString::fromLocal8Bit(argv[1])) : nullptr;
    const std::unique_ptr<QCoreApplication> app = command && command->makeApplication
                                                      ? command->makeApplication(argc, argv)
                                                      : std::make_unique<QCoreApplication>(argc, argv);
    QCoreApplication::setApplicationName("momentum-lab-cli");
    return commands.run(QCoreApplication::arguments());
}

}  // namespace ml
