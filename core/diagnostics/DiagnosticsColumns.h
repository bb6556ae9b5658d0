#pragma once
// The columns of diagnostics.csv, in order: the one list that the writer (DiagnosticsRowWriter.h),
// the reader (DiagnosticsRecords.h) and the table of docs/guide/diagnostics.md follow (test_docs
// checks the table against it). The quantities: diagnostics/StepDiagnostics.h.
#include <array>
#include <cstddef>
#include <string_view>

namespace ml {

inline constexpr std::array<std::string_view, 11> kDiagnosticsColumns = {"step",
                                                                         "layer",
                                                                         "neuron",
                                                                         "gradient_norm",
                                                                         "update_norm",
                                                                         "update_to_weight",
                                                                         "distance_from_initial",
                                                                         "cos_moment_gradient",
                                                                         "mean_share",
                                                                         "moment_cv",
                                                                         "gradient_snr"};

// Files written before the last column (gradient_snr) was added have the ones before it; they read
// with it nan.
inline constexpr std::size_t kDiagnosticsColumnsBeforeSnr = kDiagnosticsColumns.size() - 1;

}  // namespace ml
