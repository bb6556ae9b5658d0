#include "instruments/InstrumentRecords.h"

#include <iterator>

namespace ml {

void InstrumentRecords::append(InstrumentRecords&& more) {
    diagnostics.insert(diagnostics.end(), std::make_move_iterator(more.diagnostics.begin()),
                       std::make_move_iterator(more.diagnostics.end()));
    curvature.insert(curvature.end(), more.curvature.begin(), more.curvature.end());
    if (!more.spectra.empty()) spectra = std::move(more.spectra);
    if (!more.spectrumProblem.isEmpty()) spectrumProblem = std::move(more.spectrumProblem);
}

}  // namespace ml
