// momentum-lab-cli: the headless front end (see `momentum-lab-cli --help`).
#include "cli/Cli.h"

#include <QCoreApplication>

#ifdef MOMENTUM_LAB_HAS_EXPORT
#include "export/ExportCommand.h"

#include <QApplication>
#endif

int main(int argc, char** argv) {
#ifdef MOMENTUM_LAB_HAS_EXPORT
    if (argc > 1 && QByteArrayView(argv[1]) == "export") {
        // Plots are rendered by the desktop app's widgets, without a display.
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
        QApplication app(argc, argv);
        return ml::runExportCommand(app.arguments().mid(2));
    }
#endif
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName("momentum-lab-cli");
    return ml::runCli(app.arguments());
}
