#include "experiment/ExperimentJson.h"

#include "InputError.h"
#include "io/JsonFile.h"
#include "optim/OptimizerCatalog.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>

#include <cmath>
#include <utility>

namespace ml {

namespace {

// Runs `parse`, prefixing an InputError's message with `where` (the file, the run): the shared
// parsers (activation, loss, optimizer names) know the field but not the file it came from.
template <typename Parse>
decltype(auto) named(const std::string& where, Parse&& parse) {
    try {
        return parse();
    } catch (const InputError& error) {
        throw InputError(where + ": " + error.what());
    }
}

const char* const kExperimentKeys[] = {"name",
                                       "network",
                                       "activation",
                                       "loss",
                                       "data",
                                       "seed",
                                       "batch",
                                       "steps",
                                       "epochs",
                                       "eval-every",
                                       "holdout",
                                       "init",
                                       "runs",
                                       "forked-from",
                                       "diagnostics-every",
                                       "curvature-every",
                                       "gradient-snr",
                                       "hessian-spectrum",
                                       "recorded-layers"};

bool isExperimentKey(const QString& key) {
    for (const char* known : kExperimentKeys)
        if (key == QLatin1String(known)) return true;
    return false;
}

QJsonValue parameterToJson(const ParameterField& field, const HyperParameters& hp) {
    switch (field.kind) {
    case ParameterField::Kind::Real: return field.getReal(hp);
    case ParameterField::Kind::Flag: return field.getReal(hp) != 0.0;
    case ParameterField::Kind::Choice: return QString::fromStdString(field.get(hp));
    }
    return {};
}

// Sets one hyper-parameter from its JSON value; errors name `context` (file and field).
void parameterFromJson(const ParameterField& field, const QJsonValue& value, HyperParameters& hp,
                       const std::string& context) {
    switch (field.kind) {
    case ParameterField::Kind::Real:
        if (!value.isDouble()) throw InputError(context + ": expected " + field.rangeText());
        field.setReal(hp, value.toDouble(), context);
        return;
    case ParameterField::Kind::Flag:
        if (!value.isBool()) throw InputError(context + ": expected true or false");
        field.setReal(hp, value.toBool() ? 1.0 : 0.0, context);
        return;
    case ParameterField::Kind::Choice:
        if (!value.isString()) throw InputError(context + ": expected " + field.rangeText());
        field.set(hp, value.toString().toStdString(), context);
        return;
    }
}

std::string requireString(const QJsonObject& json, const char* key, const std::string& fallback,
                          const std::string& source) {
    const QJsonValue value = json.value(QLatin1String(key));
    if (value.isUndefined()) return fallback;
    if (!value.isString()) throw InputError(source + ": " + key + ": expected a string");
    return value.toString().toStdString();
}

long requireCount(const QJsonObject& json, const char* key, long fallback, const std::string& source) {
    const QJsonValue value = json.value(QLatin1String(key));
    if (value.isUndefined()) return fallback;
    const double number = value.toDouble(-1.0);
    // Range first: casting a double outside long's range is undefined.
    if (!value.isDouble() || !(number >= 0 && number <= static_cast<double>(kMaxCount)) || std::floor(number) != number)
        throw InputError(source + ": " + key + ": expected a whole number from 0 to " + std::to_string(kMaxCount));
    return static_cast<long>(number);
}

}  // namespace

QJsonValue seedToJson(std::uint64_t seed) {
    if (seed <= kLargestExactJsonInteger) return static_cast<double>(seed);
    return QString::number(seed);
}

std::uint64_t seedFromJson(const QJsonValue& value, const std::string& context) {
    const auto refuse = [&] {
        return InputError(context +
                          ": expected a whole number from 0 to 18446744073709551615 (above 2^53 "
                          "as a string, e.g. \"18446744073709551615\")");
    };
    if (value.isString()) {
        bool ok = false;
        const QString text = value.toString();
        const qulonglong seed = text.toULongLong(&ok);
        if (!ok || text.startsWith('+') || text.startsWith('-') || text.trimmed() != text) throw refuse();
        return seed;
    }
    const double number = value.toDouble(-1.0);
    if (!value.isDouble() || number < 0 || number > static_cast<double>(kLargestExactJsonInteger) ||
        number != std::floor(number))
        throw refuse();
    return static_cast<std::uint64_t>(number);
}

namespace {

// Run-level hyper-parameters: catalog defaults, then the experiment's shared values, then the
// run's own. Only keys the optimizer reads are taken; others are refused in a run object.
RunSpec runFromJson(const QJsonObject& run, const QJsonObject& shared, const std::string& context) {
    RunSpec spec;
    const QJsonValue optimizer = run.value("optimizer");
    if (!optimizer.isString()) throw InputError(context + ".optimizer: expected an optimizer name");
    spec.optimizer = optimizer.toString().toStdString();
    const OptimizerInfo& info = named(context, [&]() -> const OptimizerInfo& { return optimizerInfo(spec.optimizer); });
    spec.hp = info.defaults;
    spec.label = spec.optimizer;
    for (const std::string& key : info.parameters) {
        const QString qkey = QString::fromStdString(key);
        if (shared.contains(qkey))
            parameterFromJson(*findParameterField(key), shared.value(qkey), spec.hp, context + "." + key);
    }
    for (auto it = run.begin(); it != run.end(); ++it) {
        const std::string key = it.key().toStdString();
        if (key == "optimizer") continue;
        if (key == "label") {
            if (!it.value().isString() || it.value().toString().isEmpty())
                throw InputError(context + ".label: expected a non-empty string");
            spec.label = it.value().toString().toStdString();
            continue;
        }
        if (!info.uses(key))
            throw InputError(context + "." + key + ": " + spec.optimizer + " has no hyper-parameter '" + key + "'");
        parameterFromJson(*findParameterField(key), it.value(), spec.hp, context + "." + key);
    }
    validateHyperParameters(spec.optimizer, spec.hp, context);
    requireFloat32HyperParameters(spec.optimizer, spec.hp, context);
    return spec;
}

}  // namespace

QJsonObject toJson(const RunSpec& run) {
    QJsonObject json;
    json["label"] = QString::fromStdString(run.label);
    json["optimizer"] = QString::fromStdString(run.optimizer);
    for (const std::string& key : optimizerInfo(run.optimizer).parameters)
        json[QString::fromStdString(key)] = parameterToJson(*findParameterField(key), run.hp);
    return json;
}

QJsonObject toJson(const Experiment& experiment) {
    QJsonObject json;
    json["name"] = QString::fromStdString(experiment.name);
    if (!experiment.recorded.asBlocks) json["network"] = QString::fromStdString(experiment.network.text());
    if (!experiment.recorded.empty()) json["recorded-layers"] = toJson(experiment.recorded);
    json["activation"] = QString::fromStdString(toString(experiment.network.activation));
    json["loss"] = QString::fromStdString(toString(experiment.network.loss));
    json["data"] = QString::fromStdString(experiment.data);
    json["seed"] = seedToJson(experiment.seed);
    json["batch"] = static_cast<double>(experiment.batchSize);
    json["steps"] = static_cast<double>(experiment.steps);
    json["epochs"] = static_cast<double>(experiment.epochs);
    json["eval-every"] = static_cast<double>(experiment.evalEvery);
    // Written only when set, so that the config.json of ordinary runs stays as it was.
    if (experiment.holdout != Holdout::None) json["holdout"] = QString::fromStdString(toString(experiment.holdout));
    if (experiment.diagnosticsEvery > 0) json["diagnostics-every"] = static_cast<double>(experiment.diagnosticsEvery);
    if (experiment.curvatureEvery > 0) json["curvature-every"] = static_cast<double>(experiment.curvatureEvery);
    if (!experiment.gradientSnr) json["gradient-snr"] = false;
    if (experiment.hessianSpectrum) json["hessian-spectrum"] = true;
    if (!experiment.initWeightsFile.empty()) json["init"] = QString::fromStdString(experiment.initWeightsFile);
    if (experiment.forkedFrom.valid()) {
        QJsonObject origin{{"run", QString::fromStdString(experiment.forkedFrom.run)},
                           {"optimizer", QString::fromStdString(experiment.forkedFrom.optimizer)},
                           {"step", static_cast<double>(experiment.forkedFrom.step)}};
        if (!experiment.forkedFrom.folder.empty())
            origin["folder"] = QString::fromStdString(experiment.forkedFrom.folder);
        json["forked-from"] = origin;
    }
    QJsonArray runs;
    for (const RunSpec& run : experiment.runs) runs.append(toJson(run));
    // No runs yet (the CLI's --optimizer supplies them): no key, as read; "runs": [] is refused.
    if (!runs.isEmpty()) json["runs"] = runs;
    return json;
}

Experiment experimentFromJson(const QJsonObject& json, const std::string& source) {
    Experiment experiment;
    QJsonObject shared;  // hyper-parameters given for all runs
    for (auto it = json.begin(); it != json.end(); ++it) {
        if (isExperimentKey(it.key())) continue;
        if (!findParameterField(it.key().toStdString()))
            throw InputError(source + ": unknown key '" + it.key().toStdString() + "'");
        shared.insert(it.key(), it.value());
    }
    experiment.name = requireString(json, "name", experiment.name, source);
    experiment.network.setLayers(requireString(json, "network", experiment.network.text(), source),
                                 source + ": network");
    if (json.contains("recorded-layers")) {
        experiment.recorded = recordedModelFromJson(json.value("recorded-layers"), source);
        // Without a network the layers are blocks; with one, they must be its parameter layers.
        experiment.recorded.asBlocks = !json.contains("network");
        if (!experiment.recorded.asBlocks) {
            const std::vector<std::pair<long, long>> recorded = experiment.recorded.matrixShapes();
            const Network network(experiment.network);
            const Parameters& layers = network.parameters();
            bool same = recorded.size() == layers.size();
            for (std::size_t l = 0; same && l < layers.size(); ++l)
                same = recorded[l] == std::pair<long, long>(layers[l].rows(), layers[l].cols());
            if (!same)
                throw InputError(source + ": recorded-layers: not the parameter layers of network " +
                                 experiment.network.text() + "; leave \"network\" out to show them as blocks");
        }
    }
    experiment.network.activation =
        named(source, [&] { return activationFromString(requireString(json, "activation", "tanh", source)); });
    experiment.network.loss = named(source, [&] { return lossFromString(requireString(json, "loss", "mse", source)); });
    experiment.data = requireString(json, "data", experiment.data, source);
    if (json.contains("seed")) experiment.seed = seedFromJson(json.value("seed"), source + ": seed");
    experiment.batchSize = requireCount(json, "batch", 0, source);
    experiment.steps = requireCount(json, "steps", 0, source);
    experiment.epochs = requireCount(json, "epochs", 0, source);
    experiment.evalEvery = requireCount(json, "eval-every", 0, source);
    experiment.holdout = holdoutFromString(requireString(json, "holdout", "none", source), source + ": holdout");
    experiment.initWeightsFile = requireString(json, "init", "", source);
    if (json.contains("forked-from")) {
        const std::string where = source + ": forked-from";
        if (!json.value("forked-from").isObject())
            throw InputError(where + ": expected an object {\"run\", \"optimizer\", \"step\", \"folder\"}");
        const QJsonObject origin = json.value("forked-from").toObject();
        for (auto it = origin.begin(); it != origin.end(); ++it)
            if (it.key() != "run" && it.key() != "optimizer" && it.key() != "step" && it.key() != "folder")
                throw InputError(where + ": unknown key '" + it.key().toStdString() + "'");
        experiment.forkedFrom.run = requireString(origin, "run", "", where);
        experiment.forkedFrom.optimizer = requireString(origin, "optimizer", "", where);
        experiment.forkedFrom.step = requireCount(origin, "step", 0, where);
        experiment.forkedFrom.folder = requireString(origin, "folder", "", where);
        if (experiment.forkedFrom.step <= 0) throw InputError(where + ": step: expected a step > 0");
    }
    experiment.diagnosticsEvery = requireCount(json, "diagnostics-every", 0, source);
    experiment.curvatureEvery = requireCount(json, "curvature-every", 0, source);
    for (const auto& [key, flag] : {std::pair{"gradient-snr", &experiment.gradientSnr},
                                    std::pair{"hessian-spectrum", &experiment.hessianSpectrum}}) {
        const QJsonValue value = json.value(key);
        if (value.isUndefined()) continue;
        if (!value.isBool()) throw InputError(source + ": " + key + ": expected true or false");
        *flag = value.toBool();
    }

    const QJsonValue runs = json.value("runs");
    if (!runs.isUndefined() && !runs.isArray()) throw InputError(source + ": runs: expected an array of runs");
    const QJsonArray runArray = runs.toArray();
    if (runs.isArray() && runArray.isEmpty())
        throw InputError(source + ": runs: expected at least one run, e.g. [{\"optimizer\":\"momentum\"}]");
    for (qsizetype i = 0; i < runArray.size(); ++i) {
        const std::string context = source + ": runs[" + std::to_string(i) + "]";
        if (!runArray[i].isObject()) throw InputError(context + ": expected an object with an \"optimizer\"");
        experiment.runs.push_back(runFromJson(runArray[i].toObject(), shared, context));
    }
    return experiment;
}

QJsonObject readExperimentJson(const QString& path) {
    QJsonObject json = readJsonObject(path);
    // A relative init file is relative to the experiment file (config.json names weights_initial.json).
    const QString init = json.value("init").toString();
    if (!init.isEmpty() && QFileInfo(init).isRelative()) json["init"] = QFileInfo(path).dir().absoluteFilePath(init);
    return json;
}

Experiment loadExperiment(const QString& path) {
    return experimentFromJson(readExperimentJson(path), path.toStdString());
}

}  // namespace ml
