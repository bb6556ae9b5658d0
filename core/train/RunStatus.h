#pragma once
// A run's state and its words: the one vocabulary written to summary.csv, shown by the CLI and the
// GUI, and parsed back when a run folder is opened.
#include <optional>
#include <string>
#include <string_view>

namespace ml {

enum class RunStatus { Pending, Running, Done, Stopped, Diverged };

// "pending", "running", "done", "stopped", "diverged at step N" (N only for Diverged).
std::string statusText(RunStatus status, long divergedAtStep = 0);

struct ParsedStatus {
    RunStatus status;
    long divergedAtStep = 0;
};
// The inverse of statusText; nothing when `text` is none of its forms.
std::optional<ParsedStatus> parseStatusText(std::string_view text);
// The forms for error messages: "pending, running, done, stopped, diverged at step N".
std::string statusVocabulary();

}  // namespace ml
