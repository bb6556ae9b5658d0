#pragma once
// What the desktop app remembers between sessions (QSettings "MomentumLab/momentum-lab"):
// window geometry and dock layout, the last experiment (as its JSON), the last folder used in a
// file dialog, the last figure size, whether trainings are kept as run folders and whether the
// diagram draws the neurons' functions.
#include "export/FigureOptions.h"
#include "experiment/Experiment.h"

#include <QByteArray>
#include <QString>

#include <optional>

namespace ml {

class AppSettings {
public:
    static void saveLayout(const QByteArray& geometry, const QByteArray& state);
    static QByteArray geometry();
    static QByteArray windowState();

    static void saveExperiment(const Experiment& experiment);
    // nullopt when none was saved or it no longer parses (e.g. an optimizer was renamed).
    static std::optional<Experiment> lastExperiment();

    static QString lastDirectory();
    static void setLastDirectory(const QString& directory);
    // Where the last figure, CSV or report was exported ("" before the first export).
    static QString lastExportDirectory();
    static void setLastExportDirectory(const QString& directory);

    static FigureOptions figureOptions();
    static void saveFigureOptions(const FigureOptions& options);

    // Whether each training the app runs is also written as a run folder (default: yes), so that
    // `momentum-lab-cli export`, `aggregate` and File > Open work on what was watched.
    static bool keepRunFolders();
    static void setKeepRunFolders(bool keep);
    // Whether the network diagram draws each neuron's function over the inputs (default: no).
    static bool diagramNeuronFunctions();
    static void setDiagramNeuronFunctions(bool shown);
    // Where: $MOMENTUM_LAB_RUNS_DIR when set, else the user's data location + "/runs".
    static QString runsFolder();
    // runsFolder() while keepRunFolders(), else "" (TrainingSession::setRunsFolder's argument).
    static QString liveRunsFolder();
};

// The experiment the app opens with: the preset on toy:sine (the seed's 1-2-2-1 diagram
// experiment), else the first preset, else a one-run default.
Experiment defaultExperiment();

}  // namespace ml
