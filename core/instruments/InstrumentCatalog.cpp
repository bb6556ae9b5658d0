#include "instruments/InstrumentCatalog.h"

#include "instruments/CurvatureInstrument.h"
#include "instruments/DiagnosticsInstrument.h"
#include "instruments/SnapshotInstrument.h"
#include "instruments/SpectrumInstrument.h"
#include "instruments/TrainingStateInstrument.h"

namespace ml {

const std::vector<InstrumentKind>& instrumentCatalog() {
    static const std::vector<InstrumentKind> catalog = {
        {"snapshots", SnapshotInstrument::addOptions, SnapshotInstrument::make},
        {"diagnostics", DiagnosticsInstrument::addOptions, DiagnosticsInstrument::make},
        {"curvature", CurvatureInstrument::addOptions, CurvatureInstrument::make},
        {"hessian-spectrum", SpectrumInstrument::addOptions, SpectrumInstrument::make},
        {"training-state", TrainingStateInstrument::addOptions, TrainingStateInstrument::make},
    };
    return catalog;
}

void addInstrumentOptions(QCommandLineParser& parser) {
    for (const InstrumentKind& kind : instrumentCatalog()) kind.addOptions(parser);
}

std::vector<std::unique_ptr<Instrument>> requestedInstruments(const InstrumentRequest& request) {
    std::vector<std::unique_ptr<Instrument>> instruments;
    for (const InstrumentKind& kind : instrumentCatalog())
        if (std::unique_ptr<Instrument> instrument = kind.make(request)) instruments.push_back(std::move(instrument));
    return instruments;
}

}  // namespace ml
