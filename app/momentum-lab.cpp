// momentum-lab: the desktop app. Usage: momentum-lab [RUN_DIR | STUDY_DIR]
// (RUN_DIR: a folder written by `momentum-lab-cli train --out DIR`, opened for viewing;
// STUDY_DIR: one written by `momentum-lab-cli study STUDY.json --out DIR`, opened in a study window).
#include "LargeBlocks.h"
#include "MainWindow.h"

#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QIcon>

int main(int argc, char* argv[]) {
    QApplication app(argc, argv);
    ml::returnFreedMemoryPeriodically(&app);
    QApplication::setOrganizationName("MomentumLab");
    QApplication::setApplicationName("momentum-lab");
    QApplication::setWindowIcon(QIcon(":/icons/momentum-lab.svg"));
    QApplication::setDesktopFileName("momentum-lab");

    ml::MainWindow window;
    window.show();
    const QStringList arguments = QApplication::arguments();
    if (arguments.size() > 1 && QFileInfo::exists(QDir(arguments.at(1)).filePath("study.json")))
        window.openStudy(arguments.at(1));
    else if (arguments.size() > 1)
        window.openRunFolder(arguments.at(1));
    return QApplication::exec();
}
