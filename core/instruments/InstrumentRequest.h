#pragma once
// What asks for instruments: the `train` command line, each flag falling back on the experiment's
// key of the same name ("diagnostics-every", ...), or the experiment's keys alone (the desktop app,
// which has no flags). An instrument reads its settings only through this.
#include "experiment/Experiment.h"

#include <QCommandLineParser>

namespace ml {

class InstrumentRequest {
public:
    // `flags`: parsed `train` options (nullptr: the experiment's keys only).
    explicit InstrumentRequest(const Experiment& experiment, const QCommandLineParser* flags = nullptr)
        : experiment_(experiment), flags_(flags) {}

    const Experiment& experiment() const { return experiment_; }
    bool fromCommandLine() const { return flags_ != nullptr; }
    bool isSet(const char* flag) const { return flags_ && flags_->isSet(flag); }
    // --flag N as a whole number >= low, else `fallback`. Throws InputError naming the flag.
    int wholeNumber(const char* flag, int fallback, int low) const;
    // --flag N as a count in 1..maximum, else `fallback`. Throws InputError naming the flag.
    long count(const char* flag, long fallback, long maximum) const;

private:
    const Experiment& experiment_;
    const QCommandLineParser* flags_;
};

// The option readers behind them, for every command's flags (the messages name the flag).
int wholeOption(const QCommandLineParser& parser, const char* name, int fallback, int low);
long countOption(const QCommandLineParser& parser, const QString& name, long fallback, long maximum);

}  // namespace ml
