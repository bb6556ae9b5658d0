// momentum-lab: the desktop app. Usage: momentum-lab [RUN_DIR]
// (RUN_DIR: a folder written by `momentum-lab-cli train --out DIR`, opened for viewing).
#include "MainWindow.h"

#include <QApplication>
#include <QIcon>

int main(int argc, char* argv[]) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName("MomentumLab");
    QApplication::setApplicationName("momentum-lab");
    QApplication::setWindowIcon(QIcon(":/icons/momentum-lab.svg"));
    QApplication::setDesktopFileName("momentum-lab");

    ml::MainWindow window;
    window.show();
    const QStringList arguments = QApplication::arguments();
    if (arguments.size() > 1) window.openRunFolder(arguments.at(1));
    return QApplication::exec();
}
