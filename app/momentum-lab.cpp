// momentum-lab: the desktop app. Usage: momentum-lab [RUN_DIR | STUDY_DIR | --follow RUN_DIR]
// (RUN_DIR: a folder written by `momentum-lab-cli train --out DIR`, opened for viewing;
// STUDY_DIR: one written by `momentum-lab-cli study STUDY.json --out DIR`, opened in a study window;
// --follow RUN_DIR: a run folder still being written, shown as it grows until it is finished).
// --help and --version answer without a display: they are handled before the QApplication exists.
#include "LargeBlocks.h"
#include "MainWindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QIcon>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace {

constexpr int kExitBadInput = 2;  // as momentum-lab-cli (docs/dev/packaging.md, the man pages)

void addOptions(QCommandLineParser& parser) {
    parser.setApplicationDescription(
        "Momentum Lab: compare neural-network optimizers and watch momentum at work, step by step.\n"
        "Opens RUN_DIR (written by `momentum-lab-cli train --out DIR`) or STUDY_DIR (written by\n"
        "`momentum-lab-cli study STUDY.json --out DIR`) when given. Standard Qt options (-platform,\n"
        "-style, ...) are accepted too.");
    parser.addOption({"follow",
                      "Open RUN_DIR and keep showing what another process appends to it (a training with "
                      "--out RUN_DIR, a recorded PyTorch run, a study trial), at most a second behind, until "
                      "every run in it wrote its summary.csv or File > Stop following.",
                      "RUN_DIR"});
    parser.addOption({{"h", "help"}, "Show this help."});  // addHelpOption's --help-all would need a display
    parser.addVersionOption();
    parser.addPositionalArgument("folder", "A run folder or a study folder to open.", "[RUN_DIR | STUDY_DIR]");
}

// Parses `arguments`; prints help, the version or the error. Returns -1 to go on, else the exit status.
int parseArguments(QCommandLineParser& parser, const QStringList& arguments) {
    addOptions(parser);
    if (!parser.parse(arguments)) {
        std::fprintf(stderr, "momentum-lab: %s\nRun 'momentum-lab --help' for the options.\n",
                     qPrintable(parser.errorText()));
        return kExitBadInput;
    }
    if (parser.isSet("help")) {
        std::fputs(qPrintable(parser.helpText()), stdout);
        return 0;
    }
    if (parser.isSet("version")) {
        std::printf("momentum-lab %s\n", MOMENTUM_LAB_VERSION);
        return 0;
    }
    if (parser.isSet("follow") && !parser.positionalArguments().isEmpty()) {
        std::fprintf(stderr, "momentum-lab: --follow RUN_DIR opens one folder; unexpected argument '%s'\n",
                     qPrintable(parser.positionalArguments().front()));
        return kExitBadInput;
    }
    if (parser.positionalArguments().size() > 1) {
        std::fprintf(stderr, "momentum-lab: unexpected argument '%s'\n",
                     qPrintable(parser.positionalArguments().at(1)));
        return kExitBadInput;
    }
    return -1;
}

bool asksForHelpOrVersion(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        for (const char* option : {"-h", "--help", "-v", "--version"})
            if (std::strcmp(argv[i], option) == 0) return true;
    return false;
}

}  // namespace

int main(int argc, char* argv[]) {
    QCoreApplication::setOrganizationName("MomentumLab");
    QCoreApplication::setApplicationName("momentum-lab");
    QCoreApplication::setApplicationVersion(MOMENTUM_LAB_VERSION);
    if (asksForHelpOrVersion(argc, argv)) {
        // No QApplication: it would need a display (QT_QPA_PLATFORM, DISPLAY) just to print text.
        const QCoreApplication app(argc, argv);
        QCommandLineParser parser;
        return std::max(parseArguments(parser, QCoreApplication::arguments()), 0);
    }

    QApplication app(argc, argv);  // takes out the Qt options (-platform, -style, ...)
    QCommandLineParser parser;
    if (const int status = parseArguments(parser, QApplication::arguments()); status >= 0) return status;
    ml::returnFreedMemoryPeriodically(&app);
    QApplication::setWindowIcon(QIcon(":/icons/momentum-lab.svg"));
    QApplication::setDesktopFileName(MOMENTUM_LAB_APP_ID);

    ml::MainWindow window;
    window.show();
    const QStringList folders = parser.positionalArguments();
    if (parser.isSet("follow")) window.openRunFolder(parser.value("follow"), /*follow=*/true);
    else if (!folders.isEmpty() && QFileInfo::exists(QDir(folders.front()).filePath("study.json")))
        window.openStudy(folders.front());
    else if (!folders.isEmpty()) window.openRunFolder(folders.front());
    return QApplication::exec();
}
