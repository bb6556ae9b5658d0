#include "train/RunStatus.h"

#include "train/Snapshot.h"

#include <charconv>

namespace ml {

namespace {

// Diverged's word is a prefix: the step follows it.
struct StatusWord {
    RunStatus status;
    std::string_view text;
};
constexpr StatusWord kStatusWords[] = {{RunStatus::Pending, "pending"},
                                       {RunStatus::Running, "running"},
                                       {RunStatus::Done, "done"},
                                       {RunStatus::Stopped, "stopped"},
                                       {RunStatus::Diverged, "diverged at step "}};

}  // namespace

std::string statusText(RunStatus status, long divergedAtStep) {
    for (const StatusWord& word : kStatusWords)
        if (word.status == status)
            return std::string(word.text) + (status == RunStatus::Diverged ? std::to_string(divergedAtStep) : "");
    return "unknown";
}

std::optional<ParsedStatus> parseStatusText(std::string_view text) {
    for (const StatusWord& word : kStatusWords) {
        if (word.status != RunStatus::Diverged) {
            if (text == word.text) return ParsedStatus{word.status};
            continue;
        }
        if (!text.starts_with(word.text)) continue;
        const std::string_view step = text.substr(word.text.size());
        long value = 0;
        const auto [end, error] = std::from_chars(step.data(), step.data() + step.size(), value);
        if (error == std::errc() && end == step.data() + step.size() && !step.empty() && value >= 0)
            return ParsedStatus{RunStatus::Diverged, value};
    }
    return std::nullopt;
}

std::string statusVocabulary() {
    std::string list;
    for (const StatusWord& word : kStatusWords)
        list += (list.empty() ? "" : ", ") + std::string(word.text) + (word.status == RunStatus::Diverged ? "N" : "");
    return list;
}

std::string RunResult::statusText() const { return ml::statusText(status, divergedAtStep); }

}  // namespace ml
