#pragma once
// momentum-lab-cli's commands as a table: name, one-line help, handler and the Qt application the
// handler needs. The core library registers its commands (coreCommands(), cli/Cli.h); an executable adds the
// ones that live in other libraries (momentum-lab-cli adds `export` from the ui library), and
// `--help` lists whatever the table holds.
#include <QCoreApplication>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <vector>

namespace ml {

struct Command {
    QString name;
    QString help;  // one line for the command list
    // `arguments` as QCoreApplication::arguments(): the program name, the command name, its options.
    // Returns the exit status (Cli.h); InputError and other exceptions are reported by the table.
    std::function<int(const QStringList& arguments)> run;
    // Creates the application object the command runs in; empty: a QCoreApplication.
    std::function<std::unique_ptr<QCoreApplication>(int& argc, char** argv)> makeApplication;
};

class CommandTable {
public:
    void add(Command command);
    const Command* find(const QString& name) const;
    const std::vector<Command>& commands() const { return commands_; }
    // "Usage: ...", the commands with their help, and a pointer to COMMAND --help.
    std::string usage() const;
    // Runs the command named by arguments[1] in the current application; prints help and errors.
    // `--help` (-h, help) and `--version` (`momentum-lab-cli VERSION`) print to stdout and return 0.
    int run(const QStringList& arguments) const;

private:
    std::vector<Command> commands_;
};

// The executable's main(): creates the chosen command's application, then runs the command.
int runMain(int argc, char** argv, const CommandTable& commands);

}  // namespace ml
