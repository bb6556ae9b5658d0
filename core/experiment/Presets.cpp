#include "experiment/Presets.h"

#include "InputError.h"
#include "experiment/ExperimentJson.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>

namespace ml {

const std::vector<Preset>& presets() {
    static const std::vector<Preset> loaded = [] {
        std::vector<Preset> list;
        const QDir dir(":/experiments");
        // In the order of their numbers: "9-fit-sine" before "10-xor".
        QStringList names = dir.entryList({"*.json"}, QDir::Files, QDir::Name);
        std::stable_sort(names.begin(), names.end(), [](const QString& a, const QString& b) {
            return a.section('-', 0, 0).toInt() < b.section('-', 0, 0).toInt();
        });
        for (const QString& name : names) {
            const QString file = dir.filePath(name);
            Experiment experiment = loadExperiment(file);
            const QString id =
                QFileInfo(name).completeBaseName().section('-', 1);  // "1-seed-diagram" -> "seed-diagram"
            list.push_back({id.toStdString(), experiment.name, file, std::move(experiment)});
        }
        return list;
    }();
    return loaded;
}

const Preset& findPreset(const std::string& name) {
    std::string known;
    for (const Preset& preset : presets()) {
        if (name == preset.id || QString::fromStdString(name) == QFileInfo(preset.file).completeBaseName())
            return preset;
        known += (known.empty() ? "" : ", ") + preset.id;
    }
    throw InputError("--preset: unknown '" + name + "'; expected one of " + known);
}

}  // namespace ml
