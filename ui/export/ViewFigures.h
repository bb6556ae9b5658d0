#pragma once
// The registered views' figures (views/ViewRegistry.h) as the export writes them: a plot as
// PNG/PDF/SVG and pgfplots, a view that paints itself as PNG/PDF/SVG, with its reason when left out.
#include "export/ReportWriter.h"
#include "views/ViewRegistry.h"

#include <vector>

namespace ml {

NamedFigure namedFigure(const ViewFigure& figure);
std::vector<NamedFigure> namedFigures(const std::vector<ViewFigure>& figures);

}  // namespace ml
