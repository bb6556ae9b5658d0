#pragma once
// The JSON form of an experiment: the experiment file (--config), the presets and a run folder's
// config.json. Keys are the CLI's flag names; top-level hyper-parameters apply to every run that
// reads them, run-level ones to that run.
#include "experiment/Experiment.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QString>

#include <cstdint>
#include <string>

namespace ml {

QJsonObject toJson(const Experiment& experiment);

// A seed is any 64-bit value, but JSON numbers are doubles, exact only up to 2^53: larger seeds are
// written as decimal strings; both forms are read. Throws InputError naming `context`.
inline constexpr std::uint64_t kLargestExactJsonInteger = std::uint64_t{1} << 53;
QJsonValue seedToJson(std::uint64_t seed);
std::uint64_t seedFromJson(const QJsonValue& value, const std::string& context);
// The run's hyper-parameters as JSON: only the keys its optimizer reads.
QJsonObject toJson(const RunSpec& run);

// Checks every field and names it in its error messages ("EXP.json: runs[1].lr: ..."); unknown
// keys are refused. Throws InputError.
Experiment experimentFromJson(const QJsonObject& json, const std::string& source);

// Reads an experiment file as JSON, with a relative "init" made relative to the file's folder
// (config.json names weights_initial.json beside it). Throws InputError naming the file.
QJsonObject readExperimentJson(const QString& path);
Experiment loadExperiment(const QString& path);

}  // namespace ml
