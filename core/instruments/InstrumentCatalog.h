#pragma once
// Every instrument, one row each: its name, the `train` flags it declares and how it is made from a
// request (the flags, or the experiment's keys). The CLI adds every row's flags; a TrainingJob gets
// the instruments a request asks for. A new instrument is its class and its row here.
#include "instruments/Instrument.h"
#include "instruments/InstrumentRequest.h"

#include <memory>
#include <vector>

namespace ml {

struct InstrumentKind {
    const char* name;
    void (*addOptions)(QCommandLineParser& parser);
    // nullptr when the request does not ask for it. Throws InputError naming the flag.
    std::unique_ptr<Instrument> (*make)(const InstrumentRequest& request);
};

const std::vector<InstrumentKind>& instrumentCatalog();

// Every instrument's flags, in the catalog's order (the order `train --help` lists them).
void addInstrumentOptions(QCommandLineParser& parser);
// The instruments `request` asks for, in the catalog's order. Throws InputError naming the flag.
std::vector<std::unique_ptr<Instrument>> requestedInstruments(const InstrumentRequest& request);

}  // namespace ml
