#pragma once
// Turns `momentum-lab-cli train` arguments into an Experiment. Precedence, lowest first:
// optimizer defaults < the --config/--preset file < command-line flags < per-run values in
// --optimizer (e.g. "momentum,adam:lr=0.001"). A flag such as --lr overrides the value of every
// run that reads it, including run-level values of the config file.
#include "experiment/Experiment.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>

#include <string>
#include <vector>

namespace ml {

class ExperimentArguments {
public:
    ExperimentArguments();
    // Adds the experiment options to a parser (shared by `train` and its help text).
    void addOptions(QCommandLineParser& parser) const;
    // Builds and validates the experiment. Throws InputError naming the flag or file.
    // `forkConfig`: a run's config.json to fork from (train --fork-from), the base instead of
    // --config/--preset; a listed run with that run's optimizer inherits its hyper-parameters
    // (under flags and its own KEY=VALUE), so it continues with the same settings.
    Experiment experiment(const QCommandLineParser& parser, const QString& forkConfig = {}) const;
    // Flags given for hyper-parameters that no run reads (worth a warning).
    std::vector<std::string> unusedParameterFlags(const QCommandLineParser& parser, const Experiment& experiment) const;

private:
    QJsonObject baseJson(const QCommandLineParser& parser, const QString& forkConfig, std::string& source) const;
    QList<QCommandLineOption> options_;
};

// "momentum,adam:lr=0.001:label=fast" -> JSON run objects.
QJsonArray parseOptimizerList(const QString& text);

}  // namespace ml
