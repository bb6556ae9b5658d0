#include "AppSettings.h"

#include <algorithm>

#include "experiment/ExperimentJson.h"
#include "experiment/Presets.h"

#include <QDir>
#include <QJsonDocument>
#include <QSettings>
#include <QStandardPaths>

#include <exception>

namespace ml {

namespace {
QSettings settings() { return QSettings("MomentumLab", "momentum-lab"); }
}  // namespace

void AppSettings::saveLayout(const QByteArray& geometry, const QByteArray& state) {
    QSettings s = settings();
    s.setValue("window/geometry", geometry);
    s.setValue("window/state", state);
}

QByteArray AppSettings::geometry() { return settings().value("window/geometry").toByteArray(); }
QByteArray AppSettings::windowState() { return settings().value("window/state").toByteArray(); }

void AppSettings::saveExperiment(const Experiment& experiment) {
    settings().setValue("experiment/last", QJsonDocument(toJson(experiment)).toJson(QJsonDocument::Compact));
}

std::optional<Experiment> AppSettings::lastExperiment() {
    const QByteArray json = settings().value("experiment/last").toByteArray();
    if (json.isEmpty()) return std::nullopt;
    const QJsonDocument document = QJsonDocument::fromJson(json);
    if (!document.isObject()) return std::nullopt;
    try {
        return experimentFromJson(document.object(), "settings");
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

QString AppSettings::lastDirectory() { return settings().value("files/lastDirectory", QDir::homePath()).toString(); }
void AppSettings::setLastDirectory(const QString& directory) { settings().setValue("files/lastDirectory", directory); }
QString AppSettings::lastExportDirectory() { return settings().value("files/lastExportDirectory").toString(); }
void AppSettings::setLastExportDirectory(const QString& directory) {
    settings().setValue("files/lastExportDirectory", directory);
}

FigureOptions AppSettings::figureOptions() {
    QSettings s = settings();
    FigureOptions options;
    options.width = s.value("export/width", options.width).toInt();
    options.height = s.value("export/height", options.height).toInt();
    options.dpi = s.value("export/dpi", options.dpi).toInt();
    options.unit =
        static_cast<LengthUnit>(std::clamp(s.value("export/unit", int(options.unit)).toInt(), 0, 2));  // px, cm, in
    return options;
}

void AppSettings::saveFigureOptions(const FigureOptions& options) {
    QSettings s = settings();
    s.setValue("export/width", options.width);
    s.setValue("export/height", options.height);
    s.setValue("export/dpi", options.dpi);
    s.setValue("export/unit", int(options.unit));
}

bool AppSettings::keepRunFolders() { return settings().value("training/keepRunFolders", true).toBool(); }
void AppSettings::setKeepRunFolders(bool keep) { settings().setValue("training/keepRunFolders", keep); }
bool AppSettings::diagramNeuronFunctions() { return settings().value("views/diagramNeuronFunctions", false).toBool(); }
void AppSettings::setDiagramNeuronFunctions(bool shown) { settings().setValue("views/diagramNeuronFunctions", shown); }

QString AppSettings::runsFolder() {
    if (const QString dir = qEnvironmentVariable("MOMENTUM_LAB_RUNS_DIR"); !dir.isEmpty()) return dir;
    return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).filePath("runs");
}

QString AppSettings::liveRunsFolder() { return keepRunFolders() ? runsFolder() : QString(); }

Experiment defaultExperiment() {
    for (const Preset& preset : presets())
        if (preset.experiment.data == "toy:sine") return preset.experiment;
    if (!presets().empty()) return presets().front().experiment;
    Experiment experiment;
    experiment.steps = 1000;
    experiment.runs.push_back({"momentum", "momentum", HyperParameters{}});
    return experiment;
}

}  // namespace ml
