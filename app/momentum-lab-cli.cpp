// momentum-lab-cli: the headless front end (see `momentum-lab-cli --help`). The core's commands,
// plus `export`, which renders plots with the desktop app's widgets (the ui library).
#include "BashCompletion.h"
#include "command/ExportCommand.h"
#include "cli/Cli.h"

#include <QApplication>

#include <cstring>
#include <exception>
#include <iostream>

namespace {

// Widgets need a QApplication; without a display they render on the offscreen platform.
std::unique_ptr<QCoreApplication> offscreenWidgetsApplication(int& argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    return std::make_unique<QApplication>(argc, argv);
}

}  // namespace

int main(int argc, char** argv) {
    ml::CommandTable commands = ml::coreCommands();
    commands.add({"export",
                  "render a run folder's plots (PNG, PDF, SVG, pgfplots) headlessly, and a study's with --study",
                  [](const QStringList& arguments) { return ml::runExportCommand(arguments.mid(2)); },
                  offscreenWidgetsApplication});
    // Not in the command list: the build writes the installed bash completion with it (app/BashCompletion.h).
    if (argc == 3 && std::strcmp(argv[1], "completion") == 0 && std::strcmp(argv[2], "bash") == 0) {
        const QCoreApplication app(argc, argv);
        try {
            std::cout << ml::bashCompletion(commands, QCoreApplication::applicationFilePath());
        } catch (const std::exception& error) {
            std::cerr << "momentum-lab-cli: completion: " << error.what() << "\n";
            return ml::kExitFailure;
        }
        return ml::kExitOk;
    }
    return ml::runMain(argc, argv, commands);
}
