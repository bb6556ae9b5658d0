#include "cli/ExperimentArguments.h"

#include "InputError.h"
#include "optim/OptimizerCatalog.h"
#include "experiment/ExperimentJson.h"
#include "experiment/Presets.h"
#include "runfolder/RunFolderLayout.h"

#include <QFileInfo>
#include <QJsonArray>

namespace ml {

namespace {

// Experiment-level flags whose values are whole numbers in the JSON form.
const char* const kCountFlags[] = {"batch", "steps", "epochs", "eval-every"};  // and --seed (64-bit)
const char* const kTextFlags[] = {"name", "network", "activation", "loss", "data"};

QJsonValue typedValue(const ParameterField& field, const QString& text, const std::string& context) {
    HyperParameters scratch;
    field.set(scratch, text.toStdString(), context);  // validates, with the flag in the message
    if (field.kind == ParameterField::Kind::Real) requireFloat32Value(field, field.getReal(scratch), context);
    switch (field.kind) {
    case ParameterField::Kind::Real: return field.getReal(scratch);
    case ParameterField::Kind::Flag: return field.getReal(scratch) != 0.0;
    case ParameterField::Kind::Choice: return text;
    }
    return {};
}

// csv:PATH and idx:DIR are stored with absolute paths so config.json works from anywhere.
QString absoluteDataSpec(const QString& spec) {
    for (const QLatin1StringView prefix : {QLatin1StringView("csv:"), QLatin1StringView("idx:")})
        if (spec.startsWith(prefix)) return prefix + QFileInfo(spec.mid(prefix.size())).absoluteFilePath();
    return spec;
}

// A repeated label is renamed (momentum, momentum-2, ...); when the new name is one given to
// another run, the folder-name check would blame a label the user never wrote. Say which was renamed.
void refuseRenamesOntoGivenLabels(const std::vector<std::string>& given, const std::vector<RunSpec>& runs) {
    for (std::size_t i = 0; i < runs.size(); ++i) {
        if (runs[i].label == given[i]) continue;
        for (std::size_t j = 0; j < runs.size(); ++j)
            if (j != i && runFileName(runs[j].label).toCaseFolded() == runFileName(runs[i].label).toCaseFolded())
                throw InputError("runs[" + std::to_string(i) + "].label: '" + given[i] +
                                 "' is given more than once, so runs[" + std::to_string(i) + "] was renamed '" +
                                 runs[i].label + "', which is runs[" + std::to_string(j) +
                                 "]'s label too; give the runs distinct labels (e.g. NAME:label=TEXT)");
    }
}

}  // namespace

QJsonArray parseOptimizerList(const QString& text) {
    QJsonArray runs;
    for (const QString& item : text.split(',', Qt::SkipEmptyParts)) {
        const QStringList parts = item.trimmed().split(':');
        const std::string name = parts.front().toStdString();
        const std::string context = "--optimizer " + item.trimmed().toStdString();
        const OptimizerInfo& info = optimizerInfo(name);  // unknown names fail here, listing the known ones
        QJsonObject run{{"optimizer", parts.front()}};
        for (qsizetype i = 1; i < parts.size(); ++i) {
            const QString key = parts[i].section('=', 0, 0);
            const QString value = parts[i].section('=', 1);
            if (!parts[i].contains('='))
                throw InputError(context + ": '" + parts[i].toStdString() + "' should be KEY=VALUE, e.g. lr=0.001");
            if (run.contains(key))  // the later one would silently win
                throw InputError(context + ": " + key.toStdString() + " is given twice; expected each key once");
            if (key == "label") {
                run["label"] = value;
                continue;
            }
            if (!info.uses(key.toStdString()))
                throw InputError(context + ": " + name + " has no hyper-parameter '" + key.toStdString() + "'");
            run[key] = typedValue(*findParameterField(key.toStdString()), value, context + " " + key.toStdString());
        }
        runs.append(run);
    }
    if (runs.isEmpty()) throw InputError("--optimizer: expected NAME[,NAME...], e.g. momentum,neuron-mean");
    return runs;
}

ExperimentArguments::ExperimentArguments() {
    options_ = {
        {"config", "Experiment JSON file (e.g. a run's config.json); flags override it.", "EXP.json"},
        {"preset",
         "A bundled experiment: seed-diagram, seed2-iris, mnist-seed, family-digits, mnist-cnn, "
         "instruments-sine, instruments-iris, instruments-digits.",
         "NAME"},
        {"name", "Experiment name.", "TEXT"},
        {"network",
         "Layers, e.g. 1-2-2-1, 784-128-10, or 1x28x28-conv8k5-pool2-conv16k5-pool2-64-10 (input CxHxW, "
         "conv{C}k{K}[s{S}][p{P}], pool{K}, avgpool{K}).",
         "LAYERS"},
        {"activation", "Hidden activation: identity, sigmoid, tanh, relu.", "NAME"},
        {"loss", "mse or cross-entropy.", "NAME"},
        {"data", "toy:sine|circle|xor|gauss|spiral, iris, digits, mnist, fashion-mnist, csv:PATH, idx:DIR[:classes=N].",
         "SPEC"},
        {"optimizer", "Runs compared in lockstep: NAME[:KEY=VALUE...][,NAME...].", "LIST"},
        {"batch", "Batch size (0 = full batch).", "N"},
        {"steps", "Number of steps.", "N"},
        {"epochs", "Number of epochs.", "N"},
        {"seed", "Seed for initialisation, shuffling and toy data.", "N"},
        {"eval-every", "Also evaluate every N steps (always at each epoch end).", "N"},
        {"init", "Initial weights JSON (checked against --network).", "W.json"},
    };
    for (const ParameterField& field : parameterFields()) {
        if (field.kind == ParameterField::Kind::Flag)
            options_.append(QCommandLineOption(QString::fromStdString(field.key), QString::fromStdString(field.help)));
        else
            options_.append(QCommandLineOption(QString::fromStdString(field.key),
                                               QString::fromStdString(field.help + " (" + field.rangeText() + ")"),
                                               "X"));
    }
}

void ExperimentArguments::addOptions(QCommandLineParser& parser) const { parser.addOptions(options_); }

QJsonObject ExperimentArguments::baseJson(const QCommandLineParser& parser, const QString& forkConfig,
                                          std::string& source) const {
    if (!forkConfig.isEmpty()) {
        if (parser.isSet("config") || parser.isSet("preset"))
            throw InputError("--fork-from: the experiment is the forked run's; give no --config or --preset");
        source = forkConfig.toStdString();
        return readExperimentJson(forkConfig);
    }
    if (parser.isSet("config") && parser.isSet("preset"))
        throw InputError("--config and --preset: give only one of them");
    if (parser.isSet("config")) {
        source = parser.value("config").toStdString();
        return readExperimentJson(parser.value("config"));
    }
    if (parser.isSet("preset")) {
        source = "preset " + parser.value("preset").toStdString();
        return readExperimentJson(findPreset(parser.value("preset").toStdString()).file);
    }
    source = "command line";
    return {};
}

Experiment ExperimentArguments::experiment(const QCommandLineParser& parser, const QString& forkConfig) const {
    std::string source;
    QJsonObject json = baseJson(parser, forkConfig, source);

    for (const char* flag : kTextFlags)
        if (parser.isSet(flag)) json[flag] = parser.value(flag);
    if (parser.isSet("network")) NetworkSpec().setLayers(parser.value("network").toStdString(), "--network");
    if (json.value("data").isString()) json["data"] = absoluteDataSpec(json.value("data").toString());
    for (const char* flag : kCountFlags) {
        if (!parser.isSet(flag)) continue;
        bool ok = false;
        const qlonglong value = parser.value(flag).toLongLong(&ok);
        if (!ok || value < 0 || value > kMaxCount)
            throw InputError(std::string("--") + flag + ": '" + parser.value(flag).toStdString() +
                             "' is not a whole number from 0 to " + std::to_string(kMaxCount));
        json[flag] = static_cast<double>(value);
    }
    if (parser.isSet("seed")) {  // the JSON rule reads the decimal text (any 64-bit value)
        const QString text = parser.value("seed");
        json["seed"] = seedToJson(seedFromJson(text, "--seed: '" + text.toStdString() + "'"));
    }
    // --steps and --epochs replace each other, whichever the base had.
    if (parser.isSet("steps")) json.remove("epochs");
    if (parser.isSet("epochs")) json.remove("steps");
    if (parser.isSet("init")) json["init"] = QFileInfo(parser.value("init")).absoluteFilePath();

    const QJsonValue fileRuns = json.value("runs");  // a file's malformed "runs" is reported as such
    QJsonArray runs = fileRuns.toArray();
    for (const ParameterField& field : parameterFields()) {
        const QString key = QString::fromStdString(field.key);
        if (!parser.isSet(key)) continue;
        json[key] = field.kind == ParameterField::Kind::Flag ? QJsonValue(true)
                                                             : typedValue(field, parser.value(key), "--" + field.key);
        for (qsizetype i = 0; i < runs.size(); ++i) {  // the flag wins over the file's run-level value
            QJsonObject run = runs[i].toObject();
            run.remove(key);
            runs[i] = run;
        }
    }
    if (parser.isSet("optimizer")) {
        QJsonArray listed = parseOptimizerList(parser.value("optimizer"));
        const QJsonObject forked = forkConfig.isEmpty() ? QJsonObject() : runs.first().toObject();
        for (qsizetype i = 0; i < listed.size(); ++i) {
            QJsonObject run = listed[i].toObject();
            if (run.value("optimizer") != forked.value("optimizer")) continue;
            for (auto it = forked.begin(); it != forked.end(); ++it)
                if (it.key() != "label" && !run.contains(it.key())) run.insert(it.key(), it.value());
            listed[i] = run;
        }
        json["runs"] = listed;
    } else if (fileRuns.isArray()) json["runs"] = runs;

    Experiment experiment = experimentFromJson(json, source);
    std::vector<std::string> given;
    for (const RunSpec& run : experiment.runs) given.push_back(run.label);
    makeLabelsUnique(experiment.runs);
    refuseRenamesOntoGivenLabels(given, experiment.runs);
    experiment.validate();
    return experiment;
}

std::vector<std::string> ExperimentArguments::unusedParameterFlags(const QCommandLineParser& parser,
                                                                   const Experiment& experiment) const {
    std::vector<std::string> unused;
    for (const ParameterField& field : parameterFields()) {
        if (!parser.isSet(QString::fromStdString(field.key))) continue;
        bool used = false;
        for (const RunSpec& run : experiment.runs) used = used || optimizerInfo(run.optimizer).uses(field.key);
        if (!used) unused.push_back("--" + field.key);
    }
    return unused;
}

}  // namespace ml
