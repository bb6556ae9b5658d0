#pragma once
// The names an experiment's runs take on disk: the run folder's file names and the rule that turns a
// run label into a folder name. Here rather than in runfolder/ because an experiment's labels are
// checked when the experiment is made (the form, the JSON, the CLI), before anything is written.
#include <QString>

#include <string>
#include <vector>

namespace ml {

namespace runfolder {
inline constexpr const char* kConfig = "config.json";
inline constexpr const char* kMetrics = "metrics.csv";
inline constexpr const char* kInitialWeights = "weights_initial.json";
inline constexpr const char* kFinalWeights = "weights_final.json";
inline constexpr const char* kSummary = "summary.csv";
inline constexpr const char* kSnapshots = "snapshots.bin";
// Written only on request (core/diagnostics; columns in docs/guide/diagnostics.md).
inline constexpr const char* kDiagnostics = "diagnostics.csv";
inline constexpr const char* kCurvature = "curvature.csv";
inline constexpr const char* kHessianSpectrum = "hessian_spectrum.csv";
inline constexpr const char* kStateFolder = "state";
}  // namespace runfolder

// Run labels are free text (shown in tables and plots); on disk each becomes a name by one rule,
// used for the run folders, the GUI's CSV export (NAME.csv) and the report (runs/NAME.csv):
//  - every character other than a letter, a digit or one of - _ . + = @ becomes '_', so '/', '\',
//    ':', ',', spaces and control characters never reach a path;
//  - a leading '.' becomes '_', so no name is ".", ".." or hidden.
// Labels are refused (checkRunFileNames) when empty, longer than kMaxRunFileNameBytes in UTF-8,
// when the name is a file of the run folder or its stem (config.json, config, summary.csv,
// summary, ...; any case), or when two runs would get the same name (ignoring case).
inline constexpr int kMaxRunFileNameBytes = 120;
QString runFileName(const std::string& label);
// Throws InputError naming "runs[i].label" and what was expected.
void checkRunFileNames(const std::vector<std::string>& labels);

}  // namespace ml
